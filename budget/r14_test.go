package budget_test

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/blkmq/blkmq/budget"
	"github.com/google/go-cmp/cmp"
)

// fakeClock is a tiny discrete-event loop: events run in (time, insertion) order.
type fakeClock struct {
	now int64
	seq int
	evs []fakeEvent
}

type fakeEvent struct {
	at  int64
	seq int
	fn  func()
}

func (c *fakeClock) after(d int64, fn func()) {
	c.seq++
	c.evs = append(c.evs, fakeEvent{at: c.now + d, seq: c.seq, fn: fn})
	sort.Slice(c.evs, func(i, j int) bool {
		if c.evs[i].at != c.evs[j].at {
			return c.evs[i].at < c.evs[j].at
		}
		return c.evs[i].seq < c.evs[j].seq
	})
}

func (c *fakeClock) run(until int64) {
	for len(c.evs) > 0 && c.evs[0].at <= until {
		e := c.evs[0]
		c.evs = c.evs[1:]
		c.now = e.at
		e.fn()
	}
}

// r14Run drives case R14: host can_queue 32 (pre-v5.5 host_busy check, as in
// the 2012 request_fn era), 12 LUNs with queue_depth 32 and endless queued
// I/O. Completions rerun the starved list (scsi_run_queue); new I/O arriving
// on a LUN runs that LUN's queue (the unplug path): LUNs 0–5 receive new I/O
// every 20 µs, LUNs 6–11 every 1 ms. It returns completions per LUN in the
// measurement window and the longest gap between two dispatches of one LUN.
func r14Run(t *testing.T, opt budget.Options) (done []int, maxWait time.Duration) {
	t.Helper()
	opt.HostBusyCheck = true
	h := mustHost(t, budget.HostConfig{CanQueue: 32, NrHwQueues: 1, Options: opt})
	tg := mustTarget(t, h, 0)
	const nLUN = 12
	luns := make([]*budget.Device, nLUN)
	for i := range luns {
		luns[i] = mustDevice(t, h, tg, 32)
	}
	rng := rand.New(rand.NewPCG(14, 2012))
	var clk fakeClock
	const warm = int64(10e6)
	window := int64(200e6)
	if testing.Short() {
		window = 40e6
	}
	done = make([]int, nLUN)
	last := make([]int64, nLUN) // time of the LUN's last dispatch
	var hint uint32
	var runLUN func(d *budget.Device)
	complete := func(d *budget.Device, tok int) {
		d.Unbusy(tok, &hint)
		if clk.now > warm && clk.now <= warm+window {
			done[d.ID()]++
		}
		if act := d.EndRequest(); act.Requeue {
			run := h.RunQueue(d)
			for x, ok := run.Next(); ok; x, ok = run.Next() {
				runLUN(x)
			}
		} else if act.RunQueues {
			runLUN(d)
		}
	}
	runLUN = func(d *budget.Device) { // dispatch while budget, target and host allow
		for {
			tok, _ := d.GetBudget(&hint)
			if tok < 0 || d.Prepare(tok, &hint) != budget.StatusOK {
				break
			}
			if i := d.ID(); clk.now > warm {
				if w := time.Duration(clk.now - last[i]); w > maxWait {
					maxWait = w
				}
			}
			last[d.ID()] = clk.now
			svc := int64(50_000 + rng.IntN(100_000)) // 50–150 µs
			clk.after(svc, func() { complete(d, tok) })
		}
	}
	for i, d := range luns {
		every := int64(1e6)
		if i < 6 {
			every = 20_000
		}
		var arrive func()
		arrive = func() { runLUN(d); clk.after(every, arrive) }
		clk.after(int64(i)*1000, arrive)
	}
	clk.run(warm + window)
	return done, maxWait
}

func jain(xs []int) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += float64(x)
		s2 += float64(x) * float64(x)
	}
	return s * s / (float64(len(xs)) * s2)
}

func TestR14StarvedListOrder(t *testing.T) {
	t.Run("R14/starved-position-kept", func(t *testing.T) {
		done, maxWait := r14Run(t, budget.Options{})
		if j := jain(done); j < 0.98 {
			t.Errorf("Jain fairness %.3f < 0.98; completions per LUN %v", j, done)
		}
		// One full pass of the starved list: 12 LUNs × (32/12 slots each) of
		// ≤ 150 µs service — a LUN is served again within ~150 µs; allow 300 µs.
		if maxWait > 300*time.Microsecond {
			t.Errorf("longest gap between dispatches of a LUN %v > 300µs", maxWait)
		}
	})
	t.Run("R14/pre-466c08c71a7d-reorder-on-every-attempt", func(t *testing.T) {
		done, maxWait := r14Run(t, budget.Options{StarvedReorderOnAttempt: true})
		good, _ := r14Run(t, budget.Options{})
		if j := jain(done); j > 0.9 {
			t.Errorf("Jain fairness %.3f; want the frequent submitters starved (< 0.9); per LUN %v", j, done)
		}
		if maxWait <= 300*time.Microsecond {
			t.Errorf("longest gap between dispatches of a LUN %v; want more than one pass", maxWait)
		}
		t.Logf("completions per LUN: fixed %v, pre-fix %v; longest gap pre-fix %v", good, done, maxWait)
	})
}

func TestR14Deterministic(t *testing.T) {
	a, wa := r14Run(t, budget.Options{StarvedReorderOnAttempt: true})
	b, wb := r14Run(t, budget.Options{StarvedReorderOnAttempt: true})
	if diff := cmp.Diff(a, b); diff != "" || wa != wb {
		t.Errorf("two runs with the same seed differ (-first +second):\n%s gaps %v %v", diff, wa, wb)
	}
}
