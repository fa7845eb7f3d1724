package device_test

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// BenchmarkModels measures simulated commands per second of host CPU time for each
// model under its closed-loop workload from models(): one op = one completed command
// (including the engine events it needs).
func BenchmarkModels(b *testing.B) {
	for _, m := range models() {
		b.Run(m.name, func(b *testing.B) {
			eng, g := m.load(1)
			g.run(0, m.win/20) // warm up
			g.winStart, g.winEnd = eng.Now(), sim.MaxTime
			g.done = 0
			b.ReportAllocs()
			b.ResetTimer()
			for g.done < int64(b.N) {
				if !eng.Step() {
					b.Fatal("engine ran dry")
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
			b.ReportMetric(float64(eng.Fired())/float64(g.done), "events/cmd")
		})
	}
}
