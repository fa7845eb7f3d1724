package main

import (
	"strings"
	"testing"
)

// TestClaimsSensitivitySIGINT: Ctrl-C during `claims --sensitivity` must not go on
// to the sensitivity runs (minutes of CPU) after the interrupted claims: they ran
// with a background context, so the signal's prompt exit took 30 s here for 001/
// alone. The table of what finished is printed, no sensitivity table, exit 128.
func TestClaimsSensitivitySIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	stdout, stderr, code := startInterrupted(t, "blkmq: progress: 1 of", "claims", "--only", "001/", "--sensitivity", "--parallel", "1", "--eta", "always")
	if code != interruptStatus {
		t.Errorf("exit status %d, want %d\nstderr:\n%s", code, interruptStatus, stderr)
	}
	if !strings.Contains(stdout, "CLAIM") {
		t.Errorf("stdout lacks the claims table:\n%s", stdout)
	}
	if strings.Contains(stdout, "Sensitivity:") {
		t.Errorf("the sensitivity runs went on after the signal:\n%s", stdout)
	}
	if !strings.Contains(stderr, "sensitivity runs skipped") {
		t.Errorf("stderr does not say the sensitivity runs were skipped:\n%s", stderr)
	}
}
