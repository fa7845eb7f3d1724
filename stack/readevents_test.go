package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// readEventsCase is one 4k reader at iodepth 4 pinned to CPU 1 of a 2-CPU null_blk
// with 2 ms timer completions (which run on the submitting CPU), emulated at factor
// 20 with the wake split, ReadEventsAfterWork as given. It returns CPU 1's busy time
// per command (ns) and the job's IOPS.
func readEventsCase(t *testing.T, after bool) (busyPerIO, iops float64) {
	t.Helper()
	cfg := stack.Config{
		NrCPUs: 2,
		Host: stack.Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: stack.DriverNullBlk,
			NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
		LUNs: []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(2 * sim.Millisecond), Scheduler: "none"}},
		Seed: 1,
	}
	cfg, err := cfg.EmulatedWith(20, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: after})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Submit.ReadEventsAfterWork != after {
		t.Fatalf("SubmitTiming.ReadEventsAfterWork = %v, want %v", cfg.Submit.ReadEventsAfterWork, after)
	}
	specs := parse(t, `
[r]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=4
cpus_allowed=1
time_based=1
runtime=200ms
filename=/dev/nullb0
`)
	res, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatal(err)
	}
	rd := res.Jobs[0].Fio.Read()
	if rd.TotalIOs == 0 {
		t.Fatal("no I/O completed")
	}
	return float64(res.CPUBusy[1]) / float64(res.Queues[0].Dispatched), rd.IOPS
}

// TestReadEventsAfterWork: four commands submitted back to back complete one
// submission step apart, so without the rule the reaper finds the next completion
// not yet posted at the start of its wait and sleeps and is woken for each (a
// sleep-and-wake cycle per command: two switches and a wake-up, about 48 µs here on
// top of the path's 31 µs); with it, the completion that came due during the step is
// reaped when the step is done, as io_getevents → aio_read_events finds it after
// io_submit returns, and the CPU per command falls by most of a cycle. The device
// binds either way (4 / 2 ms), so IOPS stay within 5 %. Same config, same result.
func TestReadEventsAfterWork(t *testing.T) {
	off, iopsOff := readEventsCase(t, false)
	on, iopsOn := readEventsCase(t, true)
	if !(on < 0.8*off) {
		t.Errorf("CPU per command with ReadEventsAfterWork %.1f µs, without %.1f µs: want at least 20 %% less", on/1e3, off/1e3)
	}
	if d := iopsOn/iopsOff - 1; d < -0.05 || d > 0.05 {
		t.Errorf("IOPS %.0f with the rule, %.0f without: the device binds, want within 5 %%", iopsOn, iopsOff)
	}
	again, _ := readEventsCase(t, true)
	if again != on {
		t.Errorf("not deterministic: %v then %v", on, again)
	}
	t.Logf("CPU per command: without %.1f µs, with %.1f µs; IOPS %.0f / %.0f", off/1e3, on/1e3, iopsOff, iopsOn)
}
