package bench

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/internal/stats"
)

// Replica statistics of the claims runner (Claim.Replicas, Options.Replicas).
//
// A published figure is one run of the source's system, so a claim is judged on
// where one run of the model lands: the 95 % prediction interval of a single further
// run from n replicas, mean ± t(0.975, n-1)·s·sqrt(1 + 1/n), with s the replicas'
// sample standard deviation (normal approximation; the jitter streams are
// independent). The interval of the mean (± t·s/sqrt(n)) would shrink as replicas are
// added and call a figure met that a third of the model's runs miss.

// tQuantile is Student's t 0.975 quantile (stats.TQuantile975).
var tQuantile = stats.TQuantile975

// replicaStats returns the mean, the sample standard deviation and the 95 %
// single-run interval of vals (len >= 1). One value: sd 0, interval [v, v]. The sums
// run in the given order, so the same replicas give the same bits.
func replicaStats(vals []float64) (mean, sd float64, iv [2]float64) {
	n := len(vals)
	mean, sd = stats.MeanSD(vals)
	if n == 1 {
		return mean, 0, [2]float64{mean, mean}
	}
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
