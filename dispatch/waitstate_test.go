package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// waitSnap is the part of a BioWait the table checks.
type waitSnap struct {
	For, In           WaitState
	Hctx, Tag         int
	BudgetBusy, InDev int
	RunPending        bool
}

func snap(w BioWait) waitSnap {
	return waitSnap{w.For, w.In, w.Hctx, w.Tag, w.BudgetBusy, w.DeviceInFlight, w.RunPending}
}

// TestBioWait: on a stuck device holding the first bio, a second bio is reported
// where it waits — asleep for a driver or sched tag, queued behind the LUN's budget,
// held in a plug — and a completed bio is in none. Left on hctx->dispatch without
// budget, the request has the 3 ms re-run pending (BLK_MQ_RESOURCE_DELAY); in the
// elevator it waits for the completion's restart, no run pending.
func TestBioWait(t *testing.T) {
	for _, tt := range []struct {
		name             string
		canQueue, qdepth int
		elevator         string
		nrRequests       int
		plug             bool
		want             waitSnap // of the second bio
	}{
		{"no-driver-tag/sleeps", 1, 1, "none", 0, false, waitSnap{WaitDriverTag, WaitDriverTag, 0, -1, 1, 1, false}},
		{"no-sched-tag/sleeps", 2, 1, "mq-deadline", 1, false, waitSnap{WaitSchedTag, WaitSchedTag, 0, -1, 1, 1, false}},
		{"no-budget/dispatch-list", 2, 1, "none", 0, false, waitSnap{WaitBudget, WaitDispatchList, 0, 1, 1, 1, true}},
		{"no-budget/elevator", 2, 1, "mq-deadline", 0, false, waitSnap{WaitBudget, WaitElevator, 0, -1, 1, 1, false}},
		{"plugged", 2, 2, "none", 0, true, waitSnap{WaitPlug, WaitPlug, 0, 1, 1, 1, false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: tt.canQueue},
				testLUN{QueueDepth: tt.qdepth, Elevator: tt.elevator, NrRequests: tt.nrRequests},
				device.NullParams{Name: "stuck", CompletionNsec: 10 * sim.Microsecond})
			rig.dev.Device.(*device.Null).SetStuck(true)
			var c counter
			var tw1, tw2 TagWaiter
			tw1.S, tw2.S = &nopSleeper{}, &nopSleeper{}
			b1 := &Bio{Op: device.OpRead, Offset: 0, Length: 4096, Sync: true, End: &c}
			b2 := &Bio{Op: device.OpRead, Offset: 1 << 20, Length: 4096, Sync: true, End: &c}
			rig.q.SubmitBio(b1, 0, false, &tw1)
			rig.eng.RunUntil(sim.Millisecond)
			if got := rig.q.BioWait(b1); got.In != WaitDevice || got.For != WaitDevice {
				t.Fatalf("first bio: %+v, want in device", got)
			}
			var p Plug
			if tt.plug {
				p.Start(4)
			}
			rig.q.SubmitBioPlug(b2, 0, false, &tw2, &p)
			rig.eng.RunUntil(2 * sim.Millisecond)
			if diff := cmp.Diff(tt.want, snap(rig.q.BioWait(b2))); diff != "" {
				t.Errorf("second bio (-want +got):\n%s", diff)
			}
			rig.dev.Device.(*device.Null).SetStuck(false)
			p.Finish(0)
			rig.eng.Run()
			if c.n != 2 {
				t.Fatalf("%d bios completed, want 2", c.n)
			}
			if got := rig.q.BioWait(b1); got.In != WaitNone || got.For != WaitNone {
				t.Errorf("completed bio: %+v, want none", got)
			}
		})
	}
}

type nopSleeper struct{}

func (nopSleeper) WakeCPU(sim.Time) int     { return 0 }
func (nopSleeper) Unblocked(*Bio, sim.Time) {}
