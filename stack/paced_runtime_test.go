package stack_test

import (
	"testing"
	"time"

	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// TestPacedRuntimeWindow: fio's runtime is the job's elapsed time, and a rate sleep
// is capped at the job's timeout (io_u.c rate_ddir), so a rate- or thinktime-limited
// job without time_based whose runtime runs out reports the whole runtime, as with
// time_based, not the time of its last completion; a job that finishes its size
// first still ends at its last completion.
func TestPacedRuntimeWindow(t *testing.T) {
	tests := []struct {
		name, job string
		ios       int64
		window    time.Duration
	}{
		{"rate-iops", "[a]\nrw=randread\nsize=1g\nruntime=3s\nrate_iops=1\n", 3, 3 * time.Second},
		{"rate-iops-time-based", "[a]\nrw=randread\nsize=1g\nruntime=3s\nrate_iops=1\ntime_based\n", 3, 3 * time.Second},
		{"thinktime-over-runtime", "[a]\nrw=randread\nsize=1g\nruntime=3s\nthinktime=1h\n", 1, 3 * time.Second},
		{"size-done-before-runtime", "[a]\nrw=randread\nsize=8k\nruntime=3s\nrate_iops=1\n", 2, time.Second + 100*time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := stack.Run(baseConfig(), parse(t, tc.job))
			if err != nil {
				t.Fatal(err)
			}
			r := res.Jobs[0].Fio
			type got struct {
				IOs    int64
				Window time.Duration
			}
			// the window's end is a completion's time: compare to 100 µs
			w := r.Window.Round(100 * time.Microsecond)
			if d := cmp.Diff(got{tc.ios, tc.window}, got{r.Read().TotalIOs, w}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
