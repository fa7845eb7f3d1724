package fio

import (
	"math"
	"strconv"
)

// HistogramMaxNs is the smallest latency (ns) the percentile histogram does
// not resolve: 2^34 ns (17.2 s) and longer latencies fall in its last bin,
// as in fio (min, max and mean stay exact).
const HistogramMaxNs = int64(1) << (histMSB + 1)

// Percentile is one entry of a percentile list: the value at or below which
// Percent of the samples lie.
type Percentile struct {
	Percent float64 // 0 < Percent <= 100
	Value   int64   // ns
}

// Bin is one non-empty histogram bin (fio json+ "bins"): Count samples in
// the bin whose value fio reports as Value.
type Bin struct {
	Value int64 // ns: the bin's midpoint (fio's plat_idx_to_val)
	Count int64
}

// LatStats summarises one latency (slat, clat or lat) of one direction, as
// fio's calc_lat (stat.c) reports it: exact min, max and mean, the sample
// standard deviation (divisor N-1; 0 for one sample), and percentiles from
// the histogram when enabled.
type LatStats struct {
	N            int64   // samples
	Min, Max     int64   // ns; 0 when N == 0
	Mean, Stddev float64 // ns
	// Percentiles follows the job's percentile_list; nil when this latency's
	// percentiles are disabled or there are no samples.
	Percentiles []Percentile

	m2   float64 // sum of squared deviations (Welford)
	hist *platHist
}

// add records one sample. histBits > 0 records it in the histogram of that
// precision too, allocating it on first use.
func (l *LatStats) add(v int64, histBits int) {
	if l.N == 0 || v < l.Min {
		l.Min = v
	}
	if v > l.Max {
		l.Max = v
	}
	l.N++
	// Welford's update, as fio's add_stat_sample does.
	d := float64(v) - l.Mean
	l.Mean += d / float64(l.N)
	l.m2 += d * (float64(v) - l.Mean)
	if histBits > 0 {
		if l.hist == nil {
			l.hist = newPlatHist(histBits)
		}
		l.hist.record(v)
	}
}

// merge adds o's samples to l (Chan et al.'s parallel variance update, as
// fio's sum_stat does when it merges jobs into a group).
func (l *LatStats) merge(o *LatStats) {
	if o.N == 0 {
		return
	}
	if l.N == 0 {
		l.Min, l.Max = o.Min, o.Max
	} else {
		l.Min, l.Max = min(l.Min, o.Min), max(l.Max, o.Max)
	}
	n := l.N + o.N
	d := o.Mean - l.Mean
	l.m2 += o.m2 + d*d*float64(l.N)*float64(o.N)/float64(n)
	l.Mean += d * float64(o.N) / float64(n)
	l.N = n
	if o.hist != nil {
		if l.hist == nil {
			l.hist = newPlatHist(int(o.hist.bits))
		}
		l.hist.merge(o.hist)
	}
}

// finish computes Stddev and the percentiles from the accumulated state.
func (l *LatStats) finish(plist []float64) {
	l.Stddev = 0
	if l.N > 1 {
		l.Stddev = math.Sqrt(l.m2 / float64(l.N-1))
	}
	l.Percentiles = nil
	if l.hist == nil || l.N == 0 || len(plist) == 0 {
		return
	}
	// fio (stat.c, calc_clat_percentiles) reports for p the value of the
	// first bin whose cumulative count reaches p% of N (the bin holding the
	// sample of rank ceil(p*N/100)); the value is the bin's midpoint, which
	// may exceed Max.
	vals := l.hist.percentiles(plist, l.N)
	l.Percentiles = make([]Percentile, len(plist))
	for i, p := range plist {
		l.Percentiles[i] = Percentile{Percent: p, Value: vals[i]}
	}
}

// Percentile returns the value for percent p from the histogram (0 when the
// latency has no histogram or no samples), using fio's rank rule.
func (l *LatStats) Percentile(p float64) int64 {
	for _, e := range l.Percentiles {
		if e.Percent == p {
			return e.Value
		}
	}
	if l.hist == nil || l.N == 0 {
		return 0
	}
	c := *l
	c.finish([]float64{p})
	return c.Percentiles[0].Value
}

// Bins returns the non-empty histogram bins in increasing value order (fio
// json+ "bins"); nil without a histogram.
func (l *LatStats) Bins() []Bin {
	if l.hist == nil {
		return nil
	}
	return l.hist.bins()
}

// HistogramBytes returns the memory (bytes) the latency's histogram holds; 0
// without one.
func (l *LatStats) HistogramBytes() int {
	if l.hist == nil {
		return 0
	}
	return l.hist.bytes()
}

// percentKey formats a percentile the way fio's JSON keys it ("99.000000").
func percentKey(p float64) string { return strconv.FormatFloat(p, 'f', 6, 64) }
