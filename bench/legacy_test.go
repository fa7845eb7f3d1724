package bench

import "testing"

// BenchmarkLegacyTags runs the seed-004 scenario (writer alone, then beside
// postmark; 32 s simulated each) per variant and reports its figures.
func BenchmarkLegacyTags(b *testing.B) {
	for _, v := range []string{"formula=old", "formula=new"} {
		b.Run(v, func(b *testing.B) {
			var m map[string]float64
			for i := 0; i < b.N; i++ {
				var err error
				if m, err = RunLegacyTags(v, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(m["stream-MBps"], "MB/s")
			b.ReportMetric(m["postmark-tps"], "tps")
			b.ReportMetric(m["stream-beside-MBps"], "beside-MB/s")
			b.ReportMetric(m["async-inflight"], "async-inflight")
			b.ReportMetric(m["write-cmd-KiB"], "write-KiB")
		})
	}
}

// TestLegacyTagsVariants checks the scenario plumbing (the claims test judges
// the figures): both variants report positive stream and postmark figures, the
// async in-flight mean follows the formula (1 vs 2 tags), and an unknown variant
// is an error.
func TestLegacyTagsVariants(t *testing.T) {
	want := map[string]float64{"formula=old": 1, "formula=new": 2}
	for v, inflight := range want {
		m, err := RunLegacyTags(v, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"stream-MBps", "postmark-tps", "write-cmd-KiB"} {
			if m[k] <= 0 {
				t.Errorf("%s: %s = %v", v, k, m[k])
			}
		}
		if got := m["async-inflight"]; got < inflight-0.05 || got > inflight+0.01 {
			t.Errorf("%s: async-inflight = %.3f, want ≈ %v", v, got, inflight)
		}
	}
	if _, err := RunLegacyTags("formula=bogus", 1); err == nil {
		t.Error("unknown variant accepted")
	}
}
