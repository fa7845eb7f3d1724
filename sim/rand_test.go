package sim_test

import (
	"math"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

func TestRandDeterministic(t *testing.T) {
	draw := func(seed uint64) []int64 {
		r := sim.NewRand(seed)
		var out []int64
		for i := 0; i < 100; i++ {
			out = append(out, int64(r.Uint64()), int64(r.Exp(1000)), int64(r.NormalClipped(100, 30, 0, 200)), int64(r.Uniform(3, 9)))
		}
		return out
	}
	if d := gocmp.Diff(draw(42), draw(42)); d != "" {
		t.Fatalf("same seed, different draws:\n%s", d)
	}
	if gocmp.Equal(draw(42), draw(43)) {
		t.Fatal("different seeds gave the same draws")
	}
}

func TestRandDistributions(t *testing.T) {
	const n = 200000
	for _, tc := range []struct {
		name   string
		draw   func(r *sim.Rand) sim.Time
		mean   float64
		tol    float64 // relative
		lo, hi sim.Time
	}{
		{"uniform", func(r *sim.Rand) sim.Time { return r.Uniform(100, 300) }, 200, 0.01, 100, 300},
		{"exp", func(r *sim.Rand) sim.Time { return r.Exp(5000) }, 5000, 0.02, 0, sim.MaxTime},
		{"normal-unclipped", func(r *sim.Rand) sim.Time { return r.NormalClipped(1000, 100, 0, 1<<40) }, 1000, 0.01, 0, 1 << 40},
		// Clipping at the mean from below: half the mass sits at lo, the other half has
		// mean lo + sd*sqrt(2/pi); overall lo + sd/sqrt(2*pi).
		{"normal-clipped-at-mean", func(r *sim.Rand) sim.Time { return r.NormalClipped(1000, 100, 1000, 5000) }, 1000 + 100/math.Sqrt(2*math.Pi), 0.01, 1000, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sim.NewRand(1)
			var sum float64
			for i := 0; i < n; i++ {
				v := tc.draw(r)
				if v < tc.lo || v > tc.hi {
					t.Fatalf("draw %v outside [%v, %v]", v, tc.lo, tc.hi)
				}
				sum += float64(v)
			}
			if m := sum / n; math.Abs(m-tc.mean) > tc.tol*tc.mean {
				t.Fatalf("mean %.2f, want %.2f ± %.0f%%", m, tc.mean, 100*tc.tol)
			}
		})
	}
}

func TestCPUAndSharedLine(t *testing.T) {
	c := sim.NewCPU(3)
	type step struct{ Now, Cost, Want sim.Time }
	for i, s := range []step{
		{0, 100, 100},  // idle: starts now
		{50, 100, 200}, // busy until 100: queued behind
		{500, 10, 510}, // idle again
		{505, 0, 510},  // zero-cost step still waits for the CPU
	} {
		if got := c.Exec(s.Now, s.Cost); got != s.Want {
			t.Fatalf("step %d: Exec(%v, %v) = %v, want %v", i, s.Now, s.Cost, got, s.Want)
		}
	}
	if c.BusyTime() != 210 || c.Steps() != 4 || c.ID() != 3 {
		t.Fatalf("BusyTime %v Steps %d ID %d, want 210ns 4 3", c.BusyTime(), c.Steps(), c.ID())
	}

	l := sim.NewSharedLine(5, 80)
	var got []sim.Time
	for _, cpu := range []int{0, 0, 1, 1, 0, 2} {
		got = append(got, l.Touch(cpu))
	}
	if d := gocmp.Diff([]sim.Time{5, 5, 80, 5, 80, 80}, got); d != "" {
		t.Fatalf("Touch costs (-want +got):\n%s", d)
	}
	if l.Transfers() != 3 || l.Touches() != 6 {
		t.Fatalf("Transfers %d Touches %d, want 3 6", l.Transfers(), l.Touches())
	}
}
