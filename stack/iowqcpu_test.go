package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// iowqCPUConfig is a CPU-bound io_uring run whose excess goes to io-wq: a costly
// submission path, 4 driver tags, a 2 ms device.
func iowqCPUConfig(cpus int) stack.Config {
	cfg := stack.Config{
		NrCPUs: cpus,
		Host:   stack.Host{CanQueue: 4, NrHwQueues: 1},
		LUNs:   []stack.LUN{{Device: nullDevice(2 * sim.Millisecond), QueueDepth: 4, Scheduler: "none"}},
		Kernel: "6.1",
		Seed:   1,
	}
	cfg.CPU.Costs = dispatch.DefaultCPUCosts()
	cfg.CPU.Costs.Submit = 300 * sim.Microsecond
	cfg.CPU.Costs.SubmitSyscall = 150 * sim.Microsecond
	return cfg
}

// TestIOWQSubmitWorkNoSyscallShare: io_wq_submit_work retries a punted I/O inside the
// worker, without a system call, so the retry pays Submit − SubmitSyscall (150 µs
// here) where the old rule (SubmitTiming.IOWQSubmitWorkSyscall) charged the whole
// Submit (300 µs). One CPU, 4 tags on a 2 ms device (2000 I/Os per second at most):
// with the old rule a punted I/O costs 600 µs, the CPU saturates and nearly every
// submission is punted (469 of 525 I/Os); with 450 µs the CPU keeps up, more inline
// attempts find a tag and the run comes near the device bound (581 I/Os, 306 punted).
func TestIOWQSubmitWorkNoSyscallShare(t *testing.T) {
	job := "[j]\nioengine=io_uring\nfilename=/dev/sda\ndirect=1\nrw=randread\nbs=4k\niodepth=64\nruntime=300ms\ntime_based\nfilesize=1G\n"
	run := func(old bool) (ios, punted int64) {
		cfg := iowqCPUConfig(1)
		cfg.Submit.IOWQSubmitWorkSyscall = old
		res, err := stack.Run(cfg, parse(t, job))
		if err != nil {
			t.Fatal(err)
		}
		j := res.Jobs[0]
		return j.Fio.Read().TotalIOs, int64(j.Wait.WouldBlock)
	}
	ios, punted := run(false)
	oldIOs, oldPunted := run(true)
	if punted == 0 || oldPunted == 0 {
		t.Fatal("no submission was punted to io-wq: the test does not exercise the workers")
	}
	if float64(ios) < 1.05*float64(oldIOs) {
		t.Errorf("C/io-wq-retry-no-syscall-share: %d I/Os with the syscall share left out, %d with the old rule: want at least 5 %% more", ios, oldIOs)
	}
	if punted*oldIOs >= oldPunted*ios {
		t.Errorf("C/io-wq-retry-no-syscall-share: %d of %d I/Os punted, old rule %d of %d: want a smaller share", punted, ios, oldPunted, oldIOs)
	}
}

// TestWorkerIdleBalance: with Placement.WorkerIdleBalance an idle CPU pulls an io-wq
// worker that has waited the migration cost for its busy CPU. Two CPUs, the ring
// owner pinned to CPU 1, costly submissions and context switches (600 µs): the
// workers start on the first idle CPU after the owner's (CPU 0, wake_up_new_task's
// fork balance) and queue there behind each other, while CPU 1 idles for 6 % of the
// run when the owner waits for completions. The pull lets waiting workers use that
// idle time, so more I/Os complete (435 against 403); off, the run is the old
// model's. Either way it is deterministic.
func TestWorkerIdleBalance(t *testing.T) {
	job := "[j]\nioengine=io_uring\nfilename=/dev/sda\ndirect=1\nrw=randread\nbs=4k\niodepth=64\nruntime=300ms\ntime_based\nfilesize=1G\ncpus_allowed=1\n"
	run := func(on bool) int64 {
		cfg := iowqCPUConfig(2)
		cfg.CPU.Costs.Switch = 600 * sim.Microsecond
		cfg.Placement.WorkerIdleBalance = on
		res, err := stack.Run(cfg, parse(t, job))
		if err != nil {
			t.Fatal(err)
		}
		if res.Jobs[0].Wait.WouldBlock == 0 {
			t.Fatal("no submission was punted to io-wq: the test does not exercise the workers")
		}
		return res.Jobs[0].Fio.Read().TotalIOs
	}
	off, on := run(false), run(true)
	if again := run(true); again != on {
		t.Errorf("WorkerIdleBalance not deterministic: %d then %d I/Os", on, again)
	}
	t.Logf("I/Os: off %d, on %d", off, on)
	if on <= off {
		t.Errorf("C/worker-idle-balance: %d I/Os with the idle balance pulling waiting workers, %d without: want more", on, off)
	}
}
