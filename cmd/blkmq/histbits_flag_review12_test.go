package main

import (
	"strings"
	"testing"
)

// TestHistBitsFlagRange: an out-of-range --hist-bits is refused naming the flag and
// its range (exit 2), not stack's Config field ("stack: HistogramBits 20 out of
// range"), in run and sweep alike.
func TestHistBitsFlagRange(t *testing.T) {
	job := writeJob(t, t.TempDir(), "j", "[j]\nioengine=libaio\ndirect=1\nrw=randread\nsize=1m\n")
	for _, args := range [][]string{
		{"run", job, "--hist-bits", "20"},
		{"run", job, "--hist-bits=-1"},
		{"sweep", job, "--vary", "iodepth=1,2", "--hist-bits", "17"},
	} {
		out, err := run(args...)
		if exitCode(err) != 2 || !strings.Contains(out, "--hist-bits") || strings.Contains(out, "HistogramBits") {
			t.Errorf("%v: exit %d, want 2 naming --hist-bits and not the Config field:\n%s", args, exitCode(err), out)
		}
	}
}
