package sim_test

import (
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

// rec records the order in which events fire.
type rec struct {
	log *[]fired
	id  int
	at  sim.Time
}

type fired struct {
	ID int
	At sim.Time
}

func (r *rec) Fire(now sim.Time) { *r.log = append(*r.log, fired{r.id, now}) }

func TestEngineOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		span    int64 // times drawn from [0, span): small spans force ties
		cancels int
	}{
		{"ties-only", 200, 1, 0},
		{"many-ties", 2000, 16, 0},
		{"spread", 2000, 1 << 40, 0},
		{"cancel-half", 2000, 64, 1000},
		{"cancel-most-compacts", 2000, 1 << 20, 1900},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := sim.NewEngine()
			r := sim.NewRand(7)
			var log []fired
			evs := make([]*rec, tc.n)
			ids := make([]sim.EventID, tc.n)
			for i := range evs {
				evs[i] = &rec{log: &log, id: i, at: sim.Time(r.Int64N(tc.span))}
				ids[i] = eng.At(evs[i].at, evs[i])
			}
			cancelled := map[int]bool{}
			for len(cancelled) < tc.cancels {
				i := r.IntN(tc.n)
				if !cancelled[i] {
					if !eng.Cancel(ids[i]) {
						t.Fatalf("Cancel(%d) = false for a pending event", i)
					}
					cancelled[i] = true
				}
			}
			if got, want := eng.Pending(), tc.n-tc.cancels; got != want {
				t.Fatalf("Pending() = %d, want %d", got, want)
			}
			var want []fired
			for _, e := range evs {
				if !cancelled[e.id] {
					want = append(want, fired{e.id, e.at})
				}
			}
			// Expected: by time, ties by insertion (= id) order.
			slices.SortStableFunc(want, func(a, b fired) int { return cmp.Compare(a.At, b.At) })
			eng.Run()
			if d := gocmp.Diff(want, log); d != "" {
				t.Fatalf("fire order (-want +got):\n%s", d)
			}
			for i, id := range ids {
				if eng.Cancel(id) {
					t.Fatalf("Cancel(%d) after Run = true", i)
				}
			}
		})
	}
}

func TestEngineCancelStale(t *testing.T) {
	eng := sim.NewEngine()
	var log []fired
	a := eng.At(10, &rec{log: &log, id: 1})
	eng.Run()
	// The slot of a is reused by b; cancelling the stale ID must not cancel b.
	b := eng.At(20, &rec{log: &log, id: 2})
	if eng.Cancel(a) {
		t.Fatal("Cancel of a fired event's ID returned true")
	}
	if eng.Cancel(0) {
		t.Fatal("Cancel(0) returned true")
	}
	eng.Run()
	if d := gocmp.Diff([]fired{{1, 10}, {2, 20}}, log); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if eng.Cancel(b) {
		t.Fatal("Cancel after fire returned true")
	}
}

// chain reschedules itself period later until stop.
type chain struct {
	eng    *sim.Engine
	period sim.Time
	count  int
	stopAt int
}

func (c *chain) Fire(now sim.Time) {
	c.count++
	if c.count == c.stopAt {
		c.eng.Stop()
	}
	c.eng.After(c.period, c)
}

func TestEngineRunUntilStopStep(t *testing.T) {
	type result struct {
		Now   sim.Time
		Count int
	}
	for _, tc := range []struct {
		name string
		run  func(e *sim.Engine, c *chain)
		want result
	}{
		{"run-until-inclusive", func(e *sim.Engine, c *chain) { e.RunUntil(30) }, result{30, 3}},
		{"run-until-between", func(e *sim.Engine, c *chain) { e.RunUntil(35) }, result{35, 3}},
		{"stop-in-handler", func(e *sim.Engine, c *chain) { c.stopAt = 4; e.Run() }, result{40, 4}},
		{"stop-in-run-until", func(e *sim.Engine, c *chain) { c.stopAt = 2; e.RunUntil(100) }, result{20, 2}},
		{"step-twice", func(e *sim.Engine, c *chain) { e.Step(); e.Step() }, result{20, 2}},
		{"stop-outside-run-ignored", func(e *sim.Engine, c *chain) { e.Stop(); e.RunUntil(10) }, result{10, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := sim.NewEngine()
			c := &chain{eng: e, period: 10}
			e.At(10, c)
			tc.run(e, c)
			if d := gocmp.Diff(tc.want, result{e.Now(), c.count}); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
	if sim.NewEngine().Step() {
		t.Fatal("Step on an empty engine returned true")
	}
}

func TestEnginePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(e *sim.Engine)
	}{
		{"at-in-past", func(e *sim.Engine) { e.At(5, sim.HandlerFunc(func(sim.Time) {})) }},
		{"negative-after", func(e *sim.Engine) { e.After(-1, sim.HandlerFunc(func(sim.Time) {})) }},
		{"nil-handler", func(e *sim.Engine) { e.At(20, nil) }},
		{"run-until-past", func(e *sim.Engine) { e.RunUntil(5) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := sim.NewEngine()
			e.RunUntil(10)
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.fn(e)
		})
	}
}

func TestEngineNoAllocSteadyState(t *testing.T) {
	for _, pending := range []int{1, 1000} {
		e := sim.NewEngine()
		hs := make([]*hop, pending)
		for i := range hs {
			hs[i] = &hop{eng: e, d: sim.Time(1 + i%97)}
			e.After(hs[i].d, hs[i])
		}
		for i := 0; i < 10*pending; i++ {
			e.Step()
		}
		if a := testing.AllocsPerRun(1000, func() { e.Step() }); a != 0 {
			t.Errorf("pending=%d: %v allocs per Step+reschedule, want 0", pending, a)
		}
		// Cancel and reschedule must not allocate either.
		id := e.After(5, hs[0])
		if a := testing.AllocsPerRun(1000, func() { e.Cancel(id); id = e.After(5, hs[0]) }); a != 0 {
			t.Errorf("pending=%d: %v allocs per Cancel+After, want 0", pending, a)
		}
	}
}

// hop reschedules itself d later, forever.
type hop struct {
	eng *sim.Engine
	d   sim.Time
}

func (h *hop) Fire(now sim.Time) { h.eng.After(h.d, h) }

func TestTimeString(t *testing.T) {
	for _, tc := range []struct {
		in   sim.Time
		want string
	}{
		{0, "0s"}, {1500 * sim.Microsecond, "1.5ms"}, {250 * sim.Microsecond, "250µs"}, {2 * sim.Second, "2s"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tc.in), got, tc.want)
		}
	}
}

// TestEngineBeforeLongFront schedules events before a long run of events at one time
// that a RunUntil short of it has brought to the front of the queue (the engine then
// re-files its queue around the new event), and after it, and requires time order.
func TestEngineBeforeLongFront(t *testing.T) {
	for _, tc := range []struct {
		name  string
		burst int      // events at time 100
		early sim.Time // RunUntil limit before the burst
		at    []sim.Time
	}{
		{"short front", 4, 50, []sim.Time{70, 100, 60, 150}},
		{"long front", 200, 50, []sim.Time{70, 60, 100, 150, 80}},
		{"long front, ties before it", 200, 50, []sim.Time{70, 70, 70, 55}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := sim.NewEngine()
			var log []fired
			var want []fired
			for i := range tc.burst {
				eng.At(100, &rec{log: &log, id: i})
			}
			eng.RunUntil(tc.early)
			for i, at := range tc.at {
				eng.At(at, &rec{log: &log, id: tc.burst + i})
			}
			for i := range tc.burst {
				want = append(want, fired{i, 100})
			}
			for i, at := range tc.at {
				want = append(want, fired{tc.burst + i, at})
			}
			slices.SortStableFunc(want, func(a, b fired) int { return cmp.Compare(a.At, b.At) })
			eng.Run()
			if d := gocmp.Diff(want, log); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}
