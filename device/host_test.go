package device_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestHostCanQueue: source 001 — 15 LUNs behind one adapter whose firmware takes
// can_queue commands; the block layer offers more. The adapter answers host-busy above
// can_queue and records the peak it was offered.
func TestHostCanQueue(t *testing.T) {
	type result struct {
		PeakHeld     int
		OfferedAbove bool
		HostBusy     bool
		LUNBusy      bool
	}
	for _, tc := range []struct {
		name    string
		canQ    int
		lunQ    int // LUN MaxQueue (0 = unlimited)
		perLUN  int // commands each LUN's submitter keeps outstanding
		want    result
		wantCap float64 // adapter command-rate cap in IOPS, 0 = skip
	}{
		{"001/offered-above-can_queue", 64, 0, 16, result{64, true, true, false}, 0},
		{"001/below-can_queue", 1024, 0, 16, result{15 * 16, false, false, false}, 0},
		{"lun-busy-passes-through", 1024, 4, 16, result{15 * 4, false, false, true}, 0},
		{"command-cost-caps-rate", 1024, 0, 16, result{15 * 16, false, false, false}, 1e9 / 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := sim.NewEngine()
			hp := device.HostParams{Name: "pqi", CanQueue: tc.canQ}
			if tc.wantCap > 0 {
				hp.CommandCost = 2 * sim.Microsecond
			}
			h, err := device.NewHost(eng, hp)
			if err != nil {
				t.Fatal(err)
			}
			var gens []*loadGen
			for i := 0; i < 15; i++ {
				lun, err := device.NewNull(eng, device.NullParams{Name: "lun", CompletionNsec: 100 * sim.Microsecond, MaxQueue: tc.lunQ})
				if err != nil {
					t.Fatal(err)
				}
				g := newLoad(eng, h.Attach(lun), tc.perLUN, uint64(i))
				g.winStart, g.winEnd = 5*sim.Millisecond, 105*sim.Millisecond
				g.start()
				gens = append(gens, g)
			}
			eng.RunUntil(105 * sim.Millisecond)
			var r result
			var total float64
			for _, g := range gens {
				r.HostBusy = r.HostBusy || g.busy[device.HostBusy] > 0
				r.LUNBusy = r.LUNBusy || g.busy[device.Busy] > 0
				total += g.iops()
				if g.badInFlight > 0 {
					t.Errorf("LUN InFlight disagreed with the submitter %d times", g.badInFlight)
				}
			}
			r.PeakHeld = h.PeakHeld()
			r.OfferedAbove = h.PeakOffered() > tc.canQ
			if d := gocmp.Diff(tc.want, r); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if tc.wantCap > 0 && !within(total, tc.wantCap, 0.01) {
				t.Errorf("adapter IOPS %.0f, want the CommandCost cap %.0f ± 1%%", total, tc.wantCap)
			}
		})
	}
}
