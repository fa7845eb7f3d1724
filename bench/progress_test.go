package bench

import (
	"context"
	"strings"
	"testing"
)

// TestEvaluateProgress: Options.Progress is called once per (scenario, variant)
// run, one call at a time, with the runs done so far and the runs needed; it does
// not change the results.
func TestEvaluateProgress(t *testing.T) {
	all, err := DefaultClaims()
	if err != nil {
		t.Fatal(err)
	}
	prefix := "003/" // budget-map: two runs of 0.2 s
	if testing.Short() {
		prefix = "004/" // legacy-tags: two runs of 10 ms (CI's -race -short pass)
	}
	var claims []Claim
	for _, c := range all {
		if strings.HasPrefix(c.ID, prefix) {
			claims = append(claims, c)
		}
	}
	var calls [][2]int
	got := EvaluateWith(context.Background(), claims, Options{Seed: 1, Parallel: 2, Progress: func(d, n int) { calls = append(calls, [2]int{d, n}) }})
	want := EvaluateWith(context.Background(), claims, Options{Seed: 1, Parallel: 2})
	if len(calls) == 0 {
		t.Fatal("Progress never called")
	}
	n := calls[0][1]
	for i, c := range calls {
		if c != [2]int{i + 1, n} {
			t.Errorf("call %d: %v, want [%d %d]", i, c, i+1, n)
		}
	}
	if len(calls) != n {
		t.Errorf("%d calls for %d runs", len(calls), n)
	}
	for i := range got {
		if got[i].Model != want[i].Model || got[i].Status != want[i].Status {
			t.Errorf("%s: with Progress %v %v, without %v %v", got[i].Claim.ID, got[i].Model, got[i].Status, want[i].Model, want[i].Status)
		}
	}
}
