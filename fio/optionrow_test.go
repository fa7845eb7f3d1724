package fio

import (
	"strings"
	"testing"
)

// parseOption parses a one-job file "[a] rw=randread" plus opt. With wantErr
// non-empty it checks that the parse fails with an error containing wantErr and
// returns ok false; otherwise it fails the test on any error and returns the job.
func parseOption(t *testing.T, opt, wantErr string) (s Spec, ok bool) {
	t.Helper()
	specs, err := Parse(strings.NewReader("[a]\nrw=randread\n"+opt+"\n"), "t.fio")
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return Spec{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return specs[0], true
}
