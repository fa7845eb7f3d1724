package fio_test

import (
	"os"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// BenchmarkCollectorRecord measures the per-completion cost the simulator
// pays: moments, one histogram update (clat) and the interval samplers.
func BenchmarkCollectorRecord(b *testing.B) {
	s := fio.DefaultSpec("j")
	c := fio.NewCollector(&s)
	b.ReportAllocs()
	t := int64(0)
	for b.Loop() {
		t += 1000
		c.Record(fio.DirRead, 1500, 100_000+t%50_000, 4096, t-101_500, t)
	}
}

// BenchmarkSliceBaseline is the naive alternative Record replaces: keep
// every latency in a slice (memory grows with the run; percentiles need a
// sort at the end, not measured here).
func BenchmarkSliceBaseline(b *testing.B) {
	var lat []int64
	b.ReportAllocs()
	t := int64(0)
	for b.Loop() {
		t += 1000
		lat = append(lat, 100_000+t%50_000)
	}
	_ = lat
}

// BenchmarkParse parses the 000 storvsc job file.
func BenchmarkParse(b *testing.B) {
	job, err := os.ReadFile("../testdata/fio/000_storvsc.fio")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fio.Parse(strings.NewReader(string(job)), "000.fio"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFinish measures closing a collector with percentiles over a
// histogram that saw latencies from 100 us to 150 us.
func BenchmarkFinish(b *testing.B) {
	s := fio.DefaultSpec("j")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c := fio.NewCollector(&s)
		for t := int64(1); t <= 1000; t++ {
			c.Record(fio.DirRead, 0, 100_000+t*50, 4096, 0, t)
		}
		b.StartTimer()
		c.Finish(0, 1e9)
	}
}
