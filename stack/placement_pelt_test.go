package stack

import (
	"math"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// peltClosedForm is load_avg after a nice-0 task, starting from load_sum 0 at a period
// boundary, is runnable for busy whole periods and then not for idle ones: the kernel
// counts the first period decayed by y^busy, so load_sum = 1024 × Σ_{k=1..busy} y^k,
// load_avg = 1024 × load_sum / (LOAD_AVG_MAX − 1024), then × y^idle.
func peltClosedForm(busy, idle int) float64 {
	y := math.Pow(0.5, 1.0/32)
	sum := 1024 * y * (1 - math.Pow(y, float64(busy))) / (1 - y)
	return 1024 * sum / (peltLoadAvgMax - 1024) * math.Pow(y, float64(idle))
}

// TestPeltDecay checks peltAvg against the closed form for a task busy for N periods
// and idle for M, updated once per phase and at every 100 µs step (the kernel's
// integer arithmetic truncates: within 1 % + 2 of 1024).
func TestPeltDecay(t *testing.T) {
	tests := []struct {
		name       string
		busy, idle int
	}{
		{"busy-1", 1, 0},
		{"busy-8", 8, 0},
		{"busy-32-half-of-max", 32, 0},
		{"busy-100", 100, 0},
		{"busy-400-saturates", 400, 0},
		{"busy-400-idle-32-halves", 400, 32},
		{"busy-400-idle-64-quarter", 400, 64},
		{"busy-10-idle-5", 10, 5},
		{"busy-3-idle-100", 3, 100},
		{"busy-1000-idle-2100-gone", 1000, 2100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := peltClosedForm(tt.busy, tt.idle)
			tol := 0.01*want + 2
			busyEnd := sim.Time(tt.busy) * peltPeriod
			end := busyEnd + sim.Time(tt.idle)*peltPeriod

			var once peltAvg
			once.update(busyEnd, true)
			once.update(end, false)

			var step peltAvg
			const dt = 100 * sim.Microsecond
			crossed := false
			for now := dt; now <= end; now += dt {
				if now <= busyEnd {
					step.update(now, true)
					continue
				}
				if !crossed {
					step.update(busyEnd, true)
					crossed = true
				}
				step.update(now, false)
			}
			if !crossed {
				step.update(busyEnd, true)
			}
			step.update(end, false)

			for _, c := range []struct {
				how string
				got uint64
			}{{"one update per phase", once.avg}, {"100 µs steps", step.avg}} {
				if math.Abs(float64(c.got)-want) > tol {
					t.Errorf("%s: load_avg %d, closed form %.1f (± %.1f)", c.how, c.got, want, tol)
				}
			}
		})
	}
}

// TestPeltHalfLife checks y^32 = 1/2: a saturated load halves in 32 periods of sleep.
func TestPeltHalfLife(t *testing.T) {
	var sa peltAvg
	sa.update(1000*peltPeriod, true)
	full := sa.avg
	sa.update(1032*peltPeriod, false)
	if half := sa.avg; half < full/2-2 || half > full/2+2 {
		t.Errorf("after 32 idle periods load_avg %d, want %d / 2", half, full)
	}
}

// TestWakeAffinePELT: wake_affine_weight's decision flips between the instantaneous
// task counts (PELTLoad off) and the PELT loads (on). 4 CPUs, LLCs {0, 1} {2, 3};
// the woken thread p was last on CPU 1 (prev), the waker is CPU 2 (a completion).
func TestWakeAffinePELT(t *testing.T) {
	const now = 100 * sim.Millisecond
	all := []int{0, 1, 2, 3}
	type task struct {
		cpu  int
		load uint64
	}
	tests := []struct {
		name    string
		busy    []int       // CPUs with a task running now
		waiting map[int]int // tasks queued now
		pLoad   uint64      // the woken thread's load_avg
		others  []task      // other threads' loads by CPU
		off, on int         // selected CPU without and with PELTLoad
	}{
		{
			name: "heavy-prev-light-waker-goes-to-waker-llc",
			busy: []int{0, 1}, waiting: map[int]int{2: 1},
			pLoad:  100,
			others: []task{{1, 1000}, {0, 1000}, {2, 50}},
			// counts: (1 + 1) × 100 = 200 ≥ 1 × 108 → prev; LLC {0, 1} busy → 1.
			// PELT: (50 + 100) × 100 = 15000 < (1000 + 100 − 100) × 108 → waker 2,
			// busy → 3 (idle, in the waker's LLC)
			off: 1, on: 3,
		},
		{
			name:   "light-prev-heavy-wakee-stays",
			busy:   []int{0, 1},
			pLoad:  900,
			others: []task{{1, 20}, {0, 1000}},
			// counts: (0 + 1) × 100 = 100 < 1 × 108 → waker 2 (idle).
			// PELT: (0 + 900) × 100 = 90000 ≥ (20 + 900 − 900) × 108 → prev; LLC
			// {0, 1} busy → 1
			off: 2, on: 1,
		},
		{
			name: "both-agree-waker",
			busy: []int{0, 1}, waiting: map[int]int{1: 1},
			pLoad:  200,
			others: []task{{1, 1500}, {0, 1000}},
			// counts: (0 + 1) × 100 < 2 × 108; PELT: 20000 < 1500 × 108 → 2 both
			off: 2, on: 2,
		},
	}
	for _, tt := range tests {
		for _, on := range []bool{false, true} {
			r := &runner{cfg: Config{NrCPUs: 4}}
			r.cfg.CPU.Costs.CPUsPerLLC = 2
			r.cfg.Placement.PELTLoad = on
			s := r.sched()
			for _, c := range tt.busy {
				s.taskUntil[c] = now + 10
			}
			for c, n := range tt.waiting {
				s.waiting[c] = n
			}
			mk := func(cpu int, load uint64) *job {
				j := &job{r: r, place: r.cfg.Placement, runCPU: cpu, allowed: all}
				j.pelt = taskPelt{avg: peltAvg{last: now, avg: load}, started: true}
				r.jobs = append(r.jobs, j)
				return j
			}
			p := mk(1, tt.pLoad)
			for _, o := range tt.others {
				mk(o.cpu, o.load)
			}
			want := tt.off
			if on {
				want = tt.on
			}
			if got := r.selectTaskRqFor(p, 1, 2, false, all, nil, now); got != want {
				t.Errorf("%s, PELTLoad %v: selected CPU %d, want %d", tt.name, on, got, want)
			}
		}
	}
}

// TestNUMAPullAllowed: with Placement.NUMAImbalancePull an idle CPU of another LLC
// (node) pulls a thread waiting on CPU 1 when the source node is overloaded (more
// running tasks than CPUs and runnable or utilisation past imbalance_pct, 117) while
// the destination node has spare capacity; otherwise unless the destination node,
// counting the pulled task, runs no more than imb_numa_nr tasks (the number of LLCs:
// 2 with 2 × 4 CPUs, 4 with 4 × 2) and the two nodes' running tasks differ by at most
// 2 (before halving, as 6.1 does); one LLC never refuses.
func TestNUMAPullAllowed(t *testing.T) {
	const now = sim.Millisecond
	tests := []struct {
		name    string
		llc     int
		busy    []int       // CPUs with a task running now
		waiting map[int]int // tasks queued now
		want    bool
	}{
		{"empty-node-difference-2-refused", 4, []int{0, 1}, nil, false},
		{"one-task-on-node-difference-2-refused", 4, []int{0, 1, 2, 6}, nil, false},
		{"empty-node-difference-4-allowed", 4, []int{0, 1, 2, 3}, nil, true},
		{"two-tasks-on-node-allowed", 4, []int{0, 1, 6, 7}, nil, true},
		{"overloaded-source-large-difference-allowed", 4, []int{0, 1, 2, 3}, map[int]int{1: 2, 2: 1}, true},
		{"overloaded-source-within-allowance-allowed", 2, []int{0, 1, 4}, map[int]int{1: 1}, true},
		{"not-overloaded-source-within-allowance-refused", 2, []int{0, 4}, map[int]int{1: 1}, false},
		{"overloaded-source-destination-without-spare-refused", 2, []int{0, 1, 4}, map[int]int{1: 1, 4: 1}, false},
		{"one-llc-allowed", 0, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 8}}
			r.cfg.CPU.Costs.CPUsPerLLC = tt.llc
			s := r.sched()
			for _, c := range tt.busy {
				s.taskUntil[c] = now + 10
			}
			for c, k := range tt.waiting {
				s.waiting[c] = k
			}
			if got := r.numaPullAllowed(1, 5, now); got != tt.want {
				t.Errorf("numaPullAllowed(1 → 5) = %v, want %v", got, tt.want)
			}
		})
	}
}
