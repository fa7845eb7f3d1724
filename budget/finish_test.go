package budget_test

import (
	"testing"

	"github.com/blkmq/blkmq/budget"
)

// TestFinishCommand checks the scsi_finish_command reset: after an LLD busy return
// armed a blocked countdown while another command of the LUN was in flight, that
// command's completion clears it, so the next attempt is admitted at once instead of
// being refused until the host is idle and the countdown has run out.
func TestFinishCommand(t *testing.T) {
	for _, c := range []struct {
		name    string
		reject  budget.Reject
		blocked func(h *budget.Host, tg *budget.Target, d *budget.Device) int
	}{
		{"finish/host_blocked", budget.HostBusy, func(h *budget.Host, _ *budget.Target, _ *budget.Device) int { return h.Blocked() }},
		{"finish/target_blocked", budget.TargetBusy, func(_ *budget.Host, tg *budget.Target, _ *budget.Device) int { return tg.Blocked() }},
		{"finish/device_blocked", budget.DeviceBusy, func(_ *budget.Host, _ *budget.Target, d *budget.Device) int { return d.Blocked() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mustHost(t, budget.HostConfig{CanQueue: 8, NrHwQueues: 1})
			tg := mustTarget(t, h, 8)
			d := mustDevice(t, h, tg, 4)
			var hint uint32
			held, _ := d.GetBudget(&hint) // a command in flight
			if st := d.Prepare(held, &hint); st != budget.StatusOK {
				t.Fatalf("Prepare = %v", st)
			}
			tok, _ := d.GetBudget(&hint)
			if st := d.Prepare(tok, &hint); st != budget.StatusOK {
				t.Fatalf("Prepare = %v", st)
			}
			d.DispatchFailed(c.reject, tok, &hint)
			if c.blocked(h, tg, d) == 0 {
				t.Fatal("busy return armed no countdown")
			}
			d.Unbusy(held, &hint)
			d.FinishCommand()
			if got := c.blocked(h, tg, d); got != 0 {
				t.Errorf("countdown after FinishCommand = %d, want 0", got)
			}
			tok, _ = d.GetBudget(&hint)
			if tok < 0 || d.Prepare(tok, &hint) != budget.StatusOK {
				t.Errorf("next attempt refused after the completion")
			}
		})
	}
}
