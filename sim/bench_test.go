package sim_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// BenchmarkEngine measures Step with a constant number of pending events: every fired
// event reschedules itself at a pseudo-random delay, so the heap keeps its size.
func BenchmarkEngine(b *testing.B) {
	for _, pending := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			e := sim.NewEngine()
			r := sim.NewRand(1)
			hs := make([]hop, pending)
			for i := range hs {
				hs[i] = hop{eng: e, d: sim.Time(1 + r.IntN(100000))}
				e.After(hs[i].d, &hs[i])
			}
			for i := 0; i < pending; i++ { // warm up: reach the steady-state heap shape
				e.Step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.Step()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
