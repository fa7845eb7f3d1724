package sim

import (
	"math/rand/v2"
	"testing"
)

// slowLockData is SpinLock.LockData without the uncontended fast path: every request
// through reserve's scan.
func slowLockData(l *SpinLock, now, at Time, cpu int, hold Time, lines int) Time {
	s, d, prev := l.o.reserve(now, at, cpu, func(prev, ahead int) Time {
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
	s, d, prev := l.o.reserve(now, at, cpu, func(prev, _ int) Time { return l.topo.Transfer(prev, cpu) })
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
