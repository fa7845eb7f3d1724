package stack

// DefaultWakeMigrate is the Placement.WakeMigrate of the zero value: 2 % of wake-ups
// move an unpinned fio thread. Source: an assumption, not a measurement — the share of
// wake-ups that find the previous CPU busy, taken as the per-CPU busy time of a 16-vCPU
// VM at 5000 IOPS: interrupt handling on the channel CPUs, kblockd queue runs on every
// CPU, fio's own per-I/O work (a few % each; the dispatch CPU cost model alone charges
// 0.1–0.4 %, it has no interrupt or fio cost). Results that depend on it say so: seed
// 000's per-hctx wal gives 113 / 107 / 73 / 76 / 45 IOPS at 0.5 / 1 / 2 / 5 / 20 %
// (BENCHMARKS.md, storvsc sensitivity).
const DefaultWakeMigrate = 0.02

// Placement models where the scheduler runs an unpinned fio thread when it wakes up
// (kernel/sched/fair.c select_task_rq_fair: wake_affine, then select_idle_sibling). A
// woken task stays on its previous CPU when that CPU is idle; when it is not, the task
// goes to the waking CPU or another idle CPU of the cache domain. The model does not
// track CPU idleness closely enough to evaluate that rule, so it draws: at each
// wake-up, with probability WakeMigrate, the thread moves to a CPU drawn uniformly from
// its allowed CPUs. A thread pinned to one CPU (cpus_allowed) never moves. The submitting
// CPU picks the ctx and hctx (and, with per-hctx tags, the tag pool) a request uses,
// so a moving thread leaves requests on several hctxs and shares hctxs with others.
type Placement struct {
	// WakeMigrate is the probability, [0, 1], that a woken fio thread runs on a
	// uniformly drawn allowed CPU; 0 = DefaultWakeMigrate, negative = never move.
	WakeMigrate float64
}

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
	p := j.place.wakeMigrate()
	if p <= 0 || len(j.allowed) < 2 || j.placeRn.Float64() >= p {
		return
	}
	j.runCPU = j.allowed[j.placeRn.IntN(len(j.allowed))]
}
