package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseScaled: the --max-memory and --max-events forms.
func TestParseScaled(t *testing.T) {
	tests := []struct {
		in   string
		base float64
		want int64
		err  bool
	}{
		{"0", 1024, 0, false},
		{"512m", 1024, 512 << 20, false},
		{"16g", 1024, 16 << 30, false},
		{"16GiB", 1024, 16 << 30, false},
		{"1.5k", 1024, 1536, false},
		{"none", 1024, -1, false},
		{"unlimited", 1000, -1, false},
		{"-5", 1024, 0, true},
		{"-1", 1000, 0, true},
		{"-0.5k", 1024, 0, true},
		{"1e10", 1000, 1e10, false},
		{"10G", 1000, 1e10, false},
		{"1e400", 1000, 0, true},
		{"lots", 1000, 0, true},
		{"", 1000, 0, true},
	}
	for _, tc := range tests {
		got, err := parseScaled(tc.in, tc.base, []string{"k", "m", "g", "t", "p"})
		if (err != nil) != tc.err || !tc.err && got != tc.want {
			t.Errorf("parseScaled(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestRunOverLimits: a run over --max-memory or --max-events stops before it runs,
// with exit 2 and a message naming the estimate and the flag.
func TestRunOverLimits(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, job string
		args      []string
		want      []string
	}{
		{"numjobs-iodepth", "[j]\nioengine=libaio\niodepth=65536\nnumjobs=4096\nruntime=1\ntime_based\n", nil,
			[]string{"stack: run needs an estimated 80.4 GiB of memory (4096 jobs", "blkmq --max-memory"}},
		{"one-year-runtime", "[j]\nioengine=libaio\niodepth=4\nruntime=365d\ntime_based\n", nil,
			[]string{"of events (projected:", "blkmq --max-events"}},
		{"events-flag", "[j]\nsize=1g\n", []string{"--max-events", "500k"},
			[]string{"stack: run needs an estimated 524.3 k of events (at least 2 per I/O × 262.1 k I/Os", "over the limit of 500.0 k"}},
		{"max-memory-negative", "[j]\nsize=1m\n", []string{"--max-memory", "-1"},
			[]string{`"--max-memory"`, "-1 out of range [0, 9223372036854775807]: say none for no limit"}},
		{"max-events-negative", "[j]\nsize=1m\n", []string{"--max-events=-1"},
			[]string{`"--max-events"`, "-1 out of range [0, 9223372036854775807]: say none for no limit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".fio")
			if err := os.WriteFile(path, []byte(tc.job), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(append([]string{"run", path}, tc.args...)...)
			if code := exitCode(err); code != 2 {
				t.Fatalf("exit %d (%v), want 2\n%s", code, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestLimitFlagsHelpZero: 0 selects the default limit (stack.Limits), not a limit of
// zero; the help says so (it listed none and negatives only, so --max-memory 0
// silently meant half of this machine's memory).
func TestLimitFlagsHelpZero(t *testing.T) {
	out, err := run("--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--max-memory", "--max-events"} {
		i := strings.Index(out, flag)
		if i < 0 {
			t.Fatalf("help lacks %s:\n%s", flag, out)
		}
		line, _, _ := strings.Cut(out[i:], "\n")
		if !strings.Contains(line, "0 = the default below") {
			t.Errorf("%s help %q does not say what 0 means", flag, line)
		}
	}
}
