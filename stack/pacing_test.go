package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestSubmitLoopPacedByCPU models fio's submission loop running on the job's CPU one
// I/O after the other (Request C of the kernel oracle): each bio enters
// blk_mq_submit_bio when the CPU has finished the previous one's cost, so kblockd can
// dispatch a request from mq-deadline while the rest of a burst is still being
// submitted. Without pacing every bio freed by a reap arrives at one instant and merges
// into the one waiting request (sd-seqread-deadline: the model's 128 KiB commands
// against the real 6.1 kernel's 22 KiB). A sequential 8k reader at QD16 behind a
// queue_depth of 4 with mq-deadline: with CPU costs charged (the default) commands
// must be clearly smaller than with CPU costs off, where the loop is not paced.
func TestSubmitLoopPacedByCPU(t *testing.T) {
	run := func(cpuOff bool) float64 {
		cfg := stack.Config{
			NrCPUs: 2,
			Host:   stack.Host{CanQueue: 64, NrHwQueues: 1},
			LUNs:   []stack.LUN{{Device: nullDevice(4 * sim.Millisecond), QueueDepth: 4, Scheduler: "mq-deadline"}},
			Kernel: "6.1",
			Seed:   1,
		}
		cfg.CPU.Off = cpuOff
		job := "[seqr]\nioengine=libaio\ndirect=1\nrw=read\nbs=8k\niodepth=16\ncpus_allowed=0\nruntime=500ms\ntime_based\nfilesize=1G\n"
		res, err := stack.Run(cfg, parse(t, job))
		if err != nil {
			t.Fatal(err)
		}
		q := res.Queues[0]
		return float64(q.DispatchedBytes) / float64(q.Dispatched) / 1024
	}
	paced, unpaced := run(false), run(true)
	t.Logf("mean command: %.1f KiB paced, %.1f KiB unpaced", paced, unpaced)
	if paced > 0.75*unpaced {
		t.Errorf("C/submit-loop-paced-by-cpu: mean command %.1f KiB with CPU costs, %.1f KiB without: want at most 75 %% of it", paced, unpaced)
	}
}
