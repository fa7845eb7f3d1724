package fio

import (
	"math"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry for latency percentiles: values from 1 ns to
// HistogramMaxNs with HistogramSigFigs significant decimal digits (values of
// 0..2047 ns are exact; above, the relative error is below 0.1%, finer than
// fio's own 1/64 log-linear bins). Larger values are recorded as
// HistogramMaxNs (min, max and mean stay exact). One histogram takes about
// 270 KiB and is allocated on the first sample of its direction.
const (
	HistogramMaxNs   = int64(3600e9) // one hour
	HistogramSigFigs = 3
)

// Percentile is one entry of a percentile list: the value at or below which
// Percent of the samples lie.
type Percentile struct {
	Percent float64 // 0 < Percent <= 100
	Value   int64   // ns
}

// Bin is one non-empty histogram bin (fio json+ "bins"): Count samples whose
// value is equivalent to Value at the histogram's precision.
type Bin struct {
	Value int64 // ns: the highest value the bin holds
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
	hist *hdrhistogram.Histogram
}

// add records one sample. withHist allocates the histogram if needed.
func (l *LatStats) add(v int64, withHist bool) {
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
	if withHist {
		if l.hist == nil {
			l.hist = newHistogram()
		}
		_ = l.hist.RecordValue(min(v, HistogramMaxNs)) // cannot fail: 0 <= v <= max
	}
}

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, HistogramMaxNs, HistogramSigFigs)
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
			l.hist = newHistogram()
		}
		l.hist.Merge(o.hist)
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
	// fio (stat.c, calc_clat_percentiles) reports for p the first bin whose
	// cumulative count reaches p% of N, i.e. the sample of rank ceil(p*N/100).
	// hdrhistogram rounds the rank instead, so ask it for the exact rank.
	n := l.hist.TotalCount()
	q := make([]float64, len(plist))
	for i, p := range plist {
		rank := math.Ceil(p*float64(n)/100 - 1e-9)
		rank = max(1, min(rank, float64(n)))
		q[i] = 100 * rank / float64(n)
	}
	vals := l.hist.ValueAtPercentilesSlice(q)
	l.Percentiles = make([]Percentile, len(plist))
	for i, p := range plist {
		l.Percentiles[i] = Percentile{Percent: p, Value: min(vals[i], l.Max)}
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
	var out []Bin
	for _, b := range l.hist.Distribution() {
		if b.Count > 0 {
			out = append(out, Bin{Value: b.To, Count: b.Count})
		}
	}
	return out
}

// percentKey formats a percentile the way fio's JSON keys it ("99.000000").
func percentKey(p float64) string { return strconv.FormatFloat(p, 'f', 6, 64) }
