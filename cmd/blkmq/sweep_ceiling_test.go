package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A p99 at fio's histogram ceiling is marked ">=" in the table (not in the CSV) and
// explained once under it.
func TestSweepTableMarksP99AtCeiling(t *testing.T) {
	tests := []struct {
		name string
		ceil bool
		want []string
	}{
		{"resolved", false, []string{
			"depth  job  iops  bw_kib_s  clat_mean_us  clat_p99_us",
			"1      a    10.0      40.0     1000000.0     500000.0",
		}},
		{"at-ceiling", true, []string{
			"depth  job  iops  bw_kib_s  clat_mean_us   clat_p99_us",
			"1      a    10.0      40.0     1000000.0  >=17112760.0",
			">= clat_p99_us at fio's histogram ceiling: latencies of 17.2 s and more share its last bin, so the true p99 is at least the value shown (and may exceed the mean)",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p99 := 500000.0
			if tc.ceil {
				p99 = 17112760
			}
			pts := []*sweepPoint{{vals: []string{"1"}, rows: []metricRow{{job: "a", iops: 10, bwKiB: 40, mean: 1e6, p99: p99, clatN: 10, p99Ceil: tc.ceil}}}}
			var b strings.Builder
			if err := writeSweepTable(&b, []axis{{key: "depth", values: []string{"1"}}}, pts); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, strings.Split(strings.TrimRight(b.String(), "\n"), "\n")); d != "" {
				t.Errorf("table (-want +got):\n%s", d)
			}
			if c := pts[0].rows[0].cells(); strings.HasPrefix(c[len(c)-1], ">=") {
				t.Errorf("CSV cell %q is marked; CSV stays numeric", c[len(c)-1])
			}
		})
	}
}
