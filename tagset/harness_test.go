package tagset_test

import "sort"

// fakeClock is a tiny discrete-event loop for deterministic tests: events run in
// (time, insertion) order.
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
}

// run executes events until none is left or the next is later than until.
func (c *fakeClock) run(until int64) {
	for len(c.evs) > 0 {
		sort.Slice(c.evs, func(i, j int) bool {
			if c.evs[i].at != c.evs[j].at {
				return c.evs[i].at < c.evs[j].at
			}
			return c.evs[i].seq < c.evs[j].seq
		})
		e := c.evs[0]
		if e.at > until {
			return
		}
		c.evs = c.evs[1:]
		c.now = e.at
		e.fn()
	}
}
