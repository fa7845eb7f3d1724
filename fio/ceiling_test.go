package fio

import "testing"

func TestPercentileAtCeiling(t *testing.T) {
	tests := []struct {
		name    string
		samples []int64 // ns
		want    bool
	}{
		{"all-resolved", []int64{1e6, 2e6, 3e6}, false},
		{"below-ceiling", []int64{1e6, 16e9}, false},
		{"beyond-ceiling", []int64{1e6, 40e9}, true},
		{"at-ceiling", []int64{HistogramMaxNs}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l LatStats
			for _, v := range tc.samples {
				l.add(v, DefaultHistogramBits)
			}
			l.finish([]float64{50, 99})
			if got := l.PercentileAtCeiling(99); got != tc.want {
				t.Errorf("PercentileAtCeiling(99) = %v (p99 %d ns, mean %.0f ns), want %v", got, l.Percentile(99), l.Mean, tc.want)
			}
		})
	}
	var empty LatStats
	if empty.PercentileAtCeiling(99) {
		t.Error("PercentileAtCeiling without samples = true")
	}
}
