package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestKthreadSwitch: the kworker's switch is LazyTLBSwitch when set, else Switch;
// Emulated scales it like every guest cost, and a cost out of [0, 1 ms] is refused.
func TestKthreadSwitch(t *testing.T) {
	tests := []struct {
		name      string
		c         CPUCosts
		want      sim.Time
		wantValid bool
	}{
		{"unset-is-switch", CPUCosts{Switch: 1000}, 1000, true},
		{"lazy-tlb", CPUCosts{Switch: 1000, LazyTLBSwitch: 500}, 500, true},
		{"negative", CPUCosts{Switch: 1000, LazyTLBSwitch: -1}, 1000, false},
		{"above-1ms", CPUCosts{LazyTLBSwitch: sim.Millisecond + 1}, sim.Millisecond + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.kthreadSwitch(); got != tt.want {
				t.Errorf("kthreadSwitch() = %v, want %v", got, tt.want)
			}
			if err := (CPUModel{Costs: tt.c}).validate(); (err == nil) != tt.wantValid {
				t.Errorf("validate() = %v, want valid %v", err, tt.wantValid)
			}
		})
	}
	e, err := DefaultCPUCosts().Emulated(50)
	if err != nil {
		t.Fatal(err)
	}
	if e.LazyTLBSwitch != 0 {
		t.Errorf("Emulated default table: LazyTLBSwitch %v, want 0", e.LazyTLBSwitch)
	}
	c := DefaultCPUCosts()
	c.LazyTLBSwitch = 500
	if e, err = c.Emulated(50); err != nil || e.LazyTLBSwitch != 25*sim.Microsecond {
		t.Errorf("Emulated(50) of 500ns: LazyTLBSwitch %v (%v), want 25µs", e.LazyTLBSwitch, err)
	}
}
