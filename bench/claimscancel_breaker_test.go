package bench

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestEvaluateReturnsAtCancel: Ctrl-C during `blkmq claims` took 20 s to stop on
// this machine: the runner waited for every scenario run in flight (the nr_requests
// sweep alone is tens of seconds of CPU), since a Scenario.Run cannot be stopped
// part-way. EvaluateWith now returns as soon as ctx ends: the claims whose runs
// were not done carry ctx's error; the runs in flight finish in the background and
// their results are dropped.
func TestEvaluateReturnsAtCancel(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	const name = "zz-breaker12-slow"
	registryMu.Lock()
	registry[name] = Scenario{Name: name, Variants: []string{"v"}, Run: func(string, uint64) (map[string]float64, error) {
		started <- struct{}{}
		<-release
		return map[string]float64{"m": 1}, nil
	}}
	registryMu.Unlock()
	defer func() {
		close(release)
		registryMu.Lock()
		delete(registry, name)
		registryMu.Unlock()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	claims := []Claim{{ID: "zz/a", Scenario: name, Variant: "v", Metric: "m", Published: 1, Unit: "x"}}
	done := make(chan []Result, 1)
	go func() { done <- EvaluateWith(ctx, claims, Options{Seed: 1, Parallel: 1}) }()
	select {
	case res := <-done:
		if len(res) != 1 || !errors.Is(res[0].Err, context.Canceled) {
			t.Fatalf("results %+v, want the claim failing with context.Canceled", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("EvaluateWith still waits for a run in flight 10 s after ctx was cancelled")
	}
}
