package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSweepPointLimitBeforeBuild checks that a sweep over more than maxSweepPoints
// points is refused from the axes' sizes, at once, before the points are built,
// and that a list --vary is bounded as a range is.
func TestSweepPointLimitBeforeBuild(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(job, []byte("[j]\nruntime=1ms\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := make([]string, maxSweepPoints+1)
	for i := range long {
		long[i] = strconv.Itoa(i + 1)
	}
	tests := []struct {
		name string
		vary []string
		want string
	}{
		{"two-big-axes", []string{"queue/nr_requests=1..2048:1", "device/queue_depth=1..10000:1"},
			"--vary: 2048 × 10000 = 20480000 points, more than 10000"},
		{"two-axes-just-over", []string{"queue/nr_requests=1..101:1", "device/queue_depth=1..100:1"},
			"--vary: 101 × 100 = 10100 points, more than 10000"},
		{"long-list", []string{"queue/nr_requests=" + strings.Join(long, ",")},
			"more than 10000 values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sweep", job}
			for _, v := range tc.vary {
				args = append(args, "--vary", v)
			}
			out, err := run(args...)
			if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (exit %d), want exit 2 with %q\n%s", err, exitCode(err), tc.want, out)
			}
		})
	}
}
