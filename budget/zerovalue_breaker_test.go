package budget_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/budget"
)

// TestZeroValueTypes: the zero Device and Host (not made by Host.NewDevice /
// NewHost) are refused naming their constructor. The zero Device's methods
// dereferenced a nil host, and a zero Host handed out targets (NewTarget, nil error)
// of a host with can_queue 0.
func TestZeroValueTypes(t *testing.T) {
	var h budget.Host
	if _, err := h.NewTarget(4, false); err == nil || !strings.Contains(err.Error(), "NewHost") {
		t.Errorf("zero Host.NewTarget: error %v, want one naming NewHost", err)
	}
	var d budget.Device
	if _, err := d.ChangeQueueDepth(4); err == nil || !strings.Contains(err.Error(), "NewDevice") {
		t.Errorf("zero Device.ChangeQueueDepth: error %v, want one naming NewDevice", err)
	}
	var hint uint32
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"GetBudget", func() { d.GetBudget(&hint) }},
		{"PutBudget", func() { d.PutBudget(0, &hint) }},
		{"Prepare", func() { d.Prepare(0, &hint) }},
		{"DispatchFailed", func() { d.DispatchFailed(budget.DeviceBusy, 0, &hint) }},
		{"Unbusy", func() { d.Unbusy(0, &hint) }},
		{"FinishCommand", func() { d.FinishCommand() }},
		{"EndRequest", func() { d.EndRequest() }},
	} {
		p := func() (s string) {
			defer func() {
				if r := recover(); r != nil {
					s = fmt.Sprint(r)
				}
			}()
			c.f()
			return ""
		}()
		if !strings.Contains(p, "NewDevice") {
			t.Errorf("zero Device.%s: panic %q, want one naming Host.NewDevice", c.name, p)
		}
	}
}
