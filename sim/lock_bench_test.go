package sim_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// BenchmarkModelContendedSpinLock reports the model's wall time per critical section
// ("model-ns/op") for n = GOMAXPROCS CPUs taking one queued spinlock back to back
// around a section that updates one protected line (hold: Self for the two
// instructions on it), next to BenchmarkContendedSpinLock, with the flat 5/80 ns
// costs. One CPU: Self (the lock word) + hold; several: each section moves the lock
// line and the data line from the previous owner.
func BenchmarkModelContendedSpinLock(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	top := sim.Flat(n, 5, 80)
	l := sim.NewSpinLock(&top, sim.Queued)
	free := make([]sim.Time, n)
	var end sim.Time
	for i := 0; i < b.N; i++ {
		c := i % n
		now := slices.Min(free)
		free[c] += l.LockData(now, free[c], c, top.Costs.Self, 1)
		end = max(end, free[c])
	}
	b.ReportMetric(float64(end)/float64(b.N), "model-ns/op")
}

// The simulator's own cost of one lock or atomic nobody contends (one CPU, the engine
// clock advancing with it), against the single-touch line the model had before
// (SharedLine.Touch): the contention model must cost about as much Go time when there
// is no contention.
func BenchmarkUncontended(b *testing.B) {
	top := sim.Flat(16, 5, 80)
	b.Run("SharedLine.Touch", func(b *testing.B) {
		l := sim.NewSharedLine(5, 80)
		var t sim.Time
		for i := 0; i < b.N; i++ {
			t += l.Touch(3)
		}
		sink = t
	})
	b.Run("AtomicLine.RMW", func(b *testing.B) {
		l := sim.NewAtomicLine(&top)
		var t sim.Time
		for i := 0; i < b.N; i++ {
			t += l.RMW(t, t, 3)
		}
		sink = t
	})
	b.Run("SpinLock.Lock", func(b *testing.B) {
		l := sim.NewSpinLock(&top, sim.Queued)
		var t sim.Time
		for i := 0; i < b.N; i++ {
			t += l.Lock(t, t, 3, 40)
		}
		sink = t
	})
	b.Run("SpinLock.Lock/two-cpus-alternating", func(b *testing.B) {
		l := sim.NewSpinLock(&top, sim.Queued)
		var t sim.Time
		for i := 0; i < b.N; i++ {
			t += l.Lock(t, t, i&1, 40)
		}
		sink = t
	})
}

var sink sim.Time
