package stack_test

import (
	"testing"
	"time"

	"github.com/blkmq/blkmq/stack"
)

// TestInterruptEndsRunAtModelTime: a closed Limits.Interrupt ends the run at the
// first check, with the results so far: each job's window ends at the model time
// reached (fio's runtime after SIGINT), it says why, and Result.Interrupted is set.
// A job waiting behind a stonewall never started and has an empty window.
func TestInterruptEndsRunAtModelTime(t *testing.T) {
	for _, tc := range []struct {
		name, job string
	}{
		{"time-bound", "[a]\nioengine=libaio\niodepth=8\nrw=randread\ntime_based\nruntime=100\n"},
		{"size-bound", "[a]\nioengine=libaio\niodepth=8\nrw=randread\nsize=1t\n"},
		{"phased", "[a]\nioengine=libaio\niodepth=8\nrw=randread\ntime_based\nruntime=100\n[b]\nstonewall\nrw=read\ntime_based\nruntime=1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			stop := make(chan struct{})
			close(stop)
			cfg.Limits.Interrupt = stop
			cfg.Limits.MaxEvents = -1
			res, err := stack.Run(cfg, parse(t, tc.job))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Interrupted {
				t.Fatal("Result.Interrupted not set")
			}
			if res.End <= 0 || res.End > 10e9 {
				t.Fatalf("run ended at %v, want early (the first check)", res.End)
			}
			a := res.Jobs[0]
			if a.Fio.Window <= 0 || a.Fio.Window > time.Duration(res.End) {
				t.Errorf("job a window %v, want (0, %v]", a.Fio.Window, time.Duration(res.End))
			}
			if a.Fio.Read().TotalIOs == 0 {
				t.Error("job a: no I/O reported")
			}
			if a.Stopped == "" {
				t.Error("job a: Stopped does not say it was interrupted")
			}
			if len(res.Jobs) > 1 && res.Jobs[1].Fio.Window != 0 {
				t.Errorf("job b (never started): window %v, want 0", res.Jobs[1].Fio.Window)
			}
		})
	}
}

// TestInterruptNotClosedChangesNothing: an Interrupt channel that is never closed
// leaves the result as without one.
func TestInterruptNotClosedChangesNothing(t *testing.T) {
	specs := parse(t, "[a]\nioengine=libaio\niodepth=4\nrw=randread\ntime_based\nruntime=20ms\n")
	want, err := stack.Run(baseConfig(), specs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig()
	cfg.Limits.Interrupt = make(chan struct{})
	got, err := stack.Run(cfg, parse(t, "[a]\nioengine=libaio\niodepth=4\nrw=randread\ntime_based\nruntime=20ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Interrupted || got.End != want.End || got.Events != want.Events || got.Jobs[0].Fio.Read().TotalIOs != want.Jobs[0].Fio.Read().TotalIOs {
		t.Errorf("with an open Interrupt: end %v events %d ios %d, want %v %d %d", got.End, got.Events, got.Jobs[0].Fio.Read().TotalIOs,
			want.End, want.Events, want.Jobs[0].Fio.Read().TotalIOs)
	}
}
