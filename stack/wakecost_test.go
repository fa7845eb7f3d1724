package stack_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// wakeCase is one queue-depth-1 reader pinned to CPU 1 of a 2-CPU null_blk with
// 1 ms timer completions (which run on the submitting CPU), emulated at factor 50,
// with a fixed 1 µs wake-up latency, under the emulation options o.
func wakeCase(t *testing.T, o stack.EmulationOptions, engine string) (clat, slat, busyPerIO float64) {
	return wakeCaseSched(t, o, engine, "none")
}

// wakeCaseSched is wakeCase with the LUN's scheduler sched.
func wakeCaseSched(t *testing.T, o stack.EmulationOptions, engine, sched string) (clat, slat, busyPerIO float64) {
	t.Helper()
	cfg := stack.Config{
		NrCPUs: 2,
		Host: stack.Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: stack.DriverNullBlk,
			NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
		LUNs:   []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(sim.Millisecond), Scheduler: sched}},
		Submit: stack.SubmitTiming{ReapMin: sim.Microsecond, ReapMax: sim.Microsecond},
		Seed:   1,
	}
	cfg, err := cfg.EmulatedWith(50, o)
	if err != nil {
		t.Fatal(err)
	}
	specs := parse(t, `
[r]
ioengine=`+engine+`
direct=1
rw=randread
bs=4k
iodepth=1
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
	// every command of the run (the window's and the tail's) charged CPU 1
	return rd.Clat.Mean, rd.Slat.Mean, float64(res.CPUBusy[1]) / float64(res.Queues[0].Dispatched)
}

// TestEmulatedWakeSplit: with WakeSplit, the guest code of the reaper's sleep and
// wake-up is CPU time. Every step of one command runs on CPU 1 here, so the reap comes
// after the completion's work, the waker's try_to_wake_up (Wakeup) and the switch back
// to the reaper (Switch), all scaled, instead of 1 µs after the completion: clat grows
// by at least (Wakeup + Switch) × 50, and CPU 1's busy time per command by (Wakeup +
// 2 × Switch) × 50, the switch away from the reaper as it sleeps included (off the
// clat path: it runs right after the submission).
// With IssueAtReturn fio's issue_time is the syscall's return, after the submission's
// scaled work, so slat grows and clat shrinks by the same amount, the CPU time being
// unchanged. Both engines wake their reaper the same way (aio_complete's wake_up;
// io_uring's set_notify_signal → wake_up_state).
func TestEmulatedWakeSplit(t *testing.T) {
	const f = 50
	c := dispatch.DefaultCPUCosts()
	wake := float64(f * (c.Wakeup + dispatch.NativeSwitch))
	cycle := float64(f * (c.Wakeup + 2*dispatch.NativeSwitch))
	for _, engine := range []string{"libaio", "io_uring"} {
		clat0, slat0, busy0 := wakeCase(t, stack.EmulationOptions{}, engine)
		for _, tc := range []struct {
			name       string
			o          stack.EmulationOptions
			dClatMin   float64 // clat − clat0, bounds (ns)
			dClatMax   float64
			dSlat      float64 // slat − slat0 at least (ns)
			dBusyPerIO float64 // within 1 % of busy0 (the run's last command is reaped unwoken)
		}{
			{"split", stack.EmulationOptions{WakeSplit: true}, wake, wake + float64(f*(c.Completion+c.EndBio+c.TagPut+c.LineRemote)), 0, cycle},
			{"split-2us", stack.EmulationOptions{WakeSplit: true, Switch: 2 * sim.Microsecond},
				float64(f * (c.Wakeup + 2000)), float64(f * (c.Wakeup + 2000 + c.Completion + c.EndBio + c.TagPut + c.LineRemote)), 0, float64(f * (c.Wakeup + 4000))},
			{"issue-at-return", stack.EmulationOptions{IssueAtReturn: true}, -float64(f * (c.Submit + c.BioAlloc + c.Dispatch + c.QueueRq + c.TagGet + c.LineRemote*4)),
				-float64(f * (c.Submit + c.BioAlloc + c.Dispatch + c.QueueRq)), float64(f * (c.Submit + c.BioAlloc + c.Dispatch + c.QueueRq)), 0},
		} {
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				clat, slat, busy := wakeCase(t, tc.o, engine)
				if d := clat - clat0; d < tc.dClatMin || d > tc.dClatMax {
					t.Errorf("clat %.0f ns, %+.0f ns from %.0f without, want %+.0f..%+.0f", clat, d, clat0, tc.dClatMin, tc.dClatMax)
				}
				if d := slat - slat0; d < tc.dSlat {
					t.Errorf("slat %.0f ns, %+.0f ns from %.0f without, want at least %+.0f", slat, d, slat0, tc.dSlat)
				}
				if d := busy - busy0; math.Abs(d-tc.dBusyPerIO) > 0.01*busy0 {
					t.Errorf("CPU 1 busy %.0f ns per command, %+.0f from %.0f without, want %+.0f", busy, d, busy0, tc.dBusyPerIO)
				}
			})
		}
	}
}

// TestEmulatedWithDefaults: the zero options are Emulated's, the native table charges
// no switch, and a switch cost out of range is an error naming it.
func TestEmulatedWithDefaults(t *testing.T) {
	if s := dispatch.DefaultCPUCosts().Switch; s != 0 {
		t.Errorf("DefaultCPUCosts().Switch = %v, want 0 (native runs charge no switch)", s)
	}
	base := baseConfig()
	a, err := base.Emulated(10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := base.EmulatedWith(10, stack.EmulationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.CPU != b.CPU || a.Submit != b.Submit || a.CPU.Costs.Switch != 0 {
		t.Errorf("Emulated and EmulatedWith(zero options) differ: %+v / %+v", a.CPU, b.CPU)
	}
	on, err := base.EmulatedWith(10, stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true})
	if err != nil {
		t.Fatal(err)
	}
	if on.CPU.Costs.Switch != 10*dispatch.NativeSwitch || !on.Submit.IssueAtReturn {
		t.Errorf("WakeSplit: Switch %v, IssueAtReturn %v, want %v and true", on.CPU.Costs.Switch, on.Submit.IssueAtReturn, 10*dispatch.NativeSwitch)
	}
	for _, sw := range []sim.Time{-1, sim.Millisecond + 1} {
		_, err := base.EmulatedWith(10, stack.EmulationOptions{WakeSplit: true, Switch: sw})
		if err == nil || !strings.Contains(err.Error(), "switch cost") || !strings.Contains(err.Error(), "out of range [0, 1ms]") {
			t.Errorf("Switch %v: error %v, want the switch cost out of range", sw, err)
		}
	}
}

// TestEmulatedWakeSplitKblockd: with mq-deadline every unplugged submission inserts
// into the scheduler and runs the hctx asynchronously (blk_mq_sched_insert_request
// with async set), so kblockd's kworker is woken on the submitting CPU for each
// command: with WakeSplit its two context switches (to the kworker and back) add
// 2 × LazyTLBSwitch × 50 per command on top of the reaper's cycle (a kernel thread's
// switch, stack.NativeLazyTLBSwitch), or 2 × Switch × 50 with NoLazyTLB.
func TestEmulatedWakeSplitKblockd(t *testing.T) {
	const f = 50
	for _, tt := range []struct {
		name string
		o    stack.EmulationOptions
		sw   sim.Time
	}{
		{"lazy-tlb", stack.EmulationOptions{WakeSplit: true}, stack.NativeLazyTLBSwitch},
		{"no-lazy-tlb", stack.EmulationOptions{WakeSplit: true, NoLazyTLB: true}, dispatch.NativeSwitch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, none0 := wakeCaseSched(t, stack.EmulationOptions{}, "libaio", "none")
			_, _, none1 := wakeCaseSched(t, tt.o, "libaio", "none")
			_, _, dl0 := wakeCaseSched(t, stack.EmulationOptions{}, "libaio", "mq-deadline")
			_, _, dl1 := wakeCaseSched(t, tt.o, "libaio", "mq-deadline")
			kblockd := (dl1 - dl0) - (none1 - none0)
			if want := float64(f * 2 * tt.sw); math.Abs(kblockd-want) > 0.05*want {
				t.Errorf("mq-deadline adds %.0f ns of CPU per command with the split (none %+.0f, mq-deadline %+.0f), want the kblockd run's two switches, %.0f", kblockd, none1-none0, dl1-dl0, want)
			}
		})
	}
}

// TestEmulatedWithScaledSwitch: the switch cost is native, [0, 1 ms], but scaled by
// the slowdown it is one CPU cost, and a CPU cost is at most 1 ms: a switch whose
// scaled cost passes that is a *ConfigError naming the field, the product and the
// largest switch allowed at that slowdown (it was accepted, then refused at Run as
// "dispatch: CPU cost Switch 25ms out of range").
func TestEmulatedWithScaledSwitch(t *testing.T) {
	base := baseConfig()
	for _, tc := range []struct {
		name   string
		factor float64
		o      stack.EmulationOptions
		want   string // "" = accepted
	}{
		{"default at 50", 50, stack.EmulationOptions{WakeSplit: true}, ""},
		{"20us at 50", 50, stack.EmulationOptions{WakeSplit: true, Switch: 20 * sim.Microsecond}, ""},
		{"20.001us at 50", 50, stack.EmulationOptions{WakeSplit: true, Switch: 20001}, "switch cost 20.001µs × slowdown 50 = 1.00005ms is above the 1ms limit of a CPU cost; allowed at this slowdown: [0, 20µs]"},
		{"500us at 50", 50, stack.EmulationOptions{WakeSplit: true, Switch: 500 * sim.Microsecond}, "allowed at this slowdown: [0, 20µs]"},
		{"1ms at 1000", 1000, stack.EmulationOptions{WakeSplit: true, Switch: sim.Millisecond}, "allowed at this slowdown: [0, 1µs]"},
		{"default at 1000", 1000, stack.EmulationOptions{WakeSplit: true}, ""},
		{"no split ignores Switch", 50, stack.EmulationOptions{Switch: 500 * sim.Microsecond}, ""},
		{"factor 1 charges nothing", 1, stack.EmulationOptions{WakeSplit: true, Switch: sim.Millisecond}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := base.EmulatedWith(tc.factor, tc.o)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := stack.Check(c, nil); err != nil {
					t.Errorf("accepted options give a config Check refuses: %v", err)
				}
				return
			}
			var ce *stack.ConfigError
			if !errors.As(err, &ce) || ce.Field != "EmulationOptions.Switch" || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a *ConfigError for EmulationOptions.Switch containing %q", err, tc.want)
			}
		})
	}
}

// TestEmulatedWithFactorRange: the factor is checked whether CPU costs are on or
// off. With CPU.Off it was not (only CPUCosts.Emulated checked it), so NaN, +Inf or
// 1e300 gave an io-wq WorkerStep of math.MinInt64 and an error naming
// Placement.FioParentSlowdown at Check, and 0.5 or 1001 were accepted.
func TestEmulatedWithFactorRange(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), 1e300, -5, 0, 0.5, 1001} {
		for _, off := range []bool{false, true} {
			c := baseConfig()
			c.CPU.Off = off
			_, err := c.EmulatedWith(f, stack.EmulationOptions{WakeSplit: true})
			var ce *stack.ConfigError
			if !errors.As(err, &ce) || ce.Field != "factor" || !strings.Contains(err.Error(), "out of range [1, 1000]") {
				t.Errorf("factor %v, CPU.Off %v: error %v, want a *ConfigError naming the factor's range", f, off, err)
			}
		}
	}
	for _, f := range []float64{1, 74, 1000} {
		for _, off := range []bool{false, true} {
			c := baseConfig()
			c.CPU.Off = off
			x, err := c.EmulatedWith(f, stack.EmulationOptions{})
			if err != nil {
				t.Fatalf("factor %v, CPU.Off %v: %v", f, off, err)
			}
			if err := stack.Check(x, nil); err != nil || x.Submit.WorkerStep <= 0 {
				t.Errorf("factor %v, CPU.Off %v: WorkerStep %v, Check %v", f, off, x.Submit.WorkerStep, err)
			}
		}
	}
}
