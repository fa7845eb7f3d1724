package sim_test

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// overlapBatch is the number of a goroutine's own operations between two clock reads
// in the overlap benchmarks.
const overlapBatch = 256

// runOverlap runs op (which returns the shared count of operations done by every
// goroutine so far) from one goroutine per P, timing each batch of overlapBatch own
// operations. A batch during which the other goroutines did at least half as many
// operations as this one ran while they ran too: its wall time over all the operations
// done in it is the shared object's service time under contention, which preemption on
// a loaded machine does not inflate (a preempted partner makes the batch
// non-overlapping, and it is dropped; one preempted for part of the batch is inflated,
// hence the lower quartile too). It reports the median and the lower quartile of those
// ("overlap-ns/op", "overlap-p25-ns/op") and the share of batches that overlapped.
func runOverlap(b *testing.B, op func() int64) {
	runOverlapWith(b, func() func() int64 { return op })
}

// runOverlapWith is runOverlap with a per-goroutine operation (newOp is called once
// in each goroutine).
func runOverlapWith(b *testing.B, newOp func() func() int64) {
	var mu sync.Mutex
	var per []float64
	batches := 0
	b.RunParallel(func(pb *testing.PB) {
		op := newOp()
		var mine []float64
		n, myBatches := 0, 0
		t0, c0 := time.Now(), op()
		for pb.Next() {
			c := op()
			n++
			if n == overlapBatch {
				d := time.Since(t0)
				if total := c - c0; total >= overlapBatch*3/2 {
					mine = append(mine, float64(d.Nanoseconds())/float64(total))
				}
				myBatches++
				n, t0, c0 = 0, time.Now(), c
			}
		}
		mu.Lock()
		per = append(per, mine...)
		batches += myBatches
		mu.Unlock()
	})
	if len(per) == 0 {
		b.ReportMetric(0, "overlap-frac")
		return
	}
	slices.Sort(per)
	b.ReportMetric(per[len(per)/4], "overlap-p25-ns/op")
	b.ReportMetric(per[len(per)/2], "overlap-ns/op")
	b.ReportMetric(float64(len(per))/float64(max(batches, 1)), "overlap-frac")
}

// BenchmarkOverlapAtomic is BenchmarkContendedAtomic timed by runOverlap: the service
// time of one shared atomic add while GOMAXPROCS goroutines hit it together (the
// model: one line transfer per RMW, AtomicLine).
func BenchmarkOverlapAtomic(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two CPUs")
	}
	var x paddedInt64
	runOverlap(b, func() int64 { return x.v.Add(1) })
}

// BenchmarkOverlapSpinLock is BenchmarkContendedSpinLock timed by runOverlap: one
// critical section (lock word + one protected line) while GOMAXPROCS goroutines
// contend (the model: the lock's hand-off plus the data line, SpinLock.LockData with
// lines = 1).
func BenchmarkOverlapSpinLock(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two CPUs")
	}
	var l spin
	var data paddedInt64
	runOverlap(b, func() int64 {
		l.lock()
		v := data.v.Load() + 1
		data.v.Store(v)
		l.unlock()
		return v
	})
}

// mcsNode is one waiter's queue node of an MCS lock, on its own cache line.
type mcsNode struct {
	_      [64]byte
	next   atomic.Pointer[mcsNode]
	locked atomic.Bool
	_      [64]byte
}

// mcs is an MCS queued lock (the queue the kernel's qspinlock builds behind its
// pending waiter): each waiter spins on its own node and the releaser hands over by
// writing the next node, one line transfer; the tail swap is one RMW on the lock line.
type mcs struct {
	_    [64]byte
	tail atomic.Pointer[mcsNode]
	_    [64]byte
}

func (l *mcs) lock(n *mcsNode) {
	n.next.Store(nil)
	n.locked.Store(true)
	prev := l.tail.Swap(n)
	if prev == nil {
		return
	}
	prev.next.Store(n)
	for i := 0; n.locked.Load(); i++ {
		if i&1023 == 1023 {
			runtime.Gosched() // a preempted owner must be able to run on a busy machine
		}
	}
}

func (l *mcs) unlock(n *mcsNode) {
	next := n.next.Load()
	if next == nil {
		if l.tail.CompareAndSwap(n, nil) {
			return
		}
		for i := 0; ; i++ { // a waiter swapped the tail and is linking itself
			if next = n.next.Load(); next != nil {
				break
			}
			if i&1023 == 1023 {
				runtime.Gosched()
			}
		}
	}
	next.locked.Store(false)
}

// BenchmarkOverlapMCSLock is BenchmarkOverlapSpinLock with an MCS lock, the FIFO
// hand-off the model's Queued SpinLock stands for.
func BenchmarkOverlapMCSLock(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two CPUs")
	}
	var l mcs
	var data paddedInt64
	var nodes sync.Pool
	nodes.New = func() any { return new(mcsNode) }
	runOverlapWith(b, func() func() int64 {
		n := nodes.Get().(*mcsNode) // one node per goroutine
		return func() int64 {
			l.lock(n)
			v := data.v.Load() + 1
			data.v.Store(v)
			l.unlock(n)
			return v
		}
	})
}
