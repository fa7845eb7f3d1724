package stack

import (
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// TestSelectTaskRqFair checks PlaceFair's wake-up rule, select_task_rq_fair (WF_TTWU,
// not sync) on 4 CPUs, case by case: wake_affine_idle, wake_affine_weight and
// select_idle_sibling's order (target, prev, recent_used_cpu, then the first idle CPU
// after target in target's LLC). llc is CPUsPerLLC (0: one LLC); recent is 1 + the
// task's recent_used_cpu before the wake-up and wantRecent after it.
func TestSelectTaskRqFair(t *testing.T) {
	const now = sim.Time(5)
	all := []int{0, 1, 2, 3}
	tests := []struct {
		name       string
		busy       []int // CPUs with a task running (taskUntil past now)
		waiting    map[int]int
		prev       int
		waker      int
		wakerTask  bool
		allowed    []int
		want       int
		llc        int
		recent     int
		wantRecent int
	}{
		{"prev-idle-stays", nil, nil, 1, 3, false, all, 1, 0, 0, 0},
		{"waker-unknown-prev-idle-stays", nil, nil, 2, -1, false, all, 2, 0, 0, 0},
		{"prev-busy-irq-waker-idle-goes-to-waker", []int{1}, nil, 1, 3, false, all, 3, 0, 0, 0},
		{"prev-busy-waker-same-scans-after-prev", []int{1}, nil, 1, 1, false, all, 2, 0, 0, 2},
		{"prev-busy-next-busy-scan-wraps", []int{1, 2, 3}, nil, 1, 1, false, all, 0, 0, 0, 2},
		{"all-busy-stays-on-prev", []int{0, 1, 2, 3}, nil, 1, 1, false, all, 1, 0, 0, 2},
		{"waker-task-busy-prev-idle-stays", []int{0}, nil, 1, 0, true, all, 1, 0, 0, 0},
		// wake_affine_weight: (1+1)*100 = 200 < 2*108 = 216 moves to the waker, but the
		// waker's CPU runs the waker (busy), so select_idle_sibling scans after it
		{"weight-moves-target-then-scan", []int{0, 1}, map[int]int{1: 1}, 1, 0, true, all, 2, 0, 0, 2},
		{"waker-not-allowed-ignored", []int{1}, nil, 1, 3, false, []int{1, 2}, 2, 0, 0, 2},
		{"pinned-scan-stays-in-allowed", []int{1, 2}, nil, 1, 3, false, []int{1, 2}, 1, 0, 0, 2},
		// two LLCs {0, 1} {2, 3}: select_idle_cpu scans only target's LLC
		{"llc-scan-finds-none-stays-on-target", []int{0, 1}, nil, 1, 1, false, all, 1, 2, 0, 2},
		{"llc-scan-finds-idle-sibling", []int{1}, nil, 1, 1, false, all, 0, 2, 0, 2},
		// wake_affine_idle: an idle waker in another LLC is not taken for its idleness;
		// wake_affine_weight then compares loads (0 + 1) × 100 < 1 × 108: the waker
		{"idle-waker-other-llc-by-weight", []int{1}, nil, 1, 3, false, all, 3, 2, 0, 0},
		// a loaded waker CPU (a task waiting there): (1 + 1) × 100 ≥ 1 × 108 keeps prev as
		// the target, and prev's LLC has no idle CPU
		{"idle-waker-other-llc-prev-light", []int{0, 1}, map[int]int{3: 1}, 1, 3, false, all, 1, 2, 0, 2},
		// recent_used_cpu: an idle recent CPU in target's LLC before the scan
		{"recent-idle-taken-before-scan", []int{1}, nil, 1, 1, false, all, 3, 0, 4, 2},
		{"recent-busy-scan", []int{1, 3}, nil, 1, 1, false, all, 2, 0, 4, 2},
		{"recent-other-llc-ignored", []int{1}, nil, 1, 1, false, all, 0, 2, 3, 2},
		{"recent-not-read-when-prev-idle", nil, nil, 1, 3, false, all, 1, 0, 4, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 4}}
			r.cfg.CPU.Costs.CPUsPerLLC = tt.llc
			s := r.sched()
			for _, c := range tt.busy {
				s.taskUntil[c] = now + 10
			}
			for c, n := range tt.waiting {
				s.waiting[c] = n
			}
			recent := tt.recent
			if got := r.selectTaskRq(tt.prev, tt.waker, tt.wakerTask, tt.allowed, &recent, now); got != tt.want {
				t.Errorf("selectTaskRq(prev %d, waker %d) = %d, want %d", tt.prev, tt.waker, got, tt.want)
			}
			if recent != tt.wantRecent {
				t.Errorf("recent_used_cpu after: %d, want %d (1 + CPU)", recent, tt.wantRecent)
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

// TestWakePlacementStillRunning: try_to_wake_up places a woken task only once it has
// left its CPU. A wake-up that comes while the work the thread charged when it last ran
// is not done finds it still on the run queue (ttwu_runnable) and leaves it where it
// is, even though the CPU looks busy (the busy time is the thread's own); once that
// work is done, a CPU busy with another task sends it elsewhere.
func TestWakePlacementStillRunning(t *testing.T) {
	type got struct{ CPU, Migrations, Woken2 int }
	for _, tt := range []struct {
		name      string
		ranUntil  sim.Time // the thread's own work on CPU 1
		taskUntil sim.Time // the last task's work on CPU 1
		atWakeup  bool
		want      got
	}{
		{"own-work-not-done-stays", sim.Millisecond, sim.Millisecond, false, got{CPU: 1}},
		{"own-work-not-done-stays-at-wakeup", sim.Millisecond, sim.Millisecond, true, got{CPU: 1}},
		{"other-task-busy-moves", 0, sim.Millisecond, false, got{CPU: 2, Migrations: 1}},
		{"other-task-busy-moves-at-wakeup", 0, sim.Millisecond, true, got{CPU: 2, Migrations: 1, Woken2: 1}},
		{"prev-idle-stays", 0, 0, false, got{CPU: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 4, Placement: Placement{PlaceWhenRun: !tt.atWakeup}}, eng: sim.NewEngine()}
			r.sched().taskUntil[1] = tt.taskUntil
			j := &job{r: r, runCPU: 1, allowed: []int{0, 1, 2, 3}, place: r.cfg.Placement, ranUntil: tt.ranUntil}
			if tt.atWakeup {
				j.wokenAt(1)
			} else {
				j.wakePlacement(1)
			}
			if diff := cmp.Diff(tt.want, got{CPU: j.runCPU, Migrations: j.migrations, Woken2: r.sched().woken[2]}); diff != "" {
				t.Errorf("placement (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAtWakeup: try_to_wake_up placement is the default; PlaceWhenRun restores the
// place-when-run model unless a scheduler-task switch needs the wake-up; the deprecated
// random rule never places at the wake-up.
func TestAtWakeup(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    Placement
		want bool
	}{
		{"default", Placement{}, true},
		{"deprecated-switch-no-effect", Placement{WakeupPlacement: true}, true},
		{"place-when-run", Placement{PlaceWhenRun: true}, false},
		{"place-when-run-with-kworkers", Placement{PlaceWhenRun: true, KworkerTasks: true}, true},
		{"place-when-run-with-parent", Placement{PlaceWhenRun: true, FioParent: true}, true},
		{"random-rule", Placement{Rule: PlaceRandom}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.atWakeup(); got != tt.want {
				t.Errorf("atWakeup() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestForkLocalLLC: by default, on two LLCs of 4 CPUs, the forked jobs fill the
// parent's LLC (CPU 0's, the parent counted there) and then share its CPUs;
// cpus_allowed outside that LLC is honoured; with one LLC the rule changes nothing;
// Placement.ForkSpread spreads them over the machine.
func TestForkLocalLLC(t *testing.T) {
	for _, tt := range []struct {
		name    string
		llc     int
		on      bool
		allowed []int
		jobs    int
		want    []int
	}{
		{"fork-spread-over-all", 4, false, nil, 6, []int{0, 1, 2, 3, 4, 5}},
		{"on-fills-local-llc-then-shares", 4, true, nil, 6, []int{1, 2, 3, 0, 1, 2}},
		{"on-allowed-other-llc-honoured", 4, true, []int{5, 6}, 3, []int{5, 6, 5}},
		{"on-one-llc-no-effect", 0, true, nil, 6, []int{0, 1, 2, 3, 4, 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 8, Placement: Placement{ForkSpread: !tt.on}}}
			r.cfg.CPU.Costs.CPUsPerLLC = tt.llc
			load := make([]int, 8)
			var got []int
			for i := 0; i < tt.jobs; i++ {
				s := &fio.Spec{Name: "j", CPUsAllowed: tt.allowed}
				c, err := r.pickCPU(s, load)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, c)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CPUs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNohzKickNrRunning: with Placement.NohzKickNrRunning a waiting thread counts as
// sharing its CPU (rq->nr_running >= 2, nohz_balancer_kick) only when another modelled
// task is running, woken or waiting there; interrupt work alone does not count.
func TestNohzKickNrRunning(t *testing.T) {
	const now = sim.Time(100)
	for _, tt := range []struct {
		name  string
		other func(k *job)
		want  bool
	}{
		{"alone", func(k *job) { k.runCPU = 0 }, false},
		{"other-waiting", func(k *job) { k.cpuWait = true }, true},
		{"other-woken", func(k *job) { k.woken = true }, true},
		{"other-running", func(k *job) { k.ranUntil = now + 1 }, true},
		{"other-done", func(k *job) { k.ranUntil = now }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 2}}
			j := &job{r: r, runCPU: 1}
			k := &job{r: r, runCPU: 1}
			tt.other(k)
			r.jobs = []*job{j, k}
			if got := j.sharesCPU(now); got != tt.want {
				t.Errorf("sharesCPU = %v, want %v", got, tt.want)
			}
			j.cpuWait = true // counted once whether or not waitCPU has counted it yet
			if got := j.sharesCPU(now); got != tt.want {
				t.Errorf("waiting: sharesCPU = %v, want %v", got, tt.want)
			}
		})
	}
}
