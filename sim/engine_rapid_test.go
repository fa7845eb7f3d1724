package sim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/blkmq/blkmq/sim"
)

// refEvent is the oracle's view of one scheduled event.
type refEvent struct {
	at   sim.Time
	seq  int
	id   sim.EventID
	live bool
}

// oracle checks the engine against a plain list: every fired event must be the live
// event with the smallest (time, insertion sequence), and handlers may schedule and
// cancel while they fire.
type oracle struct {
	t   *rapid.T
	eng *sim.Engine
	evs []*refEvent
}

type probe struct {
	o     *oracle
	ref   *refEvent
	child sim.Time // if >= 0, schedule a new probe this far ahead while firing
	kill  int      // if >= 0, cancel the event with this index while firing
}

func (p *probe) Fire(now sim.Time) {
	o := p.o
	var best *refEvent
	for _, e := range o.evs {
		if e.live && (best == nil || e.at < best.at || e.at == best.at && e.seq < best.seq) {
			best = e
		}
	}
	if best != p.ref || now != p.ref.at {
		o.t.Fatalf("fired event seq %d at %v; oracle expected seq %d at %v", p.ref.seq, now, best.seq, best.at)
	}
	p.ref.live = false
	if p.kill >= 0 && p.kill < len(o.evs) {
		o.cancel(p.kill)
	}
	if p.child >= 0 {
		o.schedule(now+p.child, -1, -1)
	}
}

func (o *oracle) schedule(at sim.Time, child sim.Time, kill int) {
	r := &refEvent{at: at, seq: len(o.evs), live: true}
	r.id = o.eng.At(at, &probe{o: o, ref: r, child: child, kill: kill})
	o.evs = append(o.evs, r)
}

func (o *oracle) cancel(i int) {
	e := o.evs[i]
	if got := o.eng.Cancel(e.id); got != e.live {
		o.t.Fatalf("Cancel(event %d) = %v, want %v", i, got, e.live)
	}
	e.live = false
}

func (o *oracle) pending() int {
	n := 0
	for _, e := range o.evs {
		if e.live {
			n++
		}
	}
	return n
}

func TestEngineAgainstOracle(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		o := &oracle{t: rt, eng: sim.NewEngine()}
		rt.Repeat(map[string]func(*rapid.T){
			"at": func(rt *rapid.T) {
				d := sim.Time(rapid.Int64Range(0, 50).Draw(rt, "d"))
				child := sim.Time(rapid.Int64Range(-1, 20).Draw(rt, "child"))
				kill := rapid.IntRange(-1, len(o.evs)).Draw(rt, "kill")
				o.schedule(o.eng.Now()+d, child, kill)
			},
			"cancel": func(rt *rapid.T) {
				if len(o.evs) == 0 {
					rt.Skip("nothing scheduled")
				}
				o.cancel(rapid.IntRange(0, len(o.evs)-1).Draw(rt, "i"))
			},
			"step": func(rt *rapid.T) {
				want := o.pending() > 0
				if got := o.eng.Step(); got != want {
					rt.Fatalf("Step() = %v with %d pending", got, o.pending())
				}
			},
			"run-until": func(rt *rapid.T) {
				o.eng.RunUntil(o.eng.Now() + sim.Time(rapid.Int64Range(0, 30).Draw(rt, "d")))
			},
			"": func(rt *rapid.T) {
				if got, want := o.eng.Pending(), o.pending(); got != want {
					rt.Fatalf("Pending() = %d, oracle %d", got, want)
				}
			},
		})
		o.eng.Run()
		if o.pending() != 0 || o.eng.Pending() != 0 {
			rt.Fatalf("after Run: engine %d pending, oracle %d", o.eng.Pending(), o.pending())
		}
	})
}

// engineAPI is what the heap comparison drives on both engines.
type engineAPI interface {
	At(sim.Time, sim.Handler) sim.EventID
	Cancel(sim.EventID) bool
	Step() bool
	RunUntil(sim.Time)
	Now() sim.Time
	Pending() int
}

// side is one engine of the comparison with the IDs it returned and what it fired.
type side struct {
	eng engineAPI
	ids []sim.EventID
	log []fired
}

// twin is an event of the comparison: while firing it logs itself and may schedule a
// child and cancel an event, on its own side.
type twin struct {
	s     *side
	label int
	child sim.Time
	kill  int
}

func (w *twin) Fire(now sim.Time) {
	w.s.log = append(w.s.log, fired{w.label, now})
	if w.kill >= 0 && w.kill < len(w.s.ids) {
		w.s.eng.Cancel(w.s.ids[w.kill])
	}
	if w.child >= 0 {
		w.s.at(now+w.child, -1, -1)
	}
}

func (s *side) at(t, child sim.Time, kill int) {
	w := &twin{s: s, label: len(s.ids), child: child, kill: kill}
	s.ids = append(s.ids, s.eng.At(t, w))
}

// TestEngineAgainstHeap runs the same random schedule — delays from 0 to 2^40 ns so
// that every radix bucket is used, ties, cancels (also from inside handlers), Step and
// RunUntil, bursts of many events — on the engine and on the 4-ary heap it replaced, and requires the same
// events to fire in the same order at the same times, with the same Pending counts and
// Cancel answers.
func TestEngineAgainstHeap(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a := &side{eng: sim.NewEngine()}
		b := &side{eng: newHeapEngine()}
		both := func(f func(*side)) {
			f(a)
			f(b)
			if diff := cmp.Diff(b.log, a.log); diff != "" {
				rt.Fatalf("fired (-heap +engine):\n%s", diff)
			}
			if a.eng.Now() != b.eng.Now() || a.eng.Pending() != b.eng.Pending() {
				rt.Fatalf("now %v / %v, pending %d / %d (engine / heap)", a.eng.Now(), b.eng.Now(), a.eng.Pending(), b.eng.Pending())
			}
		}
		delay := func(rt *rapid.T, name string) sim.Time {
			shift := rapid.IntRange(0, 40).Draw(rt, name+"-bits")
			return sim.Time(rapid.Int64Range(0, 1<<shift).Draw(rt, name))
		}
		rt.Repeat(map[string]func(*rapid.T){
			"at": func(rt *rapid.T) {
				d := delay(rt, "d")
				child := sim.Time(-1)
				if rapid.Bool().Draw(rt, "has-child") {
					child = delay(rt, "child")
				}
				kill := rapid.IntRange(-1, len(a.ids)).Draw(rt, "kill")
				both(func(s *side) { s.at(s.eng.Now()+d, child, kill) })
			},
			"tie": func(rt *rapid.T) {
				n := rapid.IntRange(1, 8).Draw(rt, "n")
				both(func(s *side) {
					for range n {
						s.at(s.eng.Now(), -1, -1)
					}
				})
			},
			"bulk": func(rt *rapid.T) {
				// more events in one bucket than refill sorts whole (frontMax), some
				// at equal times, so that refill spreads a bucket
				n := rapid.IntRange(1, 48).Draw(rt, "n")
				span := sim.Time(rapid.Int64Range(0, 1<<20).Draw(rt, "span"))
				ds := make([]sim.Time, n)
				for i := range ds {
					ds[i] = sim.Time(rapid.Int64Range(0, int64(span)).Draw(rt, "bulk-d"))
				}
				both(func(s *side) {
					for _, d := range ds {
						s.at(s.eng.Now()+d, -1, -1)
					}
				})
			},
			"cancel": func(rt *rapid.T) {
				if len(a.ids) == 0 {
					rt.Skip("nothing scheduled")
				}
				i := rapid.IntRange(0, len(a.ids)-1).Draw(rt, "i")
				if ga, gb := a.eng.Cancel(a.ids[i]), b.eng.Cancel(b.ids[i]); ga != gb {
					rt.Fatalf("Cancel(%d) = %v, heap %v", i, ga, gb)
				}
			},
			"step": func(rt *rapid.T) {
				both(func(s *side) { s.eng.Step() })
			},
			"run-until": func(rt *rapid.T) {
				d := delay(rt, "until")
				both(func(s *side) { s.eng.RunUntil(s.eng.Now() + d) })
			},
		})
		both(func(s *side) {
			for s.eng.Step() {
			}
		})
	})
}

// TestEngineAgainstHeapLarge drives both engines with one long seeded run of the
// shapes the radix queue's digit levels meet: 10^5 pending events at delays of every
// scale (1 ns to 2^36 ns), ties, bursts at one time, cancels of pending and fired events
// and events scheduled from handlers, and requires the same firing log.
func TestEngineAgainstHeapLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	r := sim.NewRand(9)
	a := &side{eng: sim.NewEngine()}
	b := &side{eng: newHeapEngine()}
	delay := func() sim.Time { return sim.Time(r.Int64N(1 << r.IntN(37))) }
	for i := 0; i < 400000; i++ {
		switch op := r.IntN(10); {
		case op < 5 || a.eng.Pending() < 1000:
			d, child, kill := delay(), sim.Time(-1), -1
			if r.IntN(3) == 0 {
				child = delay()
			}
			if r.IntN(8) == 0 {
				kill = r.IntN(len(a.ids) + 1)
			}
			a.at(a.eng.Now()+d, child, kill)
			b.at(b.eng.Now()+d, child, kill)
		case op == 5:
			n := 1 + r.IntN(40)
			for range n {
				a.at(a.eng.Now(), -1, -1)
				b.at(b.eng.Now(), -1, -1)
			}
		case op == 6:
			j := r.IntN(len(a.ids))
			if ga, gb := a.eng.Cancel(a.ids[j]), b.eng.Cancel(b.ids[j]); ga != gb {
				t.Fatalf("op %d: Cancel(%d) = %v, heap %v", i, j, ga, gb)
			}
		default:
			a.eng.Step()
			b.eng.Step()
		}
		if a.eng.Now() != b.eng.Now() || a.eng.Pending() != b.eng.Pending() || len(a.log) != len(b.log) {
			t.Fatalf("op %d: now %v / %v, pending %d / %d, fired %d / %d (engine / heap)", i,
				a.eng.Now(), b.eng.Now(), a.eng.Pending(), b.eng.Pending(), len(a.log), len(b.log))
		}
	}
	for a.eng.Step() {
		b.eng.Step()
	}
	if b.eng.Step() {
		t.Fatal("the heap has events left after the engine ran dry")
	}
	if diff := cmp.Diff(b.log, a.log); diff != "" {
		t.Fatalf("fired (-heap +engine):\n%s", diff)
	}
}
