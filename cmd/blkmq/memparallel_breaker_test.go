package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/setup"
	"github.com/blkmq/blkmq/stack"
)

// TestMemoryBoundParallel: --max-memory bounds one model run, but --replicas runs up
// to GOMAXPROCS replicas at once and a sweep up to --parallel points, each held to
// the whole limit, so together they could use GOMAXPROCS times the limit (whose
// default is half of this machine's memory: two at once on this 2-CPU machine is all
// of it). Now only as many start at once as fit under the limit together, judged by
// the largest estimate; one at a time at least, and as many as asked without a limit.
func TestMemoryBoundParallel(t *testing.T) {
	specs, err := fio.Parse(strings.NewReader("[a]\ndirect=1\nrw=randread\nioengine=libaio\niodepth=4096\nnumjobs=64\nruntime=1ms\ntime_based\n"), "m.fio")
	if err != nil {
		t.Fatal(err)
	}
	res, err := (setup.Description{CPUs: 2}).Resolve()
	if err != nil {
		t.Fatal(err)
	}
	cfg := res.WithSeed(1, 0)
	probe := cfg
	probe.Limits.MaxMemory, probe.Limits.MaxEvents = 1, -1
	var rl *stack.ResourceLimitError
	if err := stack.Check(probe, specs); !errors.As(err, &rl) || rl.Resource != "memory" {
		t.Fatalf("no memory estimate: %v", err)
	}
	est := rl.Estimate
	for _, tt := range []struct {
		name  string
		limit float64 // in estimates; < 0: no limit
		want  int
	}{
		{"room-for-two-and-a-half", 2.5, 2},
		{"room-for-less-than-one", 0.5, 1},
		{"room-for-eight", 100, 8},
		{"no-limit", -1, 8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			c.Limits.MaxMemory = int64(tt.limit * est)
			if tt.limit < 0 {
				c.Limits.MaxMemory = -1
			}
			if got := memoryBoundParallel(8, []stack.Config{c, c}, [][]fio.Spec{specs, specs}); got != tt.want {
				t.Errorf("memoryBoundParallel(8) = %d, want %d (estimate %.0f B, limit %d B)", got, tt.want, est, c.Limits.MaxMemory)
			}
		})
	}
}
