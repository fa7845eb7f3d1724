package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestBlkdevWriteIterPlug (block/fops.c blkdev_write_iter, round 9): a sequential
// libaio writer on a block device with more I/Os in flight than the sdev budget
// (iodepth 8, queue_depth 2, none) merges none of its writes: each one is issued from
// blkdev_write_iter's plug (blk_mq_plug_issue_direct) and a write that finds no budget
// waits on hctx->dispatch, where no bio merges. Without the plug
// (SubmitTiming.NoBlkdevWriteIterPlug, the model before round 9) a write that finds no
// budget waits in the software queue and the next sequential bios back-merge into it.
// The same job reading merges either way: reads are not plugged (blkdev_read_iter).
func TestBlkdevWriteIterPlug(t *testing.T) {
	tests := []struct {
		name       string
		rw         string
		noPlug     bool
		wantMerges bool
	}{
		{"write-plugged", "write", false, false},
		{"write-unplugged", "write", true, true},
		{"read", "read", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Host.NrHwQueues = 2
			cfg.LUNs[0].Scheduler = "none"
			cfg.LUNs[0].QueueDepth = 2
			cfg.Submit.NoBlkdevWriteIterPlug = tt.noPlug
			job := "[j]\nrw=" + tt.rw + "\nbs=8k\ndirect=1\nruntime=50ms\ntime_based\nfilesize=1G\ncpus_allowed=1\niodepth=8\nioengine=libaio\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			q := res.Queues[0]
			if q.Dispatched == 0 {
				t.Fatalf("no command dispatched: %+v", q)
			}
			if got := q.Merges > 0; got != tt.wantMerges {
				t.Errorf("merges = %d (of %d bios), want merges %v", q.Merges, q.Bios, tt.wantMerges)
			}
		})
	}
}

// TestSyncWriteFlushFromSchedule (round 9): a psync write to a block device sleeps in
// submit_bio_wait inside blkdev_write_iter's plug, so io_schedule flushes the plug
// from schedule (blk_flush_plug(plug, true)): the request is inserted into the
// software queue and the hctx run by kblockd, never issued directly; a psync read
// (no plug) is issued directly. Without the plug the write is issued directly too.
func TestSyncWriteFlushFromSchedule(t *testing.T) {
	tests := []struct {
		name       string
		rw         string
		noPlug     bool
		wantDirect bool
	}{
		{"write-plugged", "randwrite", false, false},
		{"write-unplugged", "randwrite", true, true},
		{"read", "randread", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.LUNs[0].Scheduler = "none"
			cfg.Submit.NoBlkdevWriteIterPlug = tt.noPlug
			job := "[j]\nrw=" + tt.rw + "\nbs=4k\ndirect=1\nruntime=20ms\ntime_based\nfilesize=1G\ncpus_allowed=0\nioengine=psync\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			q := res.Queues[0]
			if q.Dispatched == 0 {
				t.Fatalf("no command dispatched: %+v", q)
			}
			if got := q.DirectIssues > 0; got != tt.wantDirect {
				t.Errorf("direct issues = %d of %d commands (async runs %d), want direct %v", q.DirectIssues, q.Dispatched, q.AsyncRuns, tt.wantDirect)
			}
			if !tt.wantDirect && q.AsyncRuns < q.Dispatched/2 {
				t.Errorf("async runs = %d for %d commands, want about one each", q.AsyncRuns, q.Dispatched)
			}
		})
	}
}
