package sim_test

import (
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sim"
)

// paddedInt64 keeps the hot word on its own cache line.
type paddedInt64 struct {
	_ [64]byte
	v atomic.Int64
	_ [64]byte
}

// BenchmarkContendedAtomic is the real thing the AtomicLine models: every goroutine
// (one per -cpu) adds to one shared word. ns/op is the wall time per add over all
// goroutines: the line's service time when they contend.
func BenchmarkContendedAtomic(b *testing.B) {
	var x paddedInt64
	c0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			x.v.Add(1)
		}
	})
	reportCPU(b, c0)
}

// processCPU returns the process's user + system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since c0 divided by GOMAXPROCS
// ("cpu-ns/op/P"): on a loaded machine, where a goroutine's wall time includes the
// time its thread was preempted, this is the per-operation cost while running. With
// P goroutines all spinning it equals the wall time per operation of an unloaded
// machine; when preemption leaves one goroutine alone for a while, its uncontended
// operations pull the figure down.
func reportCPU(b *testing.B, c0 time.Duration) {
	d := processCPU() - c0
	b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(runtime.GOMAXPROCS(0)), "cpu-ns/op/P")
}

// spin is a test-and-test-and-set spinlock on one word.
type spin struct {
	_ [64]byte
	w atomic.Uint32
	_ [64]byte
}

func (s *spin) lock() {
	for !s.w.CompareAndSwap(0, 1) {
		for s.w.Load() != 0 {
			runtime.Gosched() // a preempted holder must be able to run on a busy machine
		}
	}
}

func (s *spin) unlock() { s.w.Store(0) }

// BenchmarkContendedSpinLock: every goroutine takes one spinlock around a critical
// section that updates one protected line. ns/op is the wall time per critical section.
func BenchmarkContendedSpinLock(b *testing.B) {
	var l spin
	var data paddedInt64
	c0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.lock()
			data.v.Store(data.v.Load() + 1)
			l.unlock()
		}
	})
	reportCPU(b, c0)
}

// BenchmarkLinePingPong measures one cache-line transfer between two goroutines on
// different CPUs: they take turns writing a shared word; ns/op is one hand-over (the
// model's Transfer at this machine's distance). It needs GOMAXPROCS ≥ 2.
func BenchmarkLinePingPong(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two CPUs")
	}
	var turn paddedInt64
	done := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			waitFor(&turn, int64(2*i+1))
			turn.v.Store(int64(2*i + 2))
		}
		close(done)
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		waitFor(&turn, int64(2*i))
		turn.v.Store(int64(2*i + 1))
	}
	<-done
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/transfer")
}

// waitFor spins until x holds v, yielding now and then so that a preempted partner
// can run on a busy machine.
func waitFor(x *paddedInt64, v int64) {
	for n := 0; x.v.Load() != v; n++ {
		if n&1023 == 1023 {
			runtime.Gosched()
		}
	}
}

// BenchmarkModelContendedAtomic reports the model's wall time per RMW for n CPUs
// hammering one AtomicLine (n = GOMAXPROCS), with the flat 5/80 ns costs, to put next
// to BenchmarkContendedAtomic: the model's ns/op is Self at one CPU and the transfer
// cost beyond.
func BenchmarkModelContendedAtomic(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	top := sim.Flat(n, 5, 80)
	l := sim.NewAtomicLine(&top)
	free := make([]sim.Time, n)
	var end sim.Time
	for i := 0; i < b.N; i++ {
		c := i % n
		now := slices.Min(free) // the engine's clock: no CPU is behind it
		free[c] += l.RMW(now, free[c], c)
		end = max(end, free[c])
	}
	b.ReportMetric(float64(end)/float64(b.N), "model-ns/op")
}
