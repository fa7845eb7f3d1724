package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIdleJobHint: the warning for a job with an empty measurement window names its
// cause: a job without time_based that finished its size within ramp_time (fio opens
// the window only when ramp_time ends) is told so, not that a longer --runtime may
// help; a job whose window was too short still gets the --runtime hint.
func TestIdleJobHint(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, job string
		args      []string
		want      []string
		notWant   string
	}{
		{"ramp-time-outlasts-size", "[a]\nrw=randread\nsize=1m\nramp_time=1h\nruntime=10ms\n", nullDevice,
			[]string{"job a: no I/O completed in the 0s measurement window: the job did all its I/O (size) within ramp_time=1h0m0s, and without time_based it stops"},
			"a longer --runtime may help"},
		{"window-too-short", "[a]\nrw=randread\nsize=1g\nruntime=1ms\n", []string{"--device", "hdd"},
			[]string{"job a: no I/O completed in the 1ms measurement window: ", "a longer --runtime may help"}, "ramp_time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".fio")
			if err := os.WriteFile(path, []byte(tc.job), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(append([]string{"run", path}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, tc.notWant) {
				t.Errorf("output has %q:\n%s", tc.notWant, out)
			}
		})
	}
}
