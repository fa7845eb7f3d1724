package sim_test

import (
	"slices"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// spawner fires at its time and schedules two more events (one at the same time,
// one later) until its budget runs out: many events, ties included.
type spawner struct {
	eng  *sim.Engine
	log  *[]fired
	id   int
	left *int
}

func (s *spawner) Fire(now sim.Time) {
	*s.log = append(*s.log, fired{s.id, now})
	if *s.left <= 0 {
		return
	}
	*s.left -= 2
	s.eng.At(now, &spawner{s.eng, s.log, 2*s.id + 1, s.left})
	s.eng.At(now+sim.Time(1+s.id%7), &spawner{s.eng, s.log, 2*s.id + 2, s.left})
}

// TestRunUntilCappedSlicesLikeRunUntil: RunUntil(t) and RunUntilCapped(t, n) called
// until it stops reporting a cap fire the same events in the same order, end at the
// same Now, and each capped call fires exactly n events (what makes a signal check
// between slices prompt whatever the model's event rate).
func TestRunUntilCappedSlicesLikeRunUntil(t *testing.T) {
	run := func(n uint64) ([]fired, sim.Time, int) {
		e := sim.NewEngine()
		var log []fired
		left := 5000
		e.At(3, &spawner{e, &log, 0, &left})
		if n == 0 {
			e.RunUntil(400)
			return log, e.Now(), 1
		}
		calls := 0
		for {
			before := e.Fired()
			capped := e.RunUntilCapped(400, n)
			calls++
			if capped && e.Fired()-before != n {
				t.Fatalf("n=%d: a capped call fired %d events", n, e.Fired()-before)
			}
			if !capped {
				break
			}
		}
		return log, e.Now(), calls
	}
	want, wantNow, _ := run(0)
	if len(want) < 1000 {
		t.Fatalf("only %d events: the test needs many", len(want))
	}
	for _, n := range []uint64{1, 7, 64, 1 << 20} {
		got, now, calls := run(n)
		if !slices.Equal(got, want) || now != wantNow {
			t.Errorf("n=%d: %d events ending at %v, want %d ending at %v (same order)", n, len(got), now, len(want), wantNow)
		}
		if n == 7 && calls < len(want)/7 {
			t.Errorf("n=7: %d calls for %d events", calls, len(want))
		}
	}
}
