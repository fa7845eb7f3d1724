package stack

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

// TestFioParentLoop: fio's parent wakes from its usleep on its own CPU (the hrtimer's
// CPU, waker = prev) and stays there while the CPU is idle; on a busy CPU
// select_idle_sibling moves it to the first idle CPU after it, wrapping. Each pass
// occupies its CPU for FioParentRunFor(jobs) (emulated: × the slowdown), and the loop
// stops once every job has finished.
func TestFioParentLoop(t *testing.T) {
	const now = sim.Time(1000)
	tests := []struct {
		name     string
		busy     []int
		from     int
		slowdown float64
		want     int
		wantRun  sim.Time
	}{
		{"idle-stays", nil, 1, 0, 1, 5 * sim.Microsecond},
		{"busy-moves-to-next-idle", []int{1}, 1, 0, 2, 5 * sim.Microsecond},
		{"busy-wraps", []int{2, 3}, 2, 0, 0, 5 * sim.Microsecond},
		{"all-busy-stays", []int{0, 1, 2, 3}, 3, 0, 3, 0}, // its CPU's earlier work ends later
		{"emulated-run-scaled", nil, 0, 10, 0, 50 * sim.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 4, Placement: Placement{FioParent: true, FioParentSlowdown: tt.slowdown}}, eng: sim.NewEngine()}
			r.jobs = []*job{{}}
			s := r.sched()
			for _, c := range tt.busy {
				s.taskUntil[c] = now + sim.Millisecond
			}
			fp := &fioParent{r: r, cpu: tt.from}
			fp.Fire(now)
			if fp.cpu != tt.want {
				t.Errorf("parent on CPU %d, want %d", fp.cpu, tt.want)
			}
			if tt.wantRun > 0 && s.taskUntil[tt.want] != now+tt.wantRun {
				t.Errorf("CPU %d occupied until %v, want %v", tt.want, s.taskUntil[tt.want], now+tt.wantRun)
			}
			if got := r.eng.Pending(); got != 1 {
				t.Errorf("%d events pending after a pass, want 1 (the next wake-up)", got)
			}
		})
	}
	r := &runner{cfg: Config{NrCPUs: 4, Placement: Placement{FioParent: true}}, eng: sim.NewEngine()}
	r.jobs = []*job{{finished: true}}
	(&fioParent{r: r}).Fire(now)
	if got := r.eng.Pending(); got != 0 {
		t.Errorf("%d events pending once every job finished, want 0", got)
	}
}

// TestWakeupPlacementEnqueues: by default the thread is placed when woken
// and enqueued on the chosen CPU at once (that CPU is no longer idle for another
// wake-up), until it runs.
func TestWakeupPlacementEnqueues(t *testing.T) {
	r := &runner{cfg: Config{NrCPUs: 4}, eng: sim.NewEngine()} // placement in try_to_wake_up: the default
	s := r.sched()
	s.taskUntil[1] = sim.Millisecond // prev busy: the wake-up scans to CPU 2
	j := &job{r: r, runCPU: 1, allowed: []int{0, 1, 2, 3}, place: r.cfg.Placement}
	j.wokenAt(1)
	if j.runCPU != 2 {
		t.Fatalf("woken onto CPU %d, want 2", j.runCPU)
	}
	if diff := cmp.Diff([]int{0, 0, 1, 0}, s.woken); diff != "" {
		t.Errorf("enqueued woken threads (-want +got):\n%s", diff)
	}
	if r.schedIdle(2, 0) {
		t.Error("CPU 2 idle while the woken thread waits to run there")
	}
	j.wokenRuns()
	if diff := cmp.Diff([]int{0, 0, 0, 0}, s.woken); diff != "" {
		t.Errorf("after the thread ran (-want +got):\n%s", diff)
	}
}
