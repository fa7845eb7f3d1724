package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestIOWQWorkerKeepsCPU: a running io-wq worker goes on to its next work item
// while its CPU holds no other work (6.1's io_worker_handle_work loop; a woken worker
// does not preempt it), where with SubmitTiming.IOWQWorkerYields it waits behind the
// other workers queued for that CPU after every item. Two CPUs, the ring owner on
// CPU 1, costly submissions and switches (iowqCPUConfig, 600 µs): the workers share
// CPU 0. Keeping its CPU, the running worker takes the tags freed while it runs and
// the others, left asleep in blk_mq_get_tag, pay the sleep and wake-up switches
// (7 asleep at once at most, 323 I/Os); yielding, the workers take turns on the CPU
// without sleeping (3 asleep at most, 403 I/Os).
func TestIOWQWorkerKeepsCPU(t *testing.T) {
	job := "[j]\nioengine=io_uring\nfilename=/dev/sda\ndirect=1\nrw=randread\nbs=4k\niodepth=64\nruntime=300ms\ntime_based\nfilesize=1G\ncpus_allowed=1\n"
	run := func(yields bool) stack.JobResult {
		cfg := iowqCPUConfig(2)
		cfg.CPU.Costs.Switch = 600 * sim.Microsecond
		cfg.Submit.IOWQWorkerYields = yields
		res, err := stack.Run(cfg, parse(t, job))
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs[0]
	}
	keep, yield := run(false), run(true)
	if again := run(false); again.Fio.Read().TotalIOs != keep.Fio.Read().TotalIOs {
		t.Errorf("not deterministic: %d then %d I/Os", keep.Fio.Read().TotalIOs, again.Fio.Read().TotalIOs)
	}
	if keep.Wait.WouldBlock == 0 {
		t.Fatal("no submission was punted to io-wq: the test does not exercise the workers")
	}
	t.Logf("keeps CPU: %d I/Os, %d punted, max sleepers %d; yields: %d I/Os, %d punted, max sleepers %d",
		keep.Fio.Read().TotalIOs, keep.Wait.WouldBlock, keep.MaxSleepers,
		yield.Fio.Read().TotalIOs, yield.Wait.WouldBlock, yield.MaxSleepers)
	if keep.MaxSleepers <= yield.MaxSleepers {
		t.Errorf("C/io-wq-worker-keeps-cpu: at most %d tasks asleep in blk_mq_get_tag with the running worker keeping its CPU, %d with it yielding: want more",
			keep.MaxSleepers, yield.MaxSleepers)
	}
}
