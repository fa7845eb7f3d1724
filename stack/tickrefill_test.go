package stack_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// tickRun runs n CPU-bound 4k readers at iodepth 32 pinned to CPU 1 of a 2 ms
// null_blk with 128 tags (processes, or threads of one process with thread),
// emulated at factor 60 with the working-set refill and TickSwitchRefill as on.
func tickRun(t *testing.T, n int, thread, on bool) *stack.Result {
	t.Helper()
	return tickRunAt(t, 60, n, thread, on, false)
}

// tickRunAt is tickRun at emulation factor f, with DrainSwitch as drain.
func tickRunAt(t *testing.T, f float64, n int, thread, on, drain bool) *stack.Result {
	t.Helper()
	th := ""
	if thread {
		th = "thread=1\n"
	}
	return pinnedNullRun(t, f, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true,
		TLBWorkingSet: stack.DefaultTLBWorkingSet, TickSwitchRefill: on, DrainSwitch: drain}, fmt.Sprintf(`
[r]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=32
cpus_allowed=1
numjobs=%d
time_based=1
runtime=400ms
filename=/dev/nullb0
`, n)+th)
}

// pinnedNullRun runs job (fio job-file text) on two CPUs and a 2 ms null_blk with
// 128 tags (timer completions, scheduler none), emulated at factor f with o: the
// machine of the process-switch tests.
func pinnedNullRun(t *testing.T, f float64, o stack.EmulationOptions, job string) *stack.Result {
	t.Helper()
	cfg := stack.Config{
		NrCPUs: 2,
		Host: stack.Host{CanQueue: 128, NrHwQueues: 2, CmdPerLun: 128, Driver: stack.DriverNullBlk,
			NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
		LUNs: []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(2 * sim.Millisecond), Scheduler: "none"}},
		Seed: 1,
	}
	cfg, err := cfg.EmulatedWith(f, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stack.Run(cfg, parse(t, job))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// lateJoinJob is two qd32 reader processes on CPU 1, a for 400 ms and b for 200 ms
// from startdelay (a fio time value).
func lateJoinJob(startdelay string) string {
	return `
[global]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=32
cpus_allowed=1
filename=/dev/nullb0
time_based=1
[a]
runtime=400ms
[b]
runtime=200ms
startdelay=` + startdelay + `
`
}

// TestTickSwitchRefill: four CPU-bound reader processes on one CPU make no modelled
// switch without the option; with it they switch once per 4 ms tick (sched_slice 3 ms
// for four tasks, rounded up to the tick: 100 in 400 ms, within the run's start) and
// spend more CPU per command; two processes switch every other tick (6 ms slice);
// threads of one process (no CR3 write) and a run without the option charge none.
func TestTickSwitchRefill(t *testing.T) {
	per := func(r *stack.Result) float64 { return float64(r.CPUBusy[1]) / float64(r.Queues[0].Dispatched) }
	off, on := tickRun(t, 4, false, false), tickRun(t, 4, false, true)
	t.Logf("four processes: %d tick switches, %.0f ns of CPU 1 per command (%.0f without)", on.Switches.TickRefillSwitches, per(on), per(off))
	if off.Switches.TickRefillSwitches != 0 || off.Switches.ProcessSwitches != 0 {
		t.Errorf("without the option: %+v, want no switch", off.Switches)
	}
	if n := on.Switches.TickRefillSwitches; n < 90 || n > 100 {
		t.Errorf("four processes: %d tick switches in 400 ms, want one per 4 ms tick (90-100)", n)
	}
	if !(per(on) > per(off)) {
		t.Errorf("four processes: %.0f ns per command with the switches, %.0f without: want more", per(on), per(off))
	}
	if n := tickRun(t, 2, false, true).Switches.TickRefillSwitches; n < 45 || n > 50 {
		t.Errorf("two processes: %d tick switches in 400 ms, want one per 8 ms (45-50)", n)
	}
	if th := tickRun(t, 4, true, true); th.Switches.TickRefillSwitches != 0 {
		t.Errorf("four threads: %d tick switches, want 0 (one address space)", th.Switches.TickRefillSwitches)
	}
	native, err := stack.Config{NrCPUs: 1}.EmulatedWith(1, stack.EmulationOptions{TickSwitchRefill: true})
	if err != nil || native.Submit.TickSwitchRefill {
		t.Errorf("without TLBWorkingSet: Submit.TickSwitchRefill %v, err %v; want false", native.Submit.TickSwitchRefill, err)
	}
}

// TestDrainSwitch: four qd32 reader processes on one CPU of a 2 ms device drain
// their rings within a turn when a command costs little CPU (factor 12: a ring of 33
// submissions takes about 1 ms; the guest's 0.030 switches per command on
// hosts/2026-12-04), so they switch more often than the tick and spend more CPU per
// command; at factor 60 a ring takes longer than a command's latency and only the
// tick switches; threads make none. (Without the per-command emulation overhead
// the oracle adds, factor 20 is at the threshold here: 33 submissions take about
// the 2.1 ms of a command's latency.)
func TestDrainSwitch(t *testing.T) {
	per := func(r *stack.Result) float64 { return float64(r.CPUBusy[1]) / float64(r.Queues[0].Dispatched) }
	tick, drain := tickRunAt(t, 12, 4, false, true, false), tickRunAt(t, 12, 4, false, true, true)
	sw := float64(drain.Switches.DrainSwitches) / float64(drain.Queues[0].Dispatched)
	t.Logf("factor 12: %d drain + %d tick switches (%.4f per command), %.0f ns of CPU 1 per command (%.0f with the tick's only)",
		drain.Switches.DrainSwitches, drain.Switches.TickRefillSwitches, sw, per(drain), per(tick))
	if tick.Switches.DrainSwitches != 0 {
		t.Errorf("without the option: %d drain switches, want 0", tick.Switches.DrainSwitches)
	}
	if sw < 0.02 || sw > 0.04 {
		t.Errorf("factor 12: %.4f drain switches per command, want 0.02-0.04 (the guest's 0.030-0.031)", sw)
	}
	if !(per(drain) > per(tick)) {
		t.Errorf("factor 12: %.0f ns per command with drain switches, %.0f without: want more", per(drain), per(tick))
	}
	if slow := tickRunAt(t, 60, 4, false, true, true); slow.Switches.DrainSwitches != 0 {
		t.Errorf("factor 60: %d drain switches, want 0 (a ring outlasts a command's latency)", slow.Switches.DrainSwitches)
	}
	if th := tickRunAt(t, 12, 4, true, true, true); th.Switches.DrainSwitches != 0 {
		t.Errorf("four threads: %d drain switches, want 0 (one address space)", th.Switches.DrainSwitches)
	}
}

// TestTickSwitchRefillNoCatchUp: a second process that joins a CPU after the first
// ran alone there for 200 ms is a switch at the next tick and then one per slice, as
// check_preempt_tick makes them (the running task is past its slice once, not once
// per slice it ran alone): 200 ms of sharing charges about as many switches as the
// same 200 ms at the run's start (25 at one per 8 ms), not a burst catching up the
// slices of the time it ran alone (50 before).
func TestTickSwitchRefillNoCatchUp(t *testing.T) {
	run := func(startdelay string) uint64 {
		res := pinnedNullRun(t, 60, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true,
			TLBWorkingSet: stack.DefaultTLBWorkingSet, TickSwitchRefill: true}, lateJoinJob(startdelay))
		return res.Switches.TickRefillSwitches
	}
	first, late := run("0"), run("200ms")
	if first < 23 || first > 27 {
		t.Errorf("b shares the CPU for its first 200 ms: %d tick switches, want 23-27 (one per 8 ms)", first)
	}
	if late < first-2 || late > first+2 {
		t.Errorf("b joins at 200 ms: %d tick switches, want about the %d of the same sharing at the start", late, first)
	}
}

// TestTLBRefillGrows: after a drain switch the refill grows with the turn's commands
// (stack/tlbrefill.go TLBRefillSaturation), so four qd16 processes, whose turns are
// about 17 commands, pay less refill per switch than the saturated working set, and
// less CPU per command than with the per-command MMSwitch refill; qd32 turns (33
// commands, past the saturation turn) pay the whole set either way.
func TestTLBRefillGrows(t *testing.T) {
	run := func(depth int, grows bool) *stack.Result {
		t.Helper()
		res := pinnedNullRun(t, 12, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true,
			TLBWorkingSet: stack.DefaultTLBWorkingSet, TickSwitchRefill: true, DrainSwitch: true, TLBRefillGrows: grows}, fmt.Sprintf(`
[r]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=%d
cpus_allowed=1
numjobs=4
time_based=1
runtime=400ms
filename=/dev/nullb0
`, depth))
		return res
	}
	perSwitch := func(r *stack.Result) float64 {
		n := r.Switches.DrainSwitches + r.Switches.TickRefillSwitches
		if n == 0 {
			return 0
		}
		return float64(r.Switches.TLBRefill) / float64(n)
	}
	full := float64(stack.DefaultTLBWorkingSet-stack.DefaultMMSwitch) * 12
	old, grown := run(16, false), run(16, true)
	t.Logf("qd16: refill per switch %.0f ns grown, %.0f per command (the saturated set %.0f)", perSwitch(grown), perSwitch(old), full)
	if grown.Switches.DrainSwitches == 0 {
		t.Fatal("qd16: no drain switches")
	}
	if p := perSwitch(grown); p <= 0 || p > 0.85*full {
		t.Errorf("qd16: %.0f ns of refill per switch, want above 0 and below 85 %% of the set's %.0f", p, full)
	}
	if !(perSwitch(grown) < perSwitch(old)) {
		t.Errorf("qd16: grown refill %.0f ns per switch not below the per-command one's %.0f", perSwitch(grown), perSwitch(old))
	}
	if p := perSwitch(run(32, true)); p < 0.9*full {
		t.Errorf("qd32: %.0f ns of refill per switch, want the whole set (%.0f)", p, full)
	}
}

// TestDrainSwitchLateJoin: with DrainSwitch on as oracle.DefaultWake has it, a
// second process that joins a CPU after the first ran alone there for 200 ms makes
// about as many switches (drain and tick together) in its 200 ms of sharing as the
// same sharing at the run's start, at factor 16 (rings drained within a turn: the
// drain switches, since at the switch) and at factor 60 (the tick's switches only,
// since at the latest tick reached): neither rule catches up the lone time in a
// burst when the two are combined (review12's tick rule merged with tlbhost12's).
func TestDrainSwitchLateJoin(t *testing.T) {
	run := func(f float64, startdelay string) *stack.Result {
		res := pinnedNullRun(t, f, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true,
			TLBWorkingSet: stack.DefaultTLBWorkingSet, TickSwitchRefill: true, DrainSwitch: true}, lateJoinJob(startdelay))
		return res
	}
	for _, f := range []float64{16, 60} {
		first, late := run(f, "0"), run(f, "200ms")
		n := func(r *stack.Result) uint64 { return r.Switches.DrainSwitches + r.Switches.TickRefillSwitches }
		t.Logf("factor %v: at the start %d drain + %d tick, joining at 200 ms %d + %d", f,
			first.Switches.DrainSwitches, first.Switches.TickRefillSwitches, late.Switches.DrainSwitches, late.Switches.TickRefillSwitches)
		if n(first) == 0 {
			t.Errorf("factor %v: no switch while two processes share the CPU", f)
		}
		if d := float64(n(late)) - float64(n(first)); d > 0.1*float64(n(first))+2 || d < -0.1*float64(n(first))-2 {
			t.Errorf("factor %v: %d switches when b joins at 200 ms, want about the %d of the same sharing at the start", f, n(late), n(first))
		}
	}
	if r := run(60, "0"); r.Switches.DrainSwitches != 0 {
		t.Errorf("factor 60: %d drain switches, want 0 (a ring outlasts a command's latency)", r.Switches.DrainSwitches)
	}
}
