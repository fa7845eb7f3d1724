package main

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/bench"
)

// The status column holds one status per sensitivity factor; its header must say
// which is which.
func TestSensitivityTextLabelsStatuses(t *testing.T) {
	rows := []bench.SensitivityRow{{
		Claim:  bench.Claim{ID: "001-x"},
		Param:  bench.Param{Name: "p", Value: 1, Unit: "us"},
		Base:   bench.Result{Model: 1, Status: bench.KnownMiss},
		Scaled: []bench.Result{{Model: 0.5, Status: bench.KnownMiss}, {Model: 2, Status: bench.Met}},
	}}
	var b strings.Builder
	if err := writeSensitivityText(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), b.String())
	}
	if !strings.HasSuffix(strings.TrimSpace(lines[1]), "STATUS x0.5 / x2") {
		t.Errorf("header %q does not name the factors of the status column", lines[1])
	}
	if want := string(bench.KnownMiss) + " / " + string(bench.Met); !strings.HasSuffix(strings.TrimSpace(lines[2]), want) {
		t.Errorf("row %q does not end with %q", lines[2], want)
	}
}
