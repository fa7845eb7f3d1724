package sim_test

import (
	"testing"

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
