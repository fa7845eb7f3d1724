package bench

import (
	"math"
	"testing"
)

// TestTQuantileAbove30: past the table's 30 degrees of freedom the quantile was the
// normal 1.96, 4 % below t(0.975, 31) = 2.040 (the comment said within 2 %), so 32
// to ~60 replicas gave a narrower interval than their own t: a figure could be met
// that its replicas do not support. The values are Student's t 0.975 quantiles
// (standard tables: NIST/SEMATECH e-Handbook 1.3.6.7.2 for 40, 60, 100; 999 by the
// series the table ends at).
func TestTQuantileAbove30(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{30, 2.042}, {31, 2.040}, {40, 2.021}, {60, 2.000}, {100, 1.984}, {999, 1.962}} {
		if got := tQuantile(c.df); math.Abs(got-c.want) > 0.0015 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
	// continuous across the table's end, never below the normal quantile
	if d := tQuantile(30) - tQuantile(31); d < 0 || d > 0.005 {
		t.Errorf("t(30) - t(31) = %g", d)
	}
	if tQuantile(MaxReplicas-1) < 1.959963 {
		t.Errorf("t(%d) = %g below the normal quantile", MaxReplicas-1, tQuantile(MaxReplicas-1))
	}
}
