package bench

import (
	"testing"
	"time"
)

// BenchmarkStorvsc runs seed 000's 60 s job file once per iteration for each policy and
// reports the scenario's figures (wal-IOPS, wal-clat-us, hogs-IOPS) plus the wall time
// of one simulated run. Each run has its own jitter seed (nextJitter), so benchstat
// over -count shows the model's spread.
func BenchmarkStorvsc(b *testing.B) {
	for _, v := range []struct {
		name   string
		shared bool
	}{{"tags=per-hctx", false}, {"tags=shared", true}} {
		b.Run(v.name, func(b *testing.B) {
			var f *StorvscFigures
			for i := 0; i < b.N; i++ {
				var err error
				if f, err = runStorvscScaled(v.shared, StorvscNrRequests, 60*time.Second, 1, nextJitter(b.Name())); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(f.WalIOPS, "wal-IOPS")
			b.ReportMetric(f.WalClatUs, "wal-clat-us")
			b.ReportMetric(f.HogsIOPS, "hogs-IOPS")
		})
	}
}

// TestStorvscVariants checks the scenario plumbing (not the published figures, which
// the claims test judges): both variants run, report the three metrics, and an unknown
// variant is an error.
func TestStorvscVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("60 s simulated runs")
	}
	for _, v := range []string{"tags=per-hctx", "tags=shared"} {
		m, err := runStorvsc(v, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"wal-IOPS", "wal-clat-us", "hogs-IOPS"} {
			if m[k] <= 0 {
				t.Errorf("%s: %s = %v", v, k, m[k])
			}
		}
	}
	if _, err := runStorvsc("tags=bogus", 1); err == nil {
		t.Error("unknown variant accepted")
	}
}
