package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestFioClatAtReap models fio's latency clocks (Request A of the kernel oracle):
// issue_time is stamped when io_submit returns (ioengines.c td_io_queue; libaio
// fio_libaio_queued), a completion is stamped when getevents returns it (io_u.c
// io_u_queued_complete → io_completed: clat = reap − issue_time), and a full queue
// reaps iodepth_batch_complete_max (default 1) events per getevents call. A libaio
// thread asleep in blk_mq_get_tag therefore leaves its finished I/Os unreaped and
// their clat includes the wait: the real 6.1 kernel's sd-randread-hostwide (two QD32
// jobs on 24 host-wide tags) gives IOPS × clat = 31.0 of iodepth 32 per job
// (testdata/kernel). A synchronous engine stamps issue_time before the read, so its
// slat is 0 and a sleep for a tag is clat.
func TestFioClatAtReap(t *testing.T) {
	hostwide := func() stack.Config {
		return stack.Config{
			NrCPUs: 2,
			Host:   stack.Host{CanQueue: 24, NrHwQueues: 2, HostTagset: true},
			LUNs:   []stack.LUN{{Device: nullDevice(4 * sim.Millisecond), QueueDepth: 24, Scheduler: "none"}},
			Kernel: "6.1",
			Seed:   1,
		}
	}
	tests := []struct {
		name string
		job  string
		// lower bound of IOPS × mean clat / iodepth, per job
		minClatShare float64
		// slat must be exactly 0 (synchronous engines)
		zeroSlat bool
	}{
		{"A/libaio-asleep-in-get-tag-leaves-completions-unreaped",
			"[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\nruntime=400ms\nramp_time=100ms\ntime_based\nfilesize=1G\n" +
				"[cpu0]\ncpus_allowed=0\n[cpu1]\ncpus_allowed=1\n", 0.9, false},
		{"A/psync-tag-sleep-is-clat",
			"[global]\nioengine=psync\ndirect=1\nrw=randread\nbs=4k\nruntime=1s\nramp_time=100ms\ntime_based\nfilesize=1G\n\n[sync]\nnumjobs=40\n", 0.99, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := stack.Run(hostwide(), parse(t, tt.job))
			if err != nil {
				t.Fatal(err)
			}
			// sums over the jobs (each job's own window edges cost ±1 I/O)
			var inFlight, inClat, depth float64
			for _, j := range res.Jobs {
				d := j.Fio.Read()
				inFlight += d.IOPS * d.Lat.Mean / 1e9
				inClat += d.IOPS * d.Clat.Mean / 1e9
				depth += float64(j.Spec.EffectiveIODepth)
				if tt.zeroSlat && d.Slat.Max != 0 {
					t.Errorf("%s: slat max %d ns, want 0 for a synchronous engine", j.Spec.Instance(), d.Slat.Max)
				}
			}
			if got := inFlight / depth; got < 0.98 || got > 1.02 {
				t.Errorf("Σ IOPS × lat / Σ iodepth = %.3f, want 1 ± 2%% (Little's law over fio's cycle)", got)
			}
			if got := inClat / depth; got < tt.minClatShare {
				t.Errorf("Σ IOPS × clat / Σ iodepth = %.3f, want >= %.2f", got, tt.minClatShare)
			}
		})
	}
}
