package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// slowLockData is SpinLock.LockData without the uncontended fast path: every request
// through reserve's scan.
func slowLockData(l *SpinLock, now, at Time, cpu int, hold Time, lines int) Time {
	s, d, prev := l.o.reserve(now, at, cpu, 0, func(prev, ahead int) Time {
		x := l.topo.Transfer(prev, cpu)
		if l.Kind == Ticket && ahead > 0 {
			x += Time(ahead) * l.topo.Transfer(prev, cpu) / 2
		}
		if prev >= 0 && prev != cpu {
			x += Time(lines) * l.topo.Transfer(prev, cpu)
		}
		return x + hold
	})
	l.stats.Ops++
	if s > at {
		l.stats.Contended++
	}
	if prev >= 0 && prev != cpu {
		l.stats.Transfers++
	}
	l.stats.Wait += s - at
	l.stats.Held += d
	return s - at + d
}

// slowRMW is AtomicLine.RMW without the fast path.
func slowRMW(l *AtomicLine, now, at Time, cpu int) Time {
	s, d, prev := l.o.reserve(now, at, cpu, 0, func(prev, _ int) Time { return l.topo.Transfer(prev, cpu) })
	l.readers = l.readers[:0]
	l.count(s-at, d, prev, cpu)
	return s - at + d
}

// TestFastPathSameAsScan: the uncontended fast path of SpinLock.LockData and
// AtomicLine.RMW returns what reserve's scan returns, cost for cost and counter for
// counter, over random mixes of contended and uncontended requests on a 2-socket
// topology (both lock kinds).
func TestFastPathSameAsScan(t *testing.T) {
	top := Topology{Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 2,
		Costs: TransferCosts{Self: 5, SMT: 7, Node: 50, Socket: 50, Remote: 109}}
	for _, kind := range []LockKind{Queued, Ticket} {
		for seed := uint64(1); seed <= 6; seed++ {
			rnd := rand.New(rand.NewPCG(seed, 7))
			fast, slow := NewSpinLock(&top, kind), NewSpinLock(&top, kind)
			fa, sa := NewAtomicLine(&top), NewAtomicLine(&top)
			free := make([]Time, top.NrCPUs())
			var now Time
			for i := 0; i < 1000; i++ {
				cpu := rnd.IntN(len(free))
				if rnd.IntN(4) == 0 { // the clock moves on, past some CPUs' work
					now += Time(rnd.IntN(400))
				}
				at := max(now, free[cpu])
				hold, lines := Time(rnd.IntN(200)), rnd.IntN(3)
				a := fast.LockData(now, at, cpu, hold, lines)
				b := slowLockData(slow, now, at, cpu, hold, lines)
				c, d := fa.RMW(now, at, cpu), slowRMW(sa, now, at, cpu)
				if a != b || c != d {
					t.Fatalf("kind %d seed %d op %d: lock %v vs scan %v, rmw %v vs scan %v", kind, seed, i, a, b, c, d)
				}
				free[cpu] = at + a
			}
			if fast.Stats() != slow.Stats() || fa.Stats() != sa.Stats() {
				t.Fatalf("kind %d seed %d: stats %+v / %+v vs scan %+v / %+v", kind, seed, fast.Stats(), fa.Stats(), slow.Stats(), sa.Stats())
			}
		}
	}
}

// refOwned is the interval list reserve kept before the bisection, the gap bound and
// the window (round 5): a plain slice, copied down on every forget, scanned from its
// first interval with dur called at every gap.
type refOwned struct {
	iv   []interval
	last int
}

func (o *refOwned) forget(now Time) {
	n := 0
	for n < len(o.iv) && o.iv[n].end <= now {
		o.last = o.iv[n].cpu
		n++
	}
	o.iv = append(o.iv[:0], o.iv[n:]...)
}

func (o *refOwned) reserve(now, at Time, cpu int, dur func(prev, ahead int) Time) (Time, Time, int) {
	o.forget(now)
	s, prev, ahead := at, o.last, 0
	i := 0
	for ; i < len(o.iv); i++ {
		x := o.iv[i]
		if x.end <= s {
			prev = x.cpu
			continue
		}
		if s+dur(prev, ahead) <= x.start {
			break
		}
		if x.end > at {
			ahead++
		}
		s, prev = x.end, x.cpu
	}
	d := dur(prev, ahead)
	o.iv = append(o.iv, interval{})
	copy(o.iv[i+1:], o.iv[i:])
	o.iv[i] = interval{start: s, end: s + d, cpu: cpu}
	return s, d, prev
}

// TestReserveMatchesReference: reserve (bisection, gaps shorter than the lower bound
// passed over, window over its buffer) gives the reference scan's start, length and
// previous owner, and keeps the same intervals, on random request mixes: durations
// that depend on the previous owner and on the owners ahead (a ticket lock), zero-cost
// own-line accesses (zero-length intervals), clocks that jump past several intervals.
func TestReserveMatchesReference(t *testing.T) {
	seeds := uint64(8)
	if testing.Short() {
		seeds = 2 // CI's -race -short pass: the full 8 run in the plain go test ./...
	}
	for _, self := range []Time{0, 5} {
		top := Topology{Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 2,
			Costs: TransferCosts{Self: self, SMT: 7, Node: 50, Socket: 60, Remote: 109}}
		for seed := uint64(1); seed <= seeds; seed++ {
			rnd := rand.New(rand.NewPCG(seed, 11))
			o, ref := newOwned(), refOwned{last: -1}
			free := make([]Time, top.NrCPUs())
			var now Time
			for i := 0; i < 4000; i++ {
				cpu := rnd.IntN(len(free))
				if rnd.IntN(5) == 0 {
					now += Time(rnd.IntN(300))
				}
				at := max(now, free[cpu]-Time(rnd.IntN(50)))
				hold := Time(rnd.IntN(3) * rnd.IntN(40))
				ticket := rnd.IntN(2) == 0
				dur := func(prev, ahead int) Time {
					x := top.Transfer(prev, cpu)
					if ticket && ahead > 0 {
						x += Time(ahead) * x / 2
					}
					return x + hold
				}
				s1, d1, p1 := o.reserve(now, at, cpu, top.minCost()+hold, dur)
				s2, d2, p2 := ref.reserve(now, at, cpu, dur)
				if s1 != s2 || d1 != d2 || p1 != p2 {
					t.Fatalf("self %d seed %d op %d: reserve (%v, %v, %d), reference (%v, %v, %d)", self, seed, i, s1, d1, p1, s2, d2, p2)
				}
				o.forget(now)
				ref.forget(now)
				if !slices.Equal(o.iv, ref.iv) || o.last != ref.last {
					t.Fatalf("self %d seed %d op %d: intervals %v (last %d), reference %v (last %d)", self, seed, i, o.iv, o.last, ref.iv, ref.last)
				}
				free[cpu] = s1 + d1
			}
		}
	}
}
