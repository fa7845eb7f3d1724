package stack

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

func TestGroupClassify(t *testing.T) {
	tests := []struct {
		name           string
		cpus, running  int
		util, runnable uint64
		want           groupType
	}{
		{"fewer-tasks-than-cpus-has-spare", 4, 3, 3 * 1024, 3 * 1024, groupHasSpare},
		{"one-task-per-cpu-busy-fully-busy", 4, 4, 4 * 1024, 4 * 1024, groupFullyBusy},
		{"one-task-per-cpu-light-has-spare", 4, 4, 2 * 1024, 4 * 1024, groupHasSpare},
		{"more-tasks-runnable-past-pct-overloaded", 1, 2, 1024, 2 * 1024, groupOverloaded},
		{"more-tasks-runnable-within-pct-not-overloaded", 4, 5, 3 * 1024, 4 * 1024, groupHasSpare},
		{"more-tasks-util-past-pct-overloaded", 4, 5, 4 * 1024, 4 * 1024, groupOverloaded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sgStats{cpus: tt.cpus, sumNrRunning: tt.running, util: tt.util, runnable: tt.runnable, capacity: uint64(tt.cpus) * 1024}
			if got := groupClassify(&s); got != tt.want {
				t.Errorf("groupClassify = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestAdjustNUMAImbalance(t *testing.T) {
	tests := []struct {
		name                string
		imb                 uint64
		dstRunning, imbNUMA int
		want                uint64
	}{
		{"small-imbalance-light-destination-cancelled", 2, 1, 2, 0},
		{"imbalance-3-kept", 3, 1, 2, 3},
		{"busy-destination-kept", 2, 3, 2, 2},
		{"destination-at-imb-numa-nr-cancelled", 1, 2, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := adjustNUMAImbalance(tt.imb, tt.dstRunning, tt.imbNUMA); got != tt.want {
				t.Errorf("adjustNUMAImbalance(%d, %d, %d) = %d, want %d", tt.imb, tt.dstRunning, tt.imbNUMA, got, tt.want)
			}
		})
	}
}

// balanceRig is an 8-CPU runner (two LLCs of 4) whose threads are placed by hand:
// running ones (their charged work ends after now) and waiting ones (waiting for
// their CPU since waitedFor before now).
type balanceThread struct {
	cpu       int
	waiting   bool
	waitedFor sim.Time
}

func balanceRig(threads []balanceThread, now sim.Time) *runner {
	r := &runner{cfg: Config{NrCPUs: 8}, eng: sim.NewEngine()}
	r.cfg.CPU.Costs.CPUsPerLLC = 4
	r.cfg.Placement.RebalanceDomains = true
	r.rebalanceInit()
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for _, th := range threads {
		j := &job{r: r, runCPU: th.cpu, allowed: all, place: r.cfg.Placement}
		j.fillEv.j = j
		if th.waiting {
			j.cpuWait, j.fillWait, j.waitSince = true, true, now-th.waitedFor
			r.sched().waiting[th.cpu]++
		} else {
			j.ranUntil = now + sim.Millisecond
		}
		r.jobs = append(r.jobs, j)
	}
	return r
}

func TestLoadBalance(t *testing.T) {
	const now = 100 * sim.Millisecond
	cold, hot := sim.Millisecond, 100*sim.Microsecond
	tests := []struct {
		name    string
		threads []balanceThread
		dst     int
		level   sdLevel
		idle    cpuIdleType
		calls   int // load_balance calls before the one checked
		want    int // index of the thread moved, −1 none
	}{
		{"mc-newidle-pulls-cold-waiter", []balanceThread{{0, false, 0}, {0, true, cold}}, 1, sdMC, cpuNewlyIdle, 0, 1},
		{"mc-newidle-refuses-hot-waiter", []balanceThread{{0, false, 0}, {0, true, hot}}, 1, sdMC, cpuNewlyIdle, 0, -1},
		{"mc-newidle-refuses-hot-waiter-after-failures", []balanceThread{{0, false, 0}, {0, true, hot}}, 1, sdMC, cpuNewlyIdle, 3, -1},
		{"mc-periodic-hot-waiter-after-cache-nice-tries", []balanceThread{{0, false, 0}, {0, true, hot}}, 1, sdMC, cpuIdle, 2, 1},
		{"mc-periodic-one-task-each-balanced", []balanceThread{{0, false, 0}, {1, false, 0}}, 2, sdMC, cpuIdle, 0, -1},
		{"numa-difference-2-within-allowance", []balanceThread{{0, false, 0}, {0, true, cold}}, 4, sdNUMA, cpuIdle, 0, -1},
		{"numa-difference-3-pulls-waiter", []balanceThread{{0, false, 0}, {0, true, cold}, {1, false, 0}}, 4, sdNUMA, cpuIdle, 0, 1},
		{"numa-newidle-difference-3-pulls-waiter", []balanceThread{{0, false, 0}, {0, true, cold}, {1, false, 0}}, 6, sdNUMA, cpuNewlyIdle, 0, 1},
		{"numa-not-first-idle-cpu-of-node", []balanceThread{{0, false, 0}, {0, true, cold}, {1, false, 0}}, 5, sdNUMA, cpuIdle, 0, -1},
		{"numa-running-tasks-fail", []balanceThread{{0, false, 0}, {1, false, 0}, {2, false, 0}}, 4, sdNUMA, cpuIdle, 3, -1},
		{"numa-running-tasks-active-balance-at-fifth-failure", []balanceThread{{0, false, 0}, {1, false, 0}, {2, false, 0}}, 4, sdNUMA, cpuIdle, 4, 0},
		{"numa-newidle-never-active-balance", []balanceThread{{0, false, 0}, {1, false, 0}, {2, false, 0}}, 4, sdNUMA, cpuNewlyIdle, 8, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := balanceRig(tt.threads, now)
			for range tt.calls {
				if j, _ := r.loadBalance(tt.dst, tt.level, tt.idle, now); j != nil {
					t.Fatalf("an earlier load_balance moved a thread")
				}
			}
			j, _ := r.loadBalance(tt.dst, tt.level, tt.idle, now)
			got := -1
			for i, k := range r.jobs {
				if k == j {
					got = i
				}
			}
			if got != tt.want {
				t.Errorf("load_balance(%d, level %d) moved thread %d, want %d", tt.dst, tt.level, got, tt.want)
			}
		})
	}
}

func TestSDIntervals(t *testing.T) {
	r := &runner{cfg: Config{NrCPUs: 28}}
	r.cfg.CPU.Costs.CPUsPerLLC = 14
	r.rebalanceInit()
	// sd_init: balance_interval = span weight in ms, in jiffies (HZ=250 rounds 14 ms up
	// to 4 jiffies); doubled on each balanced outcome up to twice min_interval
	if got, want := r.sdInterval(sdMC, 3), 16*sim.Millisecond; got != want {
		t.Errorf("MC interval %v, want %v", got, want)
	}
	if got, want := r.sdInterval(sdNUMA, 3), 28*sim.Millisecond; got != want {
		t.Errorf("NUMA interval %v, want %v", got, want)
	}
	for range 3 {
		r.lbBalanced(3, sdNUMA, cpuIdle)
		r.lbBalanced(3, sdMC, cpuIdle)
	}
	if got, want := r.sdInterval(sdNUMA, 3), 56*sim.Millisecond; got != want {
		t.Errorf("NUMA interval after balanced outcomes %v, want %v", got, want)
	}
	// MC: 14 ms doubled to 28 ms (7 jiffies), not 2 × 16 ms
	if got, want := r.sdInterval(sdMC, 3), 28*sim.Millisecond; got != want {
		t.Errorf("MC interval after balanced outcomes %v, want %v", got, want)
	}
	if got, want := r.imbNUMANr(), 2; got != want {
		t.Errorf("imb_numa_nr %d, want %d", got, want)
	}
}

// TestRebalanceIdleCPUs: at a tick where every level is due, the idle CPUs balance
// their own domains, lowest first, in CPU order. With an idle CPU left in the waiting
// thread's LLC (CPU 2), its MC level pulls the thread (a group of one CPU running two
// tasks); with node 0's CPUs all busy, the first idle CPU of node 1 (CPU 4) pulls it at
// the NUMA level (5 tasks against none: past the NUMA allowance). The pulled thread's
// pending resumption is replaced by one at once on its new CPU.
func TestRebalanceIdleCPUs(t *testing.T) {
	const now = 112 * sim.Millisecond // a multiple of every level's interval
	cold := sim.Millisecond
	type got struct {
		CPU, Migrations, Pending int
		CPUWait                  bool
		Stats                    rebalanceStats
	}
	for _, tt := range []struct {
		name    string
		threads []balanceThread
		want    got
	}{
		// pending: the first balance tick (scheduled by the rig's first use of the
		// scheduler state) and the pulled thread's resumption, the old one cancelled
		{"mc-idle-sibling-pulls", []balanceThread{{0, true, cold}, {0, false, 0}, {1, false, 0}},
			got{CPU: 2, Migrations: 1, Pending: 2, Stats: rebalanceStats{PeriodicPulls: [2]int{1, 0}}}},
		{"numa-first-idle-cpu-of-other-node-pulls", []balanceThread{{0, true, cold}, {0, false, 0}, {1, false, 0}, {2, false, 0}, {3, false, 0}},
			got{CPU: 4, Migrations: 1, Pending: 2, Stats: rebalanceStats{PeriodicPulls: [2]int{0, 1}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := balanceRig(tt.threads, now)
			w := r.jobs[0]
			w.turnAt = now + sim.Millisecond
			w.scheduleFill(now + sim.Millisecond)
			r.rebalanceIdleCPUs(now)
			g := got{CPU: w.runCPU, Migrations: w.migrations, Pending: r.eng.Pending(), CPUWait: w.cpuWait, Stats: r.cpuSched.bal.stats}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("after the tick (-want +got):\n%s", diff)
			}
			if w.turnAt != now {
				t.Errorf("pulled thread resumes at %v, want %v", w.turnAt, now)
			}
		})
	}
}
