package stack_test

import (
	"github.com/blkmq/blkmq/dispatch"
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

// TestIOWQWorkerPacedByCPU: an io-wq worker also submits on its CPU one item after the
// other. One CPU, a costly submission path (300 µs per attempt, charged on the CPU)
// and an io_uring job on a block device whose excess goes to io-wq (4 driver tags,
// iodepth 64, a 2 ms device): each I/O costs the CPU at most two attempts (the inline
// one that got -EAGAIN and the worker's), so the run is CPU-bound near runtime / 600 µs
// = 83 I/Os. Without pacing the workers charge their submissions whenever they are
// woken, the CPU's backlog runs ahead of time and the completions queued behind it
// come late (30 I/Os).
func TestIOWQWorkerPacedByCPU(t *testing.T) {
	cfg := stack.Config{
		NrCPUs: 1,
		Host:   stack.Host{CanQueue: 4, NrHwQueues: 1},
		LUNs:   []stack.LUN{{Device: nullDevice(2 * sim.Millisecond), QueueDepth: 4, Scheduler: "none"}},
		Kernel: "6.1",
		Seed:   1,
	}
	cfg.CPU.Costs = dispatch.DefaultCPUCosts()
	cfg.CPU.Costs.Submit = 300 * sim.Microsecond
	job := "[j]\nioengine=io_uring\nfilename=/dev/sda\ndirect=1\nrw=randread\nbs=4k\niodepth=64\nruntime=50ms\ntime_based\nfilesize=1G\n"
	res, err := stack.Run(cfg, parse(t, job))
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	if j.Wait.WouldBlock == 0 {
		t.Fatal("no submission was punted to io-wq: the test does not exercise the workers")
	}
	// 80 % of the CPU-bound rate
	if got, want := j.Fio.Read().TotalIOs, int64(66); /* 80 % of 50 ms / 600 µs */ got < want {
		t.Errorf("C/io-wq-worker-paced-by-cpu: %d I/Os completed in 50 ms, want at least %d (CPU-bound near 83)", got, want)
	}
}
