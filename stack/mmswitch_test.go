package stack_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestEmulatedMMSwitch: the process-switch cost is charged only with WakeSplit,
// DefaultMMSwitch unless set or turned off, scaled by the slowdown; out of [0, 1 ms],
// or above 1 ms once scaled, it is an error naming the field.
func TestEmulatedMMSwitch(t *testing.T) {
	tests := []struct {
		name    string
		factor  float64
		o       stack.EmulationOptions
		want    sim.Time
		wantErr string
	}{
		{"no-split", 50, stack.EmulationOptions{}, 0, ""},
		{"split-default", 50, stack.EmulationOptions{WakeSplit: true}, 50 * stack.DefaultMMSwitch, ""},
		{"split-2us", 50, stack.EmulationOptions{WakeSplit: true, MMSwitch: 2 * sim.Microsecond}, 100 * sim.Microsecond, ""},
		{"split-off", 50, stack.EmulationOptions{WakeSplit: true, NoMMSwitch: true}, 0, ""},
		{"negative", 50, stack.EmulationOptions{WakeSplit: true, MMSwitch: -1}, 0, "process-switch cost -1ns out of range [0, 1ms]"},
		{"scaled-above-1ms", 200, stack.EmulationOptions{WakeSplit: true, MMSwitch: 6 * sim.Microsecond}, 0, "process-switch cost 6µs × slowdown 200 = 1.2ms is above the 1ms limit"},
		{"default-kept-at-200", 200, stack.EmulationOptions{WakeSplit: true}, 200 * stack.DefaultMMSwitch, ""},
		{"default-lowered-at-250", 250, stack.EmulationOptions{WakeSplit: true}, sim.Millisecond, ""},
		{"scaled-above-1ms-off", 200, stack.EmulationOptions{WakeSplit: true, NoMMSwitch: true}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := baseConfig().EmulatedWith(tt.factor, tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, c.CPU.Costs.MMSwitch); d != "" {
				t.Errorf("CPUCosts.MMSwitch (-want +got):\n%s", d)
			}
		})
	}
}

// TestMMSwitchTwoPinnedReaders: with mq-deadline each submission's kblockd run
// preempts the submitting reader; with a second reader runnable on the same CPU the
// worker's sleep hands the CPU to it, a switch between two processes costing
// MMSwitch: two CPU-bound readers pinned to one CPU lose throughput, one reader
// alone is not charged at all (bit-for-bit the same as without the cost).
func TestMMSwitchTwoPinnedReaders(t *testing.T) {
	run := func(jobs int, o stack.EmulationOptions) int64 {
		t.Helper()
		cfg := stack.Config{
			NrCPUs: 2,
			Host: stack.Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: stack.DriverNullBlk,
				NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
			LUNs:   []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(2 * sim.Millisecond), Scheduler: "mq-deadline"}},
			Submit: stack.SubmitTiming{ReapMin: sim.Microsecond, ReapMax: sim.Microsecond},
			Seed:   1,
		}
		cfg, err := cfg.EmulatedWith(50, o)
		if err != nil {
			t.Fatal(err)
		}
		text := "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\ncpus_allowed=1\ntime_based=1\nruntime=300ms\nfilename=/dev/nullb0\n"
		for i := 0; i < jobs; i++ {
			text += "[r" + string(rune('0'+i)) + "]\n"
		}
		res, err := stack.Run(cfg, parse(t, text))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, j := range res.Jobs {
			n += j.Fio.Read().TotalIOs
		}
		return n
	}
	on := stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true}
	off := on
	off.NoMMSwitch = true
	if a, b := run(1, on), run(1, off); a != b {
		t.Errorf("one reader: %d I/Os with MMSwitch, %d without; want the same (no other task to switch to)", a, b)
	}
	a, b := run(2, on), run(2, off)
	if float64(a) > 0.9*float64(b) {
		t.Errorf("two readers on one CPU: %d I/Os with MMSwitch, %d without; want at least 10 %% fewer", a, b)
	}
}

// TestMMSwitchAtWake: with scheduler none (no kblockd preemption) the process-switch
// cost is charged where a wake-up switches a CPU from one fio process to another: two
// readers pinned to one CPU that sleep in blk_mq_get_tag (16 tags for 64 I/Os) lose
// throughput to it; one reader alone, two thread=1 jobs (one address space) and the
// round-6 rule (MMSwitchKblockdOnly) are charged nothing, bit for bit.
func TestMMSwitchAtWake(t *testing.T) {
	run := func(jobs int, thread bool, o stack.EmulationOptions) int64 {
		t.Helper()
		cfg := stack.Config{
			NrCPUs: 2,
			Host: stack.Host{CanQueue: 16, NrHwQueues: 2, CmdPerLun: 16, Driver: stack.DriverNullBlk,
				NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
			LUNs:   []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(2 * sim.Millisecond), Scheduler: "none"}},
			Submit: stack.SubmitTiming{ReapMin: sim.Microsecond, ReapMax: sim.Microsecond},
			Seed:   1,
		}
		cfg, err := cfg.EmulatedWith(50, o)
		if err != nil {
			t.Fatal(err)
		}
		text := "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\ncpus_allowed=1\ntime_based=1\nruntime=300ms\nfilename=/dev/nullb0\n"
		if thread {
			text += "thread=1\n"
		}
		for i := 0; i < jobs; i++ {
			text += "[r" + string(rune('0'+i)) + "]\n"
		}
		res, err := stack.Run(cfg, parse(t, text))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, j := range res.Jobs {
			n += j.Fio.Read().TotalIOs
		}
		return n
	}
	on := stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true}
	off := on
	off.NoMMSwitch = true
	kbOnly := on
	kbOnly.MMSwitchKblockdOnly = true
	tests := []struct {
		name    string
		jobs    int
		thread  bool
		o       stack.EmulationOptions
		charged bool // fewer I/Os than without the cost
	}{
		{"two-processes", 2, false, on, true},
		{"one-process", 1, false, on, false},
		{"two-threads", 2, true, on, false},
		{"two-processes-kblockd-only", 2, false, kbOnly, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			with, without := run(tt.jobs, tt.thread, tt.o), run(tt.jobs, tt.thread, off)
			if tt.charged {
				if float64(with) > 0.95*float64(without) {
					t.Errorf("%d I/Os with MMSwitch, %d without; want at least 5 %% fewer", with, without)
				}
				return
			}
			if d := cmp.Diff(without, with); d != "" {
				t.Errorf("I/Os with MMSwitch vs without (-without +with):\n%s", d)
			}
		})
	}
}
