package floor

import (
	"math/bits"
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

type word struct {
	v atomic.Uint64
	_ [120]byte
}

func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// bench runs f in a b.Loop on a locked thread and reports cpu-ns/op.
func bench(b *testing.B, f func(w *word)) {
	w := new(word)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	for b.Loop() {
		f(w)
	}
	b.ReportMetric(float64(threadCPU()-t0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkPair: a get (take the first free bit) and a put (free it) on one word.
func BenchmarkPair(b *testing.B) {
	b.Run("op=loop", func(b *testing.B) { bench(b, func(w *word) { w.v.Load() }) })
	b.Run("op=cas+and", func(b *testing.B) {
		bench(b, func(w *word) {
			v := w.v.Load()
			m := uint64(1) << (bits.TrailingZeros64(^v) & 63)
			w.v.CompareAndSwap(v, v|m)
			w.v.And(^m)
		})
	})
	// Or and And whose old values are used compile to a CMPXCHG loop on amd64.
	b.Run("op=orold+andold", func(b *testing.B) {
		bench(b, func(w *word) {
			v := w.v.Load()
			m := uint64(1) << (bits.TrailingZeros64(^v) & 63)
			if w.v.Or(m)&m != 0 {
				panic("taken")
			}
			if w.v.And(^m)&m == 0 {
				panic("not held")
			}
		})
	})
	b.Run("op=bts+btr-asm", func(b *testing.B) {
		bench(b, func(w *word) {
			p := (*uint64)(unsafe.Pointer(&w.v))
			v := w.v.Load()
			bit := uint64(bits.TrailingZeros64(^v) & 63)
			if bts(p, bit) {
				panic("taken")
			}
			if !btr(p, bit) {
				panic("not held")
			}
		})
	})
}
