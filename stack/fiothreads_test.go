package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestSchedulerTasks: PlaceFair with its opt-in tasks (placement in try_to_wake_up,
// kblockd's kworkers and fio's parent process) stays deterministic — two runs give the
// same I/O counts — and a size-bound run ends (fio's parent loop stops with the last
// job).
func TestSchedulerTasks(t *testing.T) {
	tests := []struct {
		name string
		job  string
	}{
		{"time-based", "[global]\nioengine=libaio\nrw=randread\nbs=4k\ndirect=1\niodepth=8\ntime_based\nruntime=50ms\nsize=64M\n[j]\nnumjobs=3\n"},
		{"size-bound", "[global]\nioengine=io_uring\nrw=read\nbs=64k\ndirect=1\niodepth=4\nsize=4M\n[j]\nnumjobs=3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Placement = stack.Placement{KworkerTasks: true, FioParent: true}
			specs := parse(t, tt.job)
			a, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			b, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Jobs {
				x, y := a.Jobs[i].Fio.Read().TotalIOs, b.Jobs[i].Fio.Read().TotalIOs
				if x != y || x == 0 {
					t.Errorf("job %d: I/Os %d then %d: want equal and non-zero", i, x, y)
				}
			}
		})
	}
}

// TestSchedulerTasksBadInput: the fio parent's fields out of range are errors naming
// the field and its range.
func TestSchedulerTasksBadInput(t *testing.T) {
	tests := []struct {
		name string
		p    stack.Placement
		want string
	}{
		{"cpu", stack.Placement{FioParent: true, FioParentCPU: 99}, "stack: Placement.FioParentCPU 99 out of range [0, 4] (1 + CPU, 0 = default)"},
		{"run", stack.Placement{FioParentRun: -1}, "stack: Placement.FioParentRun -1 ns out of range [0, 10050000] (0 = default)"},
		{"slowdown", stack.Placement{FioParentSlowdown: -2}, "stack: Placement.FioParentSlowdown -2 out of range [0, 10000] (≤ 1 = none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Placement = tt.p
			if err := cfg.Validate(); err == nil || err.Error() != tt.want {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}
