package stack_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestWakeupNoPreempt: three qd32 reader processes pinned to one CPU of a 2 ms
// null_blk at factor 20 (hosts/2026-12-04's slowdown): with the option the woken
// readers wait for the running one and the turns end once per ring (DrainSwitch or
// the running one's sleep), about the guest's 0.033 switches per command. (This
// bare configuration, without the oracle's per-cell overheads, drain-switches
// without the option too; the oracle's hold-drain12-3r cell is where the option
// moves the count: 0.0275 wake-up switches, no drain switch, to 0.030 drain
// switches.) Twelve qd1 readers keep one switch per command (partReap).
func TestWakeupNoPreempt(t *testing.T) {
	run := func(n, depth int, wnp bool) (*stack.Result, float64) {
		return runTurn(t, n, depth, wnp, false)
	}
	offRes, off := run(3, 32, false)
	onRes, on := run(3, 32, true)
	t.Logf("3 x qd32: %.4f switches per command without, %.4f with (drain %d -> %d)", off, on,
		offRes.Switches.DrainSwitches, onRes.Switches.DrainSwitches)
	if onRes.Switches.DrainSwitches == 0 {
		t.Error("3 x qd32: no drain switch with WakeupNoPreempt")
	}
	if on < 0.02 || on > 0.045 {
		t.Errorf("3 x qd32: %.4f switches per command, want about one per ring (0.02-0.045)", on)
	}
	_, q1 := run(12, 1, true)
	if q1 < 0.9 || q1 > 1.1 {
		t.Errorf("12 x qd1: %.3f switches per command, want about 1", q1)
	}
}

// runTurn runs n qd-depth reader processes pinned to one CPU of a 2 ms null_blk at
// factor 20 and returns the result and its process switches per command.
func runTurn(t *testing.T, n, depth int, wnp, dry bool) (*stack.Result, float64) {
	t.Helper()
	res := pinnedNullRun(t, 20, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true,
		TLBWorkingSet: stack.DefaultTLBWorkingSet, TickSwitchRefill: true, DrainSwitch: true, TLBRefillGrows: true,
		WakeupNoPreempt: wnp, DryTurn: dry}, fmt.Sprintf(`
[r]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=%d
cpus_allowed=1
numjobs=%d
time_based=1
runtime=400ms
filename=/dev/nullb0
`, depth, n))
	var cmds int64
	for _, j := range res.Jobs {
		cmds += j.Fio.Read().TotalIOs
	}
	s := res.Switches
	return res, float64(s.ProcessSwitches+s.DrainSwitches+s.TickRefillSwitches) / float64(cmds)
}

// TestDryTurn: two qd32 readers on one CPU (hosts/2026-12-04 hold-drain12-2r's
// shape, whose guest switches 0.033-0.035 times per command: turns of about 26
// commands, shorter than a ring): with DryTurn a turn also ends when the loaded
// process has spent the completions gathered since its last turn, so the turns are
// no longer than DrainSwitch's and the count does not fall.
func TestDryTurn(t *testing.T) {
	_, wnp := runTurn(t, 2, 32, true, false)
	res, dry := runTurn(t, 2, 32, true, true)
	t.Logf("2 x qd32: %.4f switches per command with WakeupNoPreempt, %.4f with DryTurn (drain %d)", wnp, dry, res.Switches.DrainSwitches)
	if dry < wnp || dry > 0.08 {
		t.Errorf("2 x qd32: %.4f switches per command with DryTurn, want at least WakeupNoPreempt's %.4f and at most 0.08", dry, wnp)
	}
	_, q1 := runTurn(t, 12, 1, true, true)
	if q1 < 0.9 || q1 > 1.1 {
		t.Errorf("12 x qd1: %.3f switches per command with DryTurn, want about 1", q1)
	}
}
