package dispatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

// TestWokenTaskAt: a task woken on a CPU (a tag sleeper) runs after its wake-up
// latency; under Timing.IRQPreempt no earlier than the end of the work charged to that
// CPU when it is woken (the interrupt that woke it and the task work it preempted).
func TestWokenTaskAt(t *testing.T) {
	const busy, lat = 50 * sim.Microsecond, 10 * sim.Microsecond
	tests := []struct {
		name    string
		preempt bool
		busy    sim.Time // charged to CPU 1 before the wake-up
		irq     sim.Time // interrupt work on CPU 1 after it
		want    sim.Time
	}{
		{"default/busy", false, busy, 0, lat},
		{"irq-preempt/idle", true, 0, 0, lat},
		{"irq-preempt/busy", true, busy, 0, busy},
		{"irq-preempt/busy+interrupt", true, busy, 5 * sim.Microsecond, busy + 5*sim.Microsecond},
		{"irq-preempt/interrupt-only", true, 0, 20 * sim.Microsecond, 20 * sim.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHost(sim.NewEngine(), HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 8,
				Timing: Timing{IRQPreempt: tt.preempt}})
			if err != nil {
				t.Fatal(err)
			}
			h.onCPU(1)
			h.charge(tt.busy)
			h.cpu.irq = 2
			h.charge(tt.irq)
			h.cpu.irq = 0
			if d := cmp.Diff(tt.want, h.wokenTaskAt(1, lat)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// firedAt records when it fired.
type firedAt struct{ at []sim.Time }

func (f *firedAt) Fire(now sim.Time) { f.at = append(f.at, now) }

// TestWakeTaskAfterInterrupt: a task woken from inside an interrupt (a tag sleeper
// woken by a completion) is released when the interrupt returns, at the end of the
// work charged to its CPU then (the whole interrupt and the task work it preempted),
// not at the interrupt's progress when it was woken; outside an interrupt, or with the
// switch off, it runs after its latency (by the switch, no earlier than the work
// charged to its CPU when woken).
func TestWakeTaskAfterInterrupt(t *testing.T) {
	const busy, lat, before, after = 50 * sim.Microsecond, 10 * sim.Microsecond, 5 * sim.Microsecond, 20 * sim.Microsecond
	tests := []struct {
		name          string
		preempt, inIR bool
		want          []sim.Time
	}{
		{"default", false, true, []sim.Time{lat}},
		{"irq-preempt/from-interrupt", true, true, []sim.Time{busy + before + after}},
		// woken by task work: the work charged by the wake-up (the rest of the
		// CPU's work is not an interrupt that holds it back)
		{"irq-preempt/no-interrupt", true, false, []sim.Time{busy + before}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := NewHost(eng, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 8,
				Timing: Timing{IRQPreempt: tt.preempt}})
			if err != nil {
				t.Fatal(err)
			}
			h.onCPU(1)
			h.charge(busy) // the task the interrupt preempts
			if tt.inIR {
				h.cpu.irq = 2
			}
			h.charge(before)
			f := &firedAt{}
			h.wakeTask(1, lat, f)
			h.charge(after) // the rest of the interrupt, after the wake-up
			h.cpu.irq = 0
			h.irqReturn()
			eng.RunUntil(sim.Millisecond)
			if d := cmp.Diff(tt.want, f.at); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
