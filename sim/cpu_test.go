package sim_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

// TestCPUInterrupt checks the interrupt-context step: it starts at once (after earlier
// interrupt work only), and the task-level work it preempts finishes later by its cost.
func TestCPUInterrupt(t *testing.T) {
	type step struct {
		irq       bool
		now, cost sim.Time
	}
	type got struct {
		Ends              []sim.Time
		FreeAt, IRQFreeAt sim.Time
		Busy              sim.Time
	}
	for _, tc := range []struct {
		name  string
		steps []step
		want  got
	}{
		{"idle CPU: the interrupt runs at now",
			[]step{{true, 10, 5}},
			got{[]sim.Time{15}, 15, 15, 5}},
		{"preempted step finishes later by the interrupt's cost",
			[]step{{false, 0, 100}, {true, 30, 20}},
			got{[]sim.Time{100, 50}, 120, 50, 120}},
		{"two interrupts in a row preempt the same step, in charge order",
			[]step{{false, 0, 100}, {true, 30, 20}, {true, 30, 10}},
			got{[]sim.Time{100, 50, 60}, 130, 60, 130}},
		{"tie: the task step ends as the interrupt starts and does not move",
			[]step{{false, 0, 100}, {true, 100, 20}},
			got{[]sim.Time{100, 120}, 120, 120, 120}},
		{"task work queued behind an interrupt runs after it",
			[]step{{true, 0, 100}, {false, 10, 20}},
			got{[]sim.Time{100, 120}, 120, 100, 120}},
		{"an interrupt during queued task work after an interrupt waits for the first interrupt only",
			[]step{{true, 0, 100}, {false, 10, 20}, {true, 20, 5}},
			got{[]sim.Time{100, 120, 105}, 125, 105, 125}},
		{"a later interrupt after the work is done starts at now",
			[]step{{false, 0, 10}, {true, 50, 5}},
			got{[]sim.Time{10, 55}, 55, 55, 15}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sim.NewCPU(0)
			var g got
			for _, s := range tc.steps {
				if s.irq {
					g.Ends = append(g.Ends, c.Interrupt(s.now, s.cost))
				} else {
					g.Ends = append(g.Ends, c.Exec(s.now, s.cost))
				}
			}
			g.FreeAt, g.IRQFreeAt, g.Busy = c.FreeAt(), c.IRQFreeAt(), c.BusyTime()
			if d := gocmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// TestCPUInterruptNegative checks the negative-cost panic (a caller's bug).
func TestCPUInterruptNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Interrupt(-1) did not panic")
		}
	}()
	sim.NewCPU(0).Interrupt(0, -1)
}
