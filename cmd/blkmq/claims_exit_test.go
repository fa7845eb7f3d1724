package main

import (
	"errors"
	"testing"

	"github.com/blkmq/blkmq/bench"
)

// TestClaimsExit checks the exit status of `blkmq claims`: 0 when every figure is met,
// calibrated, not robust, a recorded known miss or informational within its band; 1
// on an unexpected miss, a spread (replicas' interval across the tolerance with no
// not_robust record) or a moved figure; 2 on any error (it wins over 1).
func TestClaimsExit(t *testing.T) {
	res := func(ss ...bench.Status) []bench.Result {
		var out []bench.Result
		for _, s := range ss {
			out = append(out, bench.Result{Status: s})
		}
		return out
	}
	tests := []struct {
		name string
		in   []bench.Result
		want int
	}{
		{"all-expected", res(bench.Met, bench.Calibrated, bench.KnownMiss, bench.Info, bench.NotRobust), 0},
		{"unrecorded-spread", res(bench.Met, bench.Spread), 1},
		{"unexpected-miss", res(bench.Met, bench.Unexpected), 1},
		{"moved-known-miss", res(bench.KnownMiss, bench.Moved), 1},
		{"error-wins", res(bench.Unexpected, bench.Failed), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := claimsExit(tt.in)
			got := 0
			var ee *exitError
			if errors.As(err, &ee) {
				got = ee.code
			}
			if got != tt.want {
				t.Errorf("exit %d (%v), want %d", got, err, tt.want)
			}
		})
	}
}
