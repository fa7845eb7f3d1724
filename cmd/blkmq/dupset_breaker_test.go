package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetGivenTwice: `run --set queue/nr_requests=32 --set queue/nr_requests=64` ran
// with 64 and dropped the 32 without a word. It now exits 2 naming the key and both
// values; the same value twice still runs.
func TestSetGivenTwice(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(job, []byte("[j]\ndirect=1\nruntime=1ms\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run("run", job, "--set", "queue/nr_requests=32", "--set", "queue/nr_requests=64")
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "queue/nr_requests given twice in the same place (32, then 64)") {
		t.Fatalf("exit %d, err %v; want exit 2 naming the key and both values:\n%s", exitCode(err), err, out)
	}
	if out, err := run("run", job, "--set", "queue/nr_requests=32", "--set", "queue/nr_requests=32"); err != nil {
		t.Fatalf("the same value twice: %v\n%s", err, out)
	}
}
