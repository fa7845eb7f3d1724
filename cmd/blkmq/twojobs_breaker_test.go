package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTwoJobFiles: fio runs several job files given at once; blkmq run takes one.
// The refusal read `not "a.fio b.fio" and ""` (an empty list of fio options); it now
// says how many files were given and how to run them together.
func TestRunTwoJobFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a.fio", "b.fio"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("[j]\ndirect=1\nruntime=1ms\ntime_based\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out, err := run(append([]string{"run"}, paths...)...)
	if exitCode(err) != 2 {
		t.Fatalf("exit %d, want 2:\n%s", exitCode(err), out)
	}
	for _, want := range []string{"give one job file, not 2", "include"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `and ""`) {
		t.Errorf("error %q names an empty list of fio options", err)
	}
}
