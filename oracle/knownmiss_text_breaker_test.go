package oracle

import (
	"strings"
	"testing"
)

// TestWriteTextKnownMissOnce: a case whose known misses share one mechanism (the
// reconcile gives every missed row of a case the same text) printed that text once
// per row: `blkmq validate --reference ... --case 000-small-none` repeated one
// 1500-character paragraph three times. It is now printed once, after the keys it
// explains; different texts keep their own lines.
func TestWriteTextKnownMissOnce(t *testing.T) {
	c := &Comparison{Case: "t", Rows: []Row{
		{Key: "a read iops", Metric: "iops", Tol: 0.15, KnownMiss: "same"},
		{Key: "a read clat_mean", Metric: "clat_mean_ms", Tol: 0.25, KnownMiss: "same"},
		{Key: "b write iops", Metric: "iops", Tol: 0.15, KnownMiss: "other"},
		{Key: "device merges", Metric: "merge_fraction", Tol: 0.2, KnownMiss: "same"},
	}}
	var b strings.Builder
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"known miss a read iops, a read clat_mean, device merges: same\n", "known miss b write iops: other\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, ": same"); n != 1 {
		t.Errorf("the shared text is printed %d times, want 1:\n%s", n, out)
	}
}
