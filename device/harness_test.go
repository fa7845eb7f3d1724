package device_test

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// loadGen is a closed-loop workload: depth commands, each resubmitted as soon as it
// completes (after think), or retried after retry when the device answers busy. It
// measures over [winStart, winEnd) and checks the device's InFlight bookkeeping.
type loadGen struct {
	eng   *sim.Engine
	dev   device.Device
	rng   *sim.Rand
	op    device.Op
	size  int64
	span  int64 // random offsets are size-aligned in [0, span)
	seq   bool  // sequential: offsets follow submission order
	next  int64
	think sim.Time
	retry sim.Time

	slots []slot

	winStart, winEnd sim.Time
	done             int64
	bytes            int64
	latSum           sim.Time
	lats             []sim.Time // per-completion latency in window, if keepLats
	keepLats         bool
	area             float64 // ∫ InFlight dt over the window (ns)
	lastT            sim.Time
	lastIn           int
	maxIn            int
	busy             map[device.Status]int
	mine             int // accepted, not completed, by our own count
	badInFlight      int // times dev.InFlight() disagreed with mine
	h                hasher
}

type hasher struct{ sum uint64 }

// add folds three values into an FNV-1a style hash without allocating.
func (h *hasher) add(a, b, c int64) {
	if h.sum == 0 {
		h.sum = 14695981039346656037
	}
	for _, v := range [3]int64{a, b, c} {
		for i := 0; i < 8; i++ {
			h.sum ^= uint64(byte(v >> (8 * i)))
			h.sum *= 1099511628211
		}
	}
}

type slot struct {
	g   *loadGen
	cmd device.Command
}

// Fire (re)submits the slot's command.
func (s *slot) Fire(now sim.Time) { s.g.submit(s, now) }

func newLoad(eng *sim.Engine, dev device.Device, depth int, seed uint64) *loadGen {
	g := &loadGen{eng: eng, dev: dev, rng: sim.NewRand(seed), size: 4096, span: 1 << 30,
		retry: 10 * sim.Microsecond, busy: map[device.Status]int{}, winEnd: sim.MaxTime}
	g.slots = make([]slot, depth)
	for i := range g.slots {
		g.slots[i].g = g
		g.slots[i].cmd.ID = uint64(i)
		g.slots[i].cmd.Done = g
	}
	return g
}

func (g *loadGen) start() {
	for i := range g.slots {
		g.eng.At(g.eng.Now(), &g.slots[i])
	}
}

func (g *loadGen) accumulate(now sim.Time) {
	lo, hi := max(g.lastT, g.winStart), min(now, g.winEnd)
	if hi > lo {
		g.area += float64(g.lastIn) * float64(hi-lo)
	}
	g.lastT = now
	g.lastIn = g.dev.InFlight()
	g.maxIn = max(g.maxIn, g.lastIn)
	if g.lastIn != g.mine {
		g.badInFlight++
	}
}

func (g *loadGen) submit(s *slot, now sim.Time) {
	c := &s.cmd
	c.Op, c.Length = g.op, g.size
	if g.seq {
		c.Offset = g.next
		g.next += g.size
	} else {
		c.Offset = g.rng.Int64N(g.span/g.size) * g.size
	}
	st := g.dev.Submit(c)
	if st != device.Accepted {
		if g.seq {
			g.next -= g.size
		}
		g.busy[st]++
		g.eng.After(g.retry, s)
		return
	}
	g.mine++
	g.accumulate(now)
}

func (g *loadGen) Complete(c *device.Command, now sim.Time) {
	g.mine--
	g.accumulate(now)
	g.h.add(int64(now), int64(c.ID), c.Offset)
	if now >= g.winStart && now < g.winEnd {
		g.done++
		g.bytes += c.Length
		g.latSum += now - c.Submitted
		if g.keepLats {
			g.lats = append(g.lats, now-c.Submitted)
		}
	}
	s := &g.slots[c.ID]
	if g.think > 0 {
		g.eng.After(g.think, s)
	} else {
		g.submit(s, now)
	}
}

// run measures over [warm, warm+window) and returns after it.
func (g *loadGen) run(warm, window sim.Time) {
	g.winStart, g.winEnd = warm, warm+window
	g.start()
	g.eng.RunUntil(g.winEnd)
	g.accumulate(g.winEnd)
}

func (g *loadGen) window() float64 { return (g.winEnd - g.winStart).Seconds() }
func (g *loadGen) iops() float64   { return float64(g.done) / g.window() }
func (g *loadGen) bps() float64    { return float64(g.bytes) / g.window() }
func (g *loadGen) meanLat() float64 {
	return float64(g.latSum) / float64(g.done)
}
func (g *loadGen) meanInFlight() float64 { return g.area / float64(g.winEnd-g.winStart) }
