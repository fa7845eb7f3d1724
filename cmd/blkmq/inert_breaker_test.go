package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInertModuleParamsSaySo checks that a module parameter the model accepts but
// does not simulate (null_blk bs=, home_node=) is a warning line on a run and a
// sweep, in the JSON's blkmq warnings, and an exit-2 error with --strict, as an
// accepted but unmodelled fio option is.
func TestInertModuleParamsSaySo(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(job, []byte("[j]\nrw=randread\nruntime=1ms\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const dev = "null_blk bs=4096 home_node=1"
	const want = "blkmq: warning: module parameter accepted but not modelled: null_blk.bs=4096 (device null_blk (flags)): no effect in the model"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"run", []string{"run", job, "--device", dev}, 0,
			[]string{want, "null_blk.home_node=1", "IOPS="}},
		{"run-json", []string{"run", job, "--device", dev, "--output-format", "json"}, 0,
			[]string{`"module parameter accepted but not modelled: null_blk.bs=4096 (device null_blk (flags)): no effect in the model"`}},
		{"run-strict", []string{"run", job, "--device", dev, "--strict"}, 2,
			[]string{"--strict: 2 module parameter(s) accepted but not modelled"}},
		{"sweep", []string{"sweep", job, "--device", dev, "--vary", "queue/nr_requests=8,16"}, 0,
			[]string{want}},
		{"modelled-param-quiet", []string{"run", job, "--device", "null_blk irqmode=0"}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(tc.args...)
			if got := exitCode(err); got != tc.wantCode {
				t.Fatalf("exit %d (%v), want %d:\n%s", got, err, tc.wantCode, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.want == nil && strings.Contains(out, "module parameter accepted") {
				t.Errorf("a modelled parameter warned:\n%s", out)
			}
		})
	}
}
