package fio

// PercentileAtCeiling reports whether Percentile(p) is the value of the
// histogram's last bin, the one that also holds every latency of HistogramMaxNs
// (2^34 ns, 17.2 s) and more: the true percentile is then at least that value
// and may be far above it, even above Mean. fio reports such a percentile
// unmarked (stat.c, calc_clat_percentiles returns the last bin's
// plat_idx_to_val, about 17.1 s at the default 6 bits); callers that print
// percentiles next to the exact mean should mark it (e.g. ">="). False without
// a histogram or samples.
func (l *LatStats) PercentileAtCeiling(p float64) bool {
	if l.hist == nil || l.N == 0 {
		return false
	}
	top := len(l.hist.pages)<<l.hist.bits - 1
	return l.Percentile(p) >= l.hist.value(top)
}
