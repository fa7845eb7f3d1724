package stack

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestSelectTaskRqFair checks PlaceFair's wake-up rule, select_task_rq_fair (WF_TTWU,
// not sync) in one LLC of 4 CPUs, case by case: wake_affine_idle, wake_affine_weight
// and select_idle_sibling's order (target, prev, then the first idle CPU after target).
func TestSelectTaskRqFair(t *testing.T) {
	const now = sim.Time(5)
	all := []int{0, 1, 2, 3}
	tests := []struct {
		name      string
		busy      []int // CPUs with a task running (taskUntil past now)
		waiting   map[int]int
		prev      int
		waker     int
		wakerTask bool
		allowed   []int
		want      int
	}{
		{"prev-idle-stays", nil, nil, 1, 3, false, all, 1},
		{"waker-unknown-prev-idle-stays", nil, nil, 2, -1, false, all, 2},
		{"prev-busy-irq-waker-idle-goes-to-waker", []int{1}, nil, 1, 3, false, all, 3},
		{"prev-busy-waker-same-scans-after-prev", []int{1}, nil, 1, 1, false, all, 2},
		{"prev-busy-next-busy-scan-wraps", []int{1, 2, 3}, nil, 1, 1, false, all, 0},
		{"all-busy-stays-on-prev", []int{0, 1, 2, 3}, nil, 1, 1, false, all, 1},
		{"waker-task-busy-prev-idle-stays", []int{0}, nil, 1, 0, true, all, 1},
		// wake_affine_weight: (1+1)*100 = 200 < 2*108 = 216 moves to the waker, but the
		// waker's CPU runs the waker (busy), so select_idle_sibling scans after it
		{"weight-moves-target-then-scan", []int{0, 1}, map[int]int{1: 1}, 1, 0, true, all, 2},
		{"waker-not-allowed-ignored", []int{1}, nil, 1, 3, false, []int{1, 2}, 2},
		{"pinned-scan-stays-in-allowed", []int{1, 2}, nil, 1, 3, false, []int{1, 2}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 4}}
			s := r.sched()
			for _, c := range tt.busy {
				s.taskUntil[c] = now + 10
			}
			for c, n := range tt.waiting {
				s.waiting[c] = n
			}
			if got := r.selectTaskRq(tt.prev, tt.waker, tt.wakerTask, tt.allowed, now); got != tt.want {
				t.Errorf("selectTaskRq(prev %d, waker %d) = %d, want %d", tt.prev, tt.waker, got, tt.want)
			}
		})
	}
}

// TestBalanceEligibility: a thread that waits for its CPU is cache-hot for the migration
// cost and is pulled only at a tick after that (DefaultMigrationCost 0.5 ms,
// DefaultSchedTick 4 ms: a wait from 1 ms is eligible at 4 ms, from 3.7 ms at 8 ms).
func TestBalanceEligibility(t *testing.T) {
	for _, tt := range []struct {
		since, want sim.Time
	}{
		{1 * sim.Millisecond, 4 * sim.Millisecond},
		{3500 * sim.Microsecond, 4 * sim.Millisecond},
		{3700 * sim.Microsecond, 8 * sim.Millisecond},
	} {
		j := &job{waitSince: tt.since}
		if got := j.eligibleAt(); got != tt.want {
			t.Errorf("wait from %v: eligible at %v, want %v", tt.since, got, tt.want)
		}
	}
}
