package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestSubmitterTakesItsCPUTurn: a fio thread that finds its CPU busy waits for the work
// charged before it, then submits, as a deferred completion or kblockd run does; it
// does not wait for an idle CPU. Four libaio jobs at iodepth 32 on a zero-latency
// null_blk with one hctx (64 tags, 4 CPUs): every completion runs on the hctx's
// interrupt CPU 0, which the completions of the other CPUs' I/Os keep busy. A thread on
// CPU 0 (pinned, or an unpinned one whose wake-up placement moved it there) that waits
// for an idle CPU never submits again after start-up: the user report had three jobs
// at 36, 428, 4522 I/Os against 5,030,526 over 10 s.
func TestSubmitterTakesItsCPUTurn(t *testing.T) {
	skipUnderRace(t)
	tests := []struct {
		name   string
		pinned bool
		// minShare: the least-served job's I/Os as a share of the best-served one's
		minShare float64
	}{
		// unpinned threads all end up sharing CPU 0 (the placement moves a woken thread,
		// and one waiting for its CPU is never woken): they must share it evenly
		{"user-report/unpinned-jobs-share-the-interrupt-cpu", false, 0.5},
		// one job per CPU: the CPU-0 job shares its CPU with every completion of the
		// hctx and gets less, but keeps submitting (it had 3 % of the others' I/Os)
		{"user-report/pinned-job-on-the-interrupt-cpu", true, 0.06},
	}
	job := "[global]\nioengine=libaio\niodepth=32\nrw=randread\nbs=4k\nruntime=200ms\ntime_based\n[r]\nnumjobs=4\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := stack.Config{
				NrCPUs: 4,
				Host:   stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 64},
				LUNs:   []stack.LUN{{Device: nullDevice(0), QueueDepth: 64}},
				Seed:   1,
			}
			specs := parse(t, job)
			if tt.pinned {
				for i := range specs {
					specs[i].CPUsAllowed = []int{i}
				}
			}
			res, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			var ios []int64
			lo, hi := int64(-1), int64(0)
			for _, j := range res.Jobs {
				n := j.Fio.Read().TotalIOs
				ios = append(ios, n)
				if lo < 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
			t.Logf("I/Os per job: %v", ios)
			if float64(lo) < tt.minShare*float64(hi) {
				t.Errorf("%s: I/Os per job %v: least served %d < %.0f %% of most served %d", tt.name, ios, lo, 100*tt.minShare, hi)
			}
		})
	}
}
