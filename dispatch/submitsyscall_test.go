package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// TestSubmitCharge: the first I/O of a system call pays the whole Submit, each later
// I/O of the same call Submit − SubmitSyscall, never below 0; SubmitSyscall 0 is the
// model before the split.
func TestSubmitCharge(t *testing.T) {
	for _, tc := range []struct {
		name              string
		submit, syscall   sim.Time
		wantFirst, wantNx sim.Time
	}{
		{"default-table", 400, 200, 400, 200},
		{"no-split", 400, 0, 400, 400},
		{"whole-submit-per-call", 400, 400, 400, 0},
		{"share-above-submit-floors-at-0", 100, 300, 100, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := CPUCosts{Submit: tc.submit, SubmitSyscall: tc.syscall}
			got := [2]sim.Time{c.SubmitCharge(false), c.SubmitCharge(true)}
			if d := cmp.Diff([2]sim.Time{tc.wantFirst, tc.wantNx}, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if c := DefaultCPUCosts(); c.SubmitSyscall <= 0 || c.SubmitSyscall >= c.Submit {
		t.Errorf("DefaultCPUCosts SubmitSyscall %v, want inside (0, Submit %v)", c.SubmitSyscall, c.Submit)
	}
}

// TestSubmitSyscallValidate: SubmitSyscall is range-checked like every cost.
func TestSubmitSyscallValidate(t *testing.T) {
	c := DefaultCPUCosts()
	c.SubmitSyscall = -1
	if err := (CPUModel{Costs: c}).validate(); err == nil {
		t.Fatal("SubmitSyscall -1 accepted")
	}
}
