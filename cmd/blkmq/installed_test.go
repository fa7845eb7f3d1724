package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstalledBinaryRunsScenarios builds the command as `go install -trimpath` would
// and runs claims from an empty directory: the job files and claims are embedded, so
// nothing is read from the source tree (002 reads its job files, 000 its job file,
// every scenario testdata/claims.json).
func TestInstalledBinaryRunsScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "blkmq")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -trimpath: %v\n%s", err, out)
	}
	empty := t.TempDir()
	for _, args := range [][]string{
		{"claims", "--only", "002/none-v4.13/"},
		{"claims", "--only", "003/"},
		{"claims", "--show", "004/postmark/ratio"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = empty
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%v from an empty directory: %v\n%s", args, err, out)
			continue
		}
		if strings.Contains(string(out), "ERROR") || strings.Contains(string(out), "not found") {
			t.Errorf("%v: output reports an error:\n%s", args, out)
		}
	}
}
