// Package stats holds the small statistics the replica summaries share: the sample
// mean and standard deviation, and Student's t 0.975 quantile (blkmq run
// --replicas' confidence intervals, blkmq claims' single-run prediction intervals).
package stats

import "math"

// tTable holds Student's t 0.975 quantile for 1 … 30 degrees of freedom (standard
// tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
var tTable = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// TQuantile975 returns Student's t 0.975 quantile for df >= 1 degrees of freedom:
// the table to 30, then the Cornish-Fisher series of t in the normal quantile
// (Abramowitz and Stegun 26.7.5, three terms: within 1e-4 of the tables from 31 on;
// the normal 1.96 alone would be 4 % low at 31).
func TQuantile975(df int) float64 {
	if df <= len(tTable) {
		return tTable[df-1]
	}
	const z = 1.959963984540054 // normal 0.975 quantile
	z2, n := z*z, float64(df)
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	return z + g1/n + g2/(n*n) + g3/(n*n*n)
}

// MeanSD returns the mean of xs (len >= 1) and their sample standard deviation (0
// for one value). The sums run in the given order, so the same values give the same
// bits.
func MeanSD(xs []float64) (mean, sd float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1))
}
