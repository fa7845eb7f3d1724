package stack_test

import (
	"math"
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestJobsShareTheirFile models fio's files (Request D of the kernel oracle): jobs that
// give the same filename= do I/O to the same file, so two random jobs on /dev/sda draw
// offsets over the same range, while jobs without filename= get a file each. With
// mq-deadline, which dispatches in sector order, disjoint regions would serve one job
// first on every sweep: the real 6.1 kernel splits sd-randrw-uring-deadline (two pinned
// io_uring QD16 jobs, queue_depth 8, 2 ms) evenly, 1157 / 1157 reads/s, where a model
// with one region per job gave 1044 / 1427.
func TestJobsShareTheirFile(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		maxSkew float64 // |a−b| / mean of the two jobs' IOPS
	}{
		{"D/same-filename-even-split", "filename=/dev/sda\n", 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := stack.Config{
				NrCPUs: 2,
				Host:   stack.Host{CanQueue: 32, NrHwQueues: 2},
				LUNs:   []stack.LUN{{Device: nullDevice(2 * sim.Millisecond), QueueDepth: 8, Scheduler: "mq-deadline"}},
				Kernel: "6.1",
				Seed:   1,
			}
			job := "[global]\nioengine=io_uring\ndirect=1\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=16\nruntime=2s\ntime_based\nsize=4g\n" + tt.file +
				"[mix0]\ncpus_allowed=0\n[mix1]\ncpus_allowed=1\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			a, b := res.Jobs[0].Fio.Read().IOPS, res.Jobs[1].Fio.Read().IOPS
			if skew := math.Abs(a-b) / ((a + b) / 2); skew > tt.maxSkew {
				t.Errorf("read IOPS %.0f / %.0f: skew %.3f above %.2f", a, b, skew, tt.maxSkew)
			}
		})
	}
}
