package bench

import (
	"fmt"
	"math"
)

// Replica statistics of the claims runner (Claim.Replicas, Options.Replicas).
//
// A published figure is one run of the source's system, so a claim is judged on
// where one run of the model lands: the 95 % prediction interval of a single further
// run from n replicas, mean ± t(0.975, n-1)·s·sqrt(1 + 1/n), with s the replicas'
// sample standard deviation (normal approximation; the jitter streams are
// independent). The interval of the mean (± t·s/sqrt(n)) would shrink as replicas are
// added and call a figure met that a third of the model's runs miss.

// tQuantile975 holds Student's t 0.975 quantile for 1 … 30 degrees of freedom
// (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2). Above 30, tQuantile
// uses the Cornish-Fisher series of t in the normal quantile (Abramowitz and Stegun
// 26.7.5, three terms: within 1e-4 of the tables from 31 on); the normal 1.96 alone
// would be 4 % low at 31.
var tQuantile975 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tQuantile returns t(0.975, df) for df >= 1.
func tQuantile(df int) float64 {
	if df <= len(tQuantile975) {
		return tQuantile975[df-1]
	}
	const z = 1.959963984540054 // normal 0.975 quantile
	z2, n := z*z, float64(df)
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	return z + g1/n + g2/(n*n) + g3/(n*n*n)
}

// replicaStats returns the mean, the sample standard deviation and the 95 %
// single-run interval of vals (len >= 1). One value: sd 0, interval [v, v]. The sums
// run in the given order, so the same replicas give the same bits.
func replicaStats(vals []float64) (mean, sd float64, iv [2]float64) {
	n := len(vals)
	for _, v := range vals {
		mean += v
	}
	mean /= float64(n)
	if n == 1 {
		return mean, 0, [2]float64{mean, mean}
	}
	var ss float64
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(ss / float64(n-1))
	h := tQuantile(n-1) * sd * math.Sqrt(1+1/float64(n))
	return mean, sd, [2]float64{mean - h, mean + h}
}

// accepted returns the claim's accepted range [lo, hi] (±Inf where unbounded) and
// whether it is judged at all.
func (c Claim) accepted() (lo, hi float64, judged bool) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if c.Tolerance != nil {
		judged = true
		d := *c.Tolerance * math.Abs(c.Published)
		lo, hi = c.Published-d, c.Published+d
	}
	if c.Min != nil {
		judged = true
		lo = math.Max(lo, *c.Min)
	}
	if c.Max != nil {
		judged = true
		hi = math.Min(hi, *c.Max)
	}
	return lo, hi, judged
}

// placeInterval reports whether iv lies wholly inside the accepted range, or
// crosses one of its edges (overlaps it without lying inside). Neither: wholly
// outside (or NaN).
func (c Claim) placeInterval(iv [2]float64) (inside, across bool) {
	if math.IsNaN(iv[0]) || math.IsNaN(iv[1]) || math.IsInf(iv[0], 0) || math.IsInf(iv[1], 0) {
		return false, false
	}
	lo, hi, _ := c.accepted()
	inside = iv[0] >= lo && iv[1] <= hi
	across = !inside && iv[1] >= lo && iv[0] <= hi
	return inside, across
}

// fmtInterval prints an interval with four significant digits.
func fmtInterval(iv [2]float64) string {
	return fmt.Sprintf("[%.4g, %.4g]", iv[0], iv[1])
}

// placeResult is how judge places r: inside the accepted range, across one of its
// edges, and whether the claim is judged. One replica is judged on its value
// (Within), more on their interval.
func (c Claim) placeResult(r Result) (inside, across, judged bool) {
	ok, judged := c.Within(r.Model)
	if len(r.Values) <= 1 {
		return ok, false, judged
	}
	inside, across = c.placeInterval(r.Interval)
	return inside, across, judged
}
