package stack

import "github.com/blkmq/blkmq/sim"

// DefaultWakeMigrate is PlaceRandom's rate when Placement.WakeMigrate is 0: 2 % of wake-ups
// move an unpinned fio thread. Source: an assumption, not a measurement — the share of
// wake-ups that find the previous CPU busy, taken as the per-CPU busy time of a 16-vCPU
// VM at 5000 IOPS: interrupt handling on the channel CPUs, kblockd queue runs on every
// CPU, fio's own per-I/O work (a few % each; the dispatch CPU cost model alone charges
// 0.1–0.4 %, it has no interrupt or fio cost). Results that depend on it say so: seed
// 000's per-hctx wal gives 113 / 107 / 73 / 76 / 45 IOPS at 0.5 / 1 / 2 / 5 / 20 %
// (BENCHMARKS.md, storvsc sensitivity).
const DefaultWakeMigrate = 0.02

// Placement models where the scheduler runs an unpinned fio thread when it wakes up
// (kernel/sched/fair.c select_task_rq_fair). A thread pinned to one CPU
// (cpus_allowed) never moves. The submitting CPU picks the ctx and hctx (and, with
// per-hctx tags, the tag pool) a request uses, so a moving thread leaves requests on
// several hctxs and shares hctxs with others. Two rules:
//
//   - PlaceRandom (the zero value): at each wake-up, with probability WakeMigrate,
//     the thread moves to a CPU drawn uniformly from its allowed CPUs. The rate is
//     an assumption (DefaultWakeMigrate).
//   - PlaceSelectIdle: the decision of 6.1's select_task_rq_fair for a wake-up
//     (WF_TTWU) in one last-level-cache domain, evaluated on the model's CPU state.
//     The woken task keeps its previous CPU when that CPU is idle
//     (select_idle_sibling: available_idle_cpu(prev) returns prev; wake_affine_idle
//     returns prev when prev is idle); otherwise it goes to the first idle allowed
//     CPU after prev, wrapping (select_idle_cpu's for_each_cpu_wrap from target + 1).
//     When no CPU is idle, select_idle_sibling leaves it on prev, but the first CPU
//     to go idle pulls a runnable task from a busy one (newidle_balance); the model
//     folds that in by placing the thread on the allowed CPU whose work ends first
//     (prev on a tie). A CPU is idle when the model has no work charged to it at the wake-up instant
//     (dispatch.Host.CPUFreeAt): the model charges block-layer and driver CPU costs,
//     not fio's user-space time or interrupt entry, so it sees CPUs idle more often
//     than the kernel does, and threads move less. wake_wide (a waker flipping
//     between many wakees) and the load-based wake_affine_weight are not modelled:
//     the wakers here are completion contexts, for which want_affine holds and the
//     idle checks decide. Periodic load balancing is not modelled.
//
// PlaceSelectIdle is not the default yet: a thread that waits for its busy CPU
// without sleeping (the model's CPU turn) is never re-placed, because the
// newidle_balance pull happens only at its next wake-up; with four unpinned jobs
// on a zero-latency null_blk the job that shares the interrupt CPU then gets 12 %
// of the others' I/O (stack's TestSubmitterTakesItsCPUTurn), where the kernel's
// idle balance would move it.
type Placement struct {
	// Rule selects the placement rule; the zero value is PlaceRandom.
	Rule PlacementRule
	// WakeMigrate is PlaceRandom's probability, [0, 1], that a woken fio thread
	// runs on a uniformly drawn allowed CPU; 0 = DefaultWakeMigrate, negative =
	// never move.
	WakeMigrate float64
}

// PlacementRule selects how Placement picks a woken thread's CPU.
type PlacementRule uint8

const (
	// PlaceRandom moves a woken thread to a uniformly drawn allowed CPU with
	// probability WakeMigrate (an assumption).
	PlaceRandom PlacementRule = iota
	// PlaceSelectIdle applies select_task_rq_fair's idle-CPU rules (see Placement).
	PlaceSelectIdle
)

// wakeMigrate returns the effective probability.
func (p Placement) wakeMigrate() float64 {
	if p.WakeMigrate == 0 {
		return DefaultWakeMigrate
	}
	return p.WakeMigrate
}

// placementSeed seeds each job's placement stream (plus the job's index). The draws
// use neither Config.Seed (the workload) nor Config.JitterSeed: runs of sequential
// jobs stay identical across seeds (stack's determinism tests).
const placementSeed = 0x51ace0000

// placementOptions returns the run's placement switches (Config.Placement).
func (r *runner) placementOptions() Placement { return r.cfg.Placement }

// wakePlacement applies Placement to the job's thread after a wake-up: a blocked
// submission resuming (blk_mq_get_tag) or the thread woken to reap completions.
func (j *job) wakePlacement() {
	if len(j.allowed) < 2 {
		return
	}
	if j.place.Rule == PlaceSelectIdle {
		j.runCPU = j.selectIdleCPU(j.r.eng.Now())
		return
	}
	p := j.place.wakeMigrate()
	if p <= 0 || j.placeRn.Float64() >= p {
		return
	}
	j.runCPU = j.allowed[j.placeRn.IntN(len(j.allowed))]
}

// selectIdleCPU is PlaceSelectIdle's choice at now: the previous CPU if idle, else
// the first idle allowed CPU after it (wrapping), else the allowed CPU whose work
// ends first (the previous one on a tie).
func (j *job) selectIdleCPU(now sim.Time) int {
	prev := j.runCPU
	h := j.q.Host()
	if h.CPUFreeAt(prev) <= now {
		return prev
	}
	at := 0
	for i, c := range j.allowed {
		if c > prev {
			at = i
			break
		}
	}
	first, firstAt := prev, h.CPUFreeAt(prev)
	for k := range j.allowed {
		c := j.allowed[(at+k)%len(j.allowed)]
		t := h.CPUFreeAt(c)
		if c != prev && t <= now {
			return c
		}
		if t < firstAt {
			first, firstAt = c, t
		}
	}
	return first
}
