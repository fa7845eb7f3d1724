package sim_test

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// cpuTime returns the CPU time (user + system, ns) the process has used.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

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
			t0 := cpuTime()
			for i := 0; i < b.N; i++ {
				e.Step()
			}
			cpu := cpuTime() - t0
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			if cpu > 0 {
				// on a shared machine, the rate per second of CPU the benchmark got
				b.ReportMetric(float64(b.N)/(float64(cpu)/1e9), "events/cpu-s")
			}
		})
	}
}
