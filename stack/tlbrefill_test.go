package stack_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// tlbBusy is the CPU 1 busy time per command (ns) of two 4k readers at iodepth 32
// pinned to CPU 1 of a 2 ms null_blk (two processes, or two threads with thread),
// emulated at factor 20 with the wake split and the working-set refill ws.
func tlbBusy(t *testing.T, thread bool, ws sim.Time) float64 {
	t.Helper()
	cfg := stack.Config{
		NrCPUs: 2,
		Host: stack.Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: stack.DriverNullBlk,
			NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
		LUNs: []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(2 * sim.Millisecond), Scheduler: "none"}},
		Seed: 1,
	}
	cfg, err := cfg.EmulatedWith(20, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true, TLBWorkingSet: ws})
	if err != nil {
		t.Fatal(err)
	}
	th := ""
	if thread {
		th = "thread=1\n"
	}
	specs := parse(t, `
[r]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=32
cpus_allowed=1
numjobs=2
time_based=1
runtime=200ms
filename=/dev/nullb0
`+th)
	res, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatal(err)
	}
	return float64(res.CPUBusy[1]) / float64(res.Queues[0].Dispatched)
}

// TestTLBWorkingSet: with the working-set refill two reader processes sharing a CPU
// spend more CPU per command (the commands after each process switch refill their
// pages), at most one command's refill (MMSwitch × factor) per command; two threads
// of one process (no CR3 write between them) spend the same; natively (no emulation)
// the option is not set; a cost outside [0, 1 ms] is refused naming the field.
func TestTLBWorkingSet(t *testing.T) {
	const ws = 35 * sim.Microsecond
	base, with := tlbBusy(t, false, 0), tlbBusy(t, false, ws)
	t.Logf("two processes: %.0f ns of CPU 1 per command with the refill, %.0f without", with, base)
	if !(with > base) || with-base > float64(stack.DefaultMMSwitch*20) {
		t.Errorf("two processes: %.0f ns per command with the refill, %.0f without: want more, by at most %v", with, base, stack.DefaultMMSwitch*20)
	}
	if a, b := tlbBusy(t, true, 0), tlbBusy(t, true, ws); a != b {
		t.Errorf("two threads: %.0f ns per command with the refill, %.0f without: want equal", b, a)
	}
	native, err := stack.Config{NrCPUs: 1}.EmulatedWith(1, stack.EmulationOptions{TLBWorkingSet: ws})
	if err != nil || native.Submit.TLBWorkingSet != 0 {
		t.Errorf("without the wake split (no MMSwitch): Submit.TLBWorkingSet %v, err %v; want 0", native.Submit.TLBWorkingSet, err)
	}
	for _, bad := range []sim.Time{-1, 2 * sim.Millisecond} {
		_, err := stack.Config{NrCPUs: 1}.EmulatedWith(2, stack.EmulationOptions{WakeSplit: true, TLBWorkingSet: bad})
		var ce *stack.ConfigError
		if !errors.As(err, &ce) || ce.Field != "EmulationOptions.TLBWorkingSet" || !strings.Contains(err.Error(), "[0, 1ms]") {
			t.Errorf("TLBWorkingSet %v: err %v, want a ConfigError naming EmulationOptions.TLBWorkingSet", bad, err)
		}
	}
}
