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
