package stack

import "github.com/blkmq/blkmq/sim"

// DefaultWakeMigrate is PlaceRandom's rate when Placement.WakeMigrate is 0: 2 % of
// wake-ups move an unpinned fio thread to a uniformly drawn CPU.
//
// Deprecated: the rate has no source; it was the model's placement before PlaceFair
// (the default now), which derives every move from the scheduler's rules. It is kept
// only for PlaceRandom, to reproduce earlier figures.
const DefaultWakeMigrate = 0.02

// Scheduler constants of PlaceFair. Each states its source.
const (
	// DefaultMigrationCost is sysctl_sched_migration_cost (kernel/sched/fair.c, 6.1:
	// 500000 ns): task_hot treats a task that ran less than this long ago as cache-hot
	// and can_migrate_task refuses to pull it; newidle_balance also gives up when the
	// CPU's average idle period is shorter. Sourced (the kernel's default).
	DefaultMigrationCost = 500 * sim.Microsecond
	// DefaultSchedTick is the scheduler tick, 1/HZ: scheduler_tick →
	// trigger_load_balance → nohz_balancer_kick is where a busy CPU asks an idle CPU
	// to pull its waiting task. 4 ms is CONFIG_HZ=250, the value of Debian's and
	// Ubuntu's x86 kernels of the 5.x/6.1 era; an assumption for a VM whose
	// configuration the source does not give (sensitivity ×0.5 / ×2 in bench).
	DefaultSchedTick = 4 * sim.Millisecond
	// wakeAffineImbalancePct is the LLC (MC) domain's imbalance_pct, 117 (sd_init in
	// kernel/sched/topology.c); wake_affine_weight biases prev_cpu by half the
	// excess: 100 + (117 − 100) / 2 = 108 against the waker's 100 (WA_BIAS). Sourced.
	wakeAffineImbalancePct = 117
)

// Placement models where the scheduler runs an unpinned fio thread or io-wq worker
// when it wakes up and while it waits for its CPU. A thread pinned to one CPU
// (cpus_allowed) never moves. The submitting CPU picks the ctx and hctx (and, with
// per-hctx tags, the tag pool) a request uses, so where threads run decides which
// hctxs they share.
//
// PlaceFair (the zero value) follows 6.1's kernel/sched/fair.c (no SMT, symmetric
// capacities) on the CPU model's last-level caches (dispatch.CPUCosts.CPUsPerLLC; 0 =
// one LLC, as the vCPUs of a cloud VM share):
//
//   - Wake-up, try_to_wake_up → select_task_rq_fair(WF_TTWU, not sync): a task that
//     has not left its CPU yet (the wake-up comes before the work it charged when it
//     last ran is done: p->on_rq, ttwu_runnable) is not placed at all. Otherwise the
//     waker's CPU is the CPU that ran try_to_wake_up — the completion that freed the
//     tag (blk_mq_get_tag sleep), the completion that posted the event (io_getevents /
//     io_uring_enter wait), or the submitting thread (an idle io-wq worker woken by
//     io_wqe_activate_free_worker). want_affine holds (wake_wide needs the wakee to
//     flip between more than the LLC's size of wakees; these tasks wake one or two)
//     and the waker CPU is allowed, so when waker ≠ prev, wake_affine picks the
//     target: wake_affine_idle — the waker CPU is idle (an interrupt that came in on
//     an idle CPU: available_idle_cpu checks the run queue, not interrupt work) and
//     shares prev's LLC → prev if prev is idle, else the waker CPU; else an idle prev;
//     otherwise wake_affine_weight — the waker CPU if (load(waker) + 1) × 100 <
//     load(prev without the task) × 108, else prev. Then select_idle_sibling(prev,
//     target): target if idle; prev if idle and in target's LLC; the task's
//     recent_used_cpu if idle, in target's LLC and neither prev nor target (replaced by
//     prev from then on; wake_up_new_task starts it at the forking CPU); else the first
//     idle allowed CPU of target's LLC after target, wrapping (select_idle_cpu's
//     for_each_cpu_wrap from target + 1); else target. The task is enqueued on the
//     chosen CPU at the wake-up (ttwu_queue), so the CPU is not idle for other
//     wake-ups until the task runs, one wake-up latency later (dispatch.Timing).
//   - A new io-wq worker (create_io_worker → wake_up_new_task, WF_FORK →
//     find_idlest_cpu): the first idle CPU after its creator's, wrapping; the
//     creator's CPU if none is idle.
//   - Idle balance of a thread that waits for its busy CPU (runnable, not running):
//     can_migrate_task refuses it while task_hot, i.e. until it has waited
//     DefaultMigrationCost. After that an idle CPU pulls it — at the waiting CPU's
//     next scheduler tick (nohz_balancer_kick: a CPU with a runnable CFS task whose
//     capacity interrupts reduce, or with two tasks, kicks the idle-load balancer,
//     which pulls to an idle CPU; _nohz_idle_balance / active balance), or, when
//     another thread waits on the same CPU (nr_running ≥ 2 sets rd->overload), as soon
//     as an allowed CPU goes idle (newidle_balance). The destination is the first
//     allowed CPU after the waiting one, wrapping, that has no task and no charged
//     work.
//
// "Idle" is available_idle_cpu: no modelled task (fio thread, io-wq worker) running,
// waiting or woken onto the CPU. A task runs on a CPU until the work charged there
// when it last submitted is done; interrupt, completion and kblockd work do not make a
// CPU busy for the scheduler's idle test (the kernel's kworkers and ksoftirqd are
// modelled as tasks only with KworkerTasks). load(c) is the number of modelled tasks on
// c now, where the kernel uses PELT averages (cpu_load); capacity reduction by
// interrupt time in wake_affine_weight is not modelled, nor the per-CPU-kthread
// stacking rule of select_idle_sibling (no modelled kthread wakes a thread), SIS_UTIL's
// scan limit (the LLC is lightly used), newidle_balance's avg_idle test, the ilb's rate
// limit (nohz.next_balance, balance_interval) and periodic balancing of running tasks.
// Before v5.13 (89aafd67f28c) recent_used_cpu was replaced only when it was taken and
// set to the waker's CPU for the waking task; the 6.1 rule is used for every era.
// Nothing is random: a placement depends only on the model state.
//
// PlaceRandom is the earlier free rate (deprecated, see DefaultWakeMigrate).
type Placement struct {
	// Rule selects the placement rule; the zero value is PlaceFair.
	Rule PlacementRule
	// WakeMigrate is PlaceRandom's probability, [0, 1], that a woken fio thread
	// runs on a uniformly drawn allowed CPU; 0 = DefaultWakeMigrate, negative =
	// never move. A non-zero WakeMigrate selects PlaceRandom whatever Rule says.
	//
	// Deprecated: an assumption without a source; use PlaceFair.
	WakeMigrate float64
	// MigrationCost is PlaceFair's task_hot window (ns); 0 = DefaultMigrationCost.
	MigrationCost sim.Time
	// Tick is PlaceFair's scheduler tick (ns), when a waiting thread can be pulled
	// by the idle-load balancer; 0 = DefaultSchedTick.
	Tick sim.Time
	// PlaceWhenRun chooses a woken thread's or io-wq worker's CPU when it runs, one
	// wake-up latency after try_to_wake_up, from the CPUs' state then, and does not
	// enqueue it at the wake-up: the model of rounds 3–4, kept to reproduce their
	// figures. The kernel places the task inside try_to_wake_up (select_task_rq is
	// called on the waking CPU before the completion that woke it goes on) and
	// enqueues it there at once, which is the default.
	PlaceWhenRun bool
	// WakeupPlacement was the opt-in switch for placement in try_to_wake_up.
	//
	// Deprecated: wake-up placement is the default; PlaceWhenRun turns it off. The
	// field has no effect.
	WakeupPlacement bool
	// The switches below are tasks PlaceFair's idle test does not see by default (off:
	// the model of earlier rounds, bit for bit). Each is a kernel or fio mechanism;
	// measured against the oracle's unpinned cases they do not improve the model as a
	// whole (README, placement), so they are opt-in.
	//
	// KworkerTasks makes a CPU whose kblockd worker is runnable or running not idle
	// (idle_cpu: rq->curr, rq->nr_running, rq->ttwu_pending; kblockd is a per-CPU
	// workqueue whose work runs in kworker tasks). With PlaceWhenRun it still places
	// at the wake-up (the wake-up sees the kworkers queued before it, not those its
	// completion queues after it).
	KworkerTasks bool
	// ForkSpread places the forked fio jobs on the least loaded CPU of the whole
	// machine (lowest first) instead of the forking CPU's last-level cache: the model
	// before round 5, kept to reproduce its figures. By default (no effect with one
	// LLC) the jobs go to the LLC of the CPU that forks them (fio's parent, assumed on
	// CPU 0), as wake_up_new_task → select_task_rq_fair(WF_FORK) → find_idlest_cpu
	// does: fio's parent waits for each child to post startup_sem before it forks the
	// next (backend.c run_threads), so the earlier children sleep and count as no
	// running task; find_idlest_group keeps the task on the local node while its
	// running tasks stay under the NUMA imbalance allowance (5.11
	// allow_numa_imbalance: under a quarter of the domain; 6.1 adjust_numa_imbalance:
	// imb_numa_nr), and among the local CPUs prefers idle ones of low utilisation
	// (modelled: least loaded, lowest first; the parent's CPU counts as loaded). More
	// jobs than the LLC's CPUs then share CPUs. Not modelled: the periodic load balance
	// of running tasks, which in the kernel would spread CPU-busy jobs over the nodes
	// afterwards; jobs that sleep most of the time (tag sleepers: few running tasks at
	// each balance) stay.
	ForkSpread bool
	// ForkIdlestGroup places each forked fio job as 6.1's find_idlest_cpu does at the
	// lowest domain (the LLC's, groups of one CPU without SMT) while fio's parent runs
	// on its CPU and forks the jobs one after the other: wake_up_new_task →
	// select_task_rq_fair(WF_FORK) → find_idlest_group → update_sg_wakeup_stats gives
	// the forking CPU (the local group, running the parent) no idle CPU, every CPU whose
	// jobs sleep on startup_sem one idle CPU, and find_idlest_group then pushes the task
	// off the local group whenever an allowed CPU of the LLC is idle (group_has_spare:
	// local_sgs.idle_cpus < idlest_sgs.idle_cpus); update_pick_idlest takes, among the
	// idle single-CPU groups, the one of lowest group_util, the first in the group
	// order (from the forking CPU's, ascending, wrapping) on a tie. Utilisation is
	// modelled from the placed jobs: each sleeping child leaves its start-up run as
	// blocked util on its CPU (cfs_rq->avg.util_avg keeps blocked tasks' util,
	// decaying), so a CPU with fewer children has less, and of two with as many the one
	// whose last child was placed earlier has decayed longer. So n jobs on n CPUs (the
	// source-000 layout: 16 jobs, 16 vCPUs) leave CPU 0 without a job and put the last
	// job on CPU 1 with the first (the forking CPU is FioParentCPU when set, else CPU
	// 0, assumed). Off: the rule above (ForkSpread's or the LLC's least
	// loaded CPU, the parent counted only with more than one LLC), the model before
	// round 9. Applies only to a machine with one LLC (CPUsPerLLC 0 or ≥ NrCPUs) and
	// not with ForkSpread.
	ForkIdlestGroup bool
	// NohzKickNrRunning restricts the default idle balance of a waiting thread (not
	// RebalanceDomains) to 6.1's condition for kicking the idle-load balancer from a
	// busy CPU's tick without interrupt-time capacity accounting: nohz_balancer_kick
	// kicks for rq->nr_running >= 2, and then load_balance (calculate_imbalance:
	// (busiest nr_running − local nr_running) / 2 tasks to move) moves a task only
	// from a CPU with two or more; a CPU running one task plus hard-interrupt work
	// (scsi_debug's hrtimer completions, HRTIMER_MODE_REL_PINNED, and
	// blk_mq_complete_request on a multi-queue device complete in hardirq context, no
	// ksoftirqd) has nr_running 1 and its task is not pulled (check_cpu_capacity
	// needs irq time accounting, which the oracle's guest kernel lacks). So the
	// thread is pulled only while another modelled task (rqTasks: a fio thread or
	// io-wq worker running, woken or waiting there; a kblockd worker with
	// KworkerTasks) shares its CPU. Off (the default): the waiting thread is pulled
	// whatever it waits behind, the model before round 9.
	NohzKickNrRunning bool
	// FioParent runs fio's parent process as a task (stack/fiothreads.go): its 10 ms
	// reap loop occupies a CPU for FioParentRun at every pass. With PlaceWhenRun it
	// still places at the wake-up.
	FioParent bool
	// FioParentCPU is 1 + the CPU fio's parent process starts on; 0 = the least
	// loaded CPU after the jobs are placed (lowest first).
	FioParentCPU int
	// FioParentRun is the CPU time (ns) of one loop of the parent; 0 =
	// FioParentRunFor(number of jobs).
	FioParentRun sim.Time
	// FioParentSlowdown multiplies the parent's CPU time (Config.Emulated sets it to
	// the emulation slowdown: fio's code is emulated too); values ≤ 1 leave it.
	FioParentSlowdown float64
	// PELTLoad makes wake_affine_weight compare the CPUs' PELT load averages
	// (cpu_load: cfs_rq->avg.load_avg, and the woken thread's task_h_load), as 6.1's
	// kernel/sched/fair.c does, instead of the number of modelled tasks on them now.
	// Each fio thread keeps a load_avg (kernel/sched/pelt.c: runnable time decayed by y
	// per 1024 µs period, y^32 = 1/2; a nice-0 weight of 1024) that stays on its CPU
	// while it sleeps and moves with it when it migrates. Idle tests
	// (available_idle_cpu in wake_affine_idle and select_idle_sibling, idle balance)
	// stay instantaneous, as in the kernel. Not counted in the loads: io-wq workers
	// (their wake-ups keep the task-count rule), fio's parent and kworkers. Off by
	// default: on claim 001 wake_affine_weight is never reached (completions come in
	// on the woken thread's own CPU, waker = prev), so the switch changes nothing
	// there (README, placement).
	PELTLoad bool
	// NUMAImbalancePull makes the idle balance of a waiting thread (balancePull) take
	// an idle CPU of the thread's own LLC first (rebalance_domains balances the lowest
	// domain, the LLC's, first) and pull it to another LLC (the model's NUMA node) only
	// when 6.1's calculate_imbalance lets it (numaPullAllowed): always when the source
	// node is overloaded (group_is_overloaded: more runnable tasks than CPUs and its
	// utilisation or runnable average past capacity and imbalance_pct; the kernel then
	// pulls by utilisation, or one task to a newly idle CPU, without the NUMA
	// allowance), and otherwise unless adjust_numa_imbalance cancels it (the
	// destination node, counting the pulled task, runs no more than imb_numa_nr tasks
	// and the nodes differ by at most 2 running tasks; fork placement applies the
	// same allowance). Off (the default, the model of round 5): the first idle allowed
	// CPU after the waiting one, wrapping, whatever its LLC. Opt-in (README,
	// placement).
	NUMAImbalancePull bool
	// RebalanceDomains replaces the idle balance above (a waiting thread pulled at its
	// CPU's tick by the first idle CPU after it) with 6.1's load balancer per
	// sched-domain level (stack/placement_balance.go), in which the pulling CPU
	// balances its own domains, lowest first: MC (its LLC, groups of one CPU) and, with
	// more than one LLC, NUMA (groups = LLCs). Two paths, as in kernel/sched/fair.c:
	//
	//   - periodic: at each scheduler tick, every idle CPU whose domain is due
	//     (rebalance_domains: last_balance + balance_interval, balance_interval from
	//     sd_init = the span's weight in ms, doubled when balanced up to twice that;
	//     run by the CPU's own tick or the nohz idle balance) runs
	//     load_balance(CPU_IDLE) at that level if it is the first idle CPU of its
	//     group (should_we_balance);
	//   - newly idle: a CPU whose task goes to sleep runs newidle_balance, its levels
	//     lowest first, stopping once a task was pulled.
	//
	// load_balance follows find_busiest_group (group_classify, update_sd_pick_busiest,
	// prefer_sibling at NUMA, the idle-CPU and one-task gates), calculate_imbalance
	// (with adjust_numa_imbalance and imb_numa_nr at NUMA) and find_busiest_queue, then
	// detaches one waiting thread that is not cache-hot (task_hot: it has waited at
	// least MigrationCost, or nr_balance_failed > cache_nice_tries); after more than
	// cache_nice_tries + 2 failed periodic balances of a task imbalance it moves the
	// busiest CPU's running thread (active balance). Run-queue lengths are the distinct
	// modelled tasks on each CPU at that instant; utilisation and runnable averages are
	// instantaneous (or PELT loads with PELTLoad). Not modelled: busy CPUs' own
	// periodic balance (busy_factor 16: every 224 ms for 14 CPUs), newidle_balance's
	// avg_idle test against max_newidle_lb_cost, NUMA balancing's locality tests
	// (migrate_degrades_locality, fbq_type), and CPU capacity reduced by interrupt
	// time (check_cpu_capacity: the nohz kick and the immediate active balance of a
	// CPU's only task), nor ksoftirqd as a task — so a thread waiting behind completion
	// work alone is never pulled, where the default's balance pulls it. Off by default:
	// on claim 001 it gives a robust miss, and on the oracle's single-LLC cases it
	// moves figures both ways (README, placement).
	RebalanceDomains bool
	// WorkerIdleBalance lets PlaceFair's idle balance pull an io-wq worker that waits
	// for its busy CPU, as it pulls a waiting fio thread: 6.1's io-wq workers are
	// ordinary CFS tasks allowed on every CPU of the node (io_init_new_worker →
	// set_cpus_allowed_ptr(wqe->cpu_mask), cpumask_of_node ∩ the cpuset), so once a
	// runnable worker has waited the migration cost (task_hot) an idle CPU pulls it —
	// at the next scheduler tick (nohz_balancer_kick), or, when another worker waits
	// on the same CPU (rd->overload), as soon as an allowed CPU goes idle
	// (newidle_balance → load_balance → detach_tasks). The destination is the first
	// CPU after the waiting one, wrapping, with no task and no charged work. Off (the
	// default): a worker waits for its CPU first come first served and never moves
	// while runnable (the model up to round 9). Opt-in: measured in round 9 (iowq9),
	// not yet the default.
	WorkerIdleBalance bool
}

// PlacementRule selects how Placement picks a thread's CPU.
type PlacementRule uint8

const (
	// PlaceFair applies select_task_rq_fair at wake-ups and idle balance to waiting
	// threads (see Placement).
	PlaceFair PlacementRule = iota
	// PlaceRandom moves a woken fio thread to a uniformly drawn allowed CPU with
	// probability WakeMigrate.
	//
	// Deprecated: an assumed rate; use PlaceFair.
	PlaceRandom
)

// PlaceSelectIdle was the opt-in select_task_rq_fair idle rule; PlaceFair replaces it.
//
// Deprecated: use PlaceFair (the same rule plus the waker CPU and idle balance).
const PlaceSelectIdle = PlaceFair

// atWakeup reports whether wake-ups are placed in try_to_wake_up (the default; not
// with PlaceWhenRun unless a task switch needs it).
func (p Placement) atWakeup() bool {
	return !p.random() && (!p.PlaceWhenRun || p.KworkerTasks || p.FioParent)
}

// random reports whether the deprecated PlaceRandom rule applies.
func (p Placement) random() bool { return p.Rule == PlaceRandom || p.WakeMigrate != 0 }

// wakeMigrate returns PlaceRandom's effective probability.
func (p Placement) wakeMigrate() float64 {
	if p.WakeMigrate == 0 {
		return DefaultWakeMigrate
	}
	return p.WakeMigrate
}

// migrationCost returns the effective task_hot window.
func (p Placement) migrationCost() sim.Time {
	if p.MigrationCost > 0 {
		return p.MigrationCost
	}
	return DefaultMigrationCost
}

// tick returns the effective scheduler tick.
func (p Placement) tick() sim.Time {
	if p.Tick > 0 {
		return p.Tick
	}
	return DefaultSchedTick
}

// placementSeed seeds each job's PlaceRandom stream (plus the job's index). The draws
// use neither Config.Seed (the workload) nor Config.JitterSeed: runs of sequential
// jobs stay identical across seeds (stack's determinism tests).
const placementSeed = 0x51ace0000

// placementOptions returns the run's placement switches (Config.Placement).
func (r *runner) placementOptions() Placement { return r.cfg.Placement }

// cpuSched is the scheduler's view of each CPU: when the work of the last modelled
// task that ran there ends, and how many threads wait there for their turn.
type cpuSched struct {
	taskUntil []sim.Time
	waiting   []int
	woken     []int          // threads woken onto the CPU that have not run yet
	all       []int          // every CPU (io-wq workers' allowed set)
	bal       rebalanceState // Placement.RebalanceDomains (placement_balance.go)
}

// sched returns the run's scheduler state, creating it on first use.
func (r *runner) sched() *cpuSched {
	s := &r.cpuSched
	if s.taskUntil == nil {
		s.taskUntil = make([]sim.Time, r.cfg.NrCPUs)
		s.waiting = make([]int, r.cfg.NrCPUs)
		s.woken = make([]int, r.cfg.NrCPUs)
		s.all = r.allCPUs()
		r.rebalanceStart()
	}
	return s
}

// taskRan records that a modelled task ran on cpu: it occupies the CPU until the work
// charged there so far is done, which taskRan returns (the task's own "still on
// its CPU" horizon, stillRunning).
func (r *runner) taskRan(cpu int) sim.Time {
	s := r.sched()
	t := r.host.CPUFreeAt(cpu)
	s.taskUntil[cpu] = max(s.taskUntil[cpu], t)
	return t
}

// stillRunning is try_to_wake_up's early exit for a task that has not left its CPU
// yet: a wake-up at now before the end of the work the task charged when it last ran
// (ranUntil, from taskRan) finds it still on the run queue (p->on_rq: ttwu_runnable
// just makes it running again) or still switching out (p->on_cpu), so
// select_task_rq is not called and the task stays on its CPU. (The model charges a
// task's CPU time from the instant it runs, so its sleep begins, in the model's
// bookkeeping, before its CPU is done with it.)
func stillRunning(now, ranUntil sim.Time) bool { return now < ranUntil }

// nrRunning is the number of modelled tasks on cpu at now (running or waiting): fio
// threads, io-wq workers, fio's parent (Placement.FioParent) and, with
// Placement.KworkerTasks, a kblockd worker runnable or running there
// (dispatch.Host.KworkerBusy).
func (r *runner) nrRunning(cpu int, now sim.Time) int {
	s := r.sched()
	n := s.waiting[cpu] + s.woken[cpu]
	if s.taskUntil[cpu] > now {
		n++
	}
	if r.kworkerTask(cpu, now) {
		n++
	}
	return n
}

// kworkerTask reports whether, with Placement.KworkerTasks, a kblockd worker of
// any host is runnable or running on cpu at now (dispatch.Host.KworkerBusy): a
// task the scheduler counts there.
func (r *runner) kworkerTask(cpu int, now sim.Time) bool {
	if !r.cfg.Placement.KworkerTasks {
		return false
	}
	for _, h := range r.hosts {
		if h.KworkerBusy(cpu, now) {
			return true
		}
	}
	return false
}

// schedIdle is available_idle_cpu: no modelled task on cpu at now.
func (r *runner) schedIdle(cpu int, now sim.Time) bool { return r.nrRunning(cpu, now) == 0 }

// selectTaskRq is select_task_rq_fair for a wake-up (WF_TTWU, not sync) of a task last
// on prev, woken from waker (−1: unknown, treated as prev); wakerTask says the waker
// is a running task (its CPU is not idle), not an interrupt. recent holds 1 + the
// task's p->recent_used_cpu (0: none), which select_idle_sibling reads and replaces;
// nil for a caller that keeps none.
//
// The last-level caches come from the CPU model (dispatch.CPUCosts.CPUsPerLLC, 0 = one
// LLC): wake_affine runs in the lowest domain spanning waker and prev (SD_WAKE_AFFINE
// holds on the NUMA level of a two-socket machine, whose node distance is below
// node_reclaim_distance), and select_idle_sibling looks only inside target's LLC
// (sd_llc).
func (r *runner) selectTaskRq(prev, waker int, wakerTask bool, allowed []int, recent *int, now sim.Time) int {
	return r.selectTaskRqFor(nil, prev, waker, wakerTask, allowed, recent, now)
}

// selectTaskRqFor is selectTaskRq for the woken fio thread p (nil: a task that keeps
// no PELT load), whose load wake_affine_weight reads with Placement.PELTLoad.
func (r *runner) selectTaskRqFor(p *job, prev, waker int, wakerTask bool, allowed []int, recent *int, now sim.Time) int {
	target := prev
	if waker >= 0 && waker != prev && contains(allowed, waker) {
		target = r.wakeAffine(p, prev, waker, wakerTask, now)
	}
	return r.selectIdleSibling(prev, target, waker, wakerTask, allowed, recent, now)
}

// wakeAffine is wake_affine (sync = 0): wake_affine_idle — an idle waker CPU (an
// interrupt) that shares prev's cache returns prev if prev is idle, else the waker;
// otherwise an idle prev is kept (the test added by d8fcb81f1acf, v5.10) — then
// wake_affine_weight; anything but the waker CPU means prev. p is the woken fio thread
// (nil: an io-wq worker), whose PELT load wake_affine_weight reads with
// Placement.PELTLoad.
func (r *runner) wakeAffine(p *job, prev, waker int, wakerTask bool, now sim.Time) int {
	if !wakerTask && r.schedIdle(waker, now) && r.sameLLC(waker, prev) {
		if r.schedIdle(prev, now) {
			return prev
		}
		return waker
	}
	if r.schedIdle(prev, now) {
		return prev
	}
	if p != nil && p.peltOn() {
		if r.wakeAffineWeightPELT(prev, waker, p, now) {
			return waker
		}
		return prev
	}
	lw := r.nrRunning(waker, now)
	if wakerTask {
		lw = max(lw, 1)
	}
	thisEff := (lw + 1) * 100
	prevEff := r.nrRunning(prev, now) * (100 + (wakeAffineImbalancePct-100)/2)
	if thisEff < prevEff {
		return waker
	}
	return prev
}

// selectIdleSibling is select_idle_sibling(prev, target) (6.1, no SMT, symmetric
// capacities): target if idle; prev if it shares target's LLC and is idle; the task's
// recent_used_cpu if it differs from both, shares target's LLC, is allowed and idle
// (recent is replaced by prev once these tests are reached, 89aafd67f28c, v5.13);
// select_idle_cpu's scan of target's LLC from target + 1, wrapping; else target.
func (r *runner) selectIdleSibling(prev, target, waker int, wakerTask bool, allowed []int, recent *int, now sim.Time) int {
	idle := func(c int) bool { return !(wakerTask && c == waker) && r.schedIdle(c, now) }
	if idle(target) {
		return target
	}
	if prev != target && r.sameLLC(prev, target) && idle(prev) {
		return prev
	}
	if recent != nil {
		ru := *recent - 1
		*recent = prev + 1
		if ru >= 0 && ru != prev && ru != target && r.sameLLC(ru, target) && contains(allowed, ru) && idle(ru) {
			return ru
		}
	}
	if c := firstAfter(target, allowed, func(c int) bool { return r.sameLLC(c, target) && idle(c) }); c >= 0 {
		return c
	}
	return target
}

// sameLLC is cpus_share_cache: a and b share a last-level cache
// (dispatch.CPUCosts.CPUsPerLLC consecutive CPUs per LLC; 0 = all).
func (r *runner) sameLLC(a, b int) bool {
	n := r.cfg.CPU.Costs.CPUsPerLLC
	return n <= 0 || a/n == b/n
}

// wrapStart is the index in allowed (ascending) where for_each_cpu_wrap from cpu + 1
// starts: the first CPU above cpu, or 0 when there is none.
func wrapStart(cpu int, allowed []int) int {
	for i, c := range allowed {
		if c > cpu {
			return i
		}
	}
	return 0
}

// firstAfter returns the first CPU of allowed after cpu, wrapping (for_each_cpu_wrap
// from cpu + 1), other than cpu, for which ok holds; −1 if none.
func firstAfter(cpu int, allowed []int, ok func(int) bool) int {
	at := wrapStart(cpu, allowed)
	for k := range allowed {
		c := allowed[(at+k)%len(allowed)]
		if c != cpu && ok(c) {
			return c
		}
	}
	return -1
}

func contains(cpus []int, cpu int) bool {
	for _, c := range cpus {
		if c == cpu {
			return true
		}
	}
	return false
}

// wakePlacement places the job's thread after a wake-up from waker (a blocked
// submission resuming in blk_mq_get_tag, or the thread woken to reap completions).
func (j *job) wakePlacement(waker int) {
	if len(j.allowed) < 2 {
		return
	}
	if j.place.random() {
		j.contended = false
		p := j.place.wakeMigrate()
		if p <= 0 || j.placeRn.Float64() >= p {
			return
		}
		j.moveTo(j.allowed[j.placeRn.IntN(len(j.allowed))])
		return
	}
	j.contended = false
	if stillRunning(j.r.eng.Now(), j.ranUntil) {
		return
	}
	j.moveTo(j.r.selectTaskRqFor(j, j.runCPU, waker, false, j.allowed, &j.recentCPU, j.r.eng.Now()))
}

// moveTo runs the thread on cpu from now on, counting a migration if it changes
// (JobResult.Migrations).
func (j *job) moveTo(cpu int) {
	if cpu != j.runCPU {
		j.migrations++
		j.runCPU = cpu
	}
}

// wokenAt places the thread at its wake-up from waker (try_to_wake_up →
// select_task_rq_fair) and enqueues it on the chosen CPU, which is then not idle for
// other placements until the thread runs (wokenRuns).
func (j *job) wokenAt(waker int) {
	j.wokenRuns()
	j.wakePlacement(waker)
	j.peltAdvance()
	j.woken = true
	j.r.sched().woken[j.runCPU]++
}

// wokenRuns ends the enqueued-but-not-yet-running state of wokenAt.
func (j *job) wokenRuns() {
	if j.woken {
		j.peltAdvance()
		j.woken = false
		j.r.sched().woken[j.runCPU]--
	}
}

// waitCPU defers the submission loop while the thread's CPU is busy until t: fillEv
// resumes it at t (its turn), or earlier where PlaceFair's idle balance may pull it.
// It reports false when the balance moved the thread to an idle CPU at once (the
// caller submits there).
//
// The thread is contended from its first wait for the CPU after a sleep until it
// sleeps again (wakePlacement): a thread that shares its CPU with completion work
// (softirq work the kernel hands to ksoftirqd once it exceeds MAX_SOFTIRQ_TIME, so
// the CPU runs two tasks) keeps finding the CPU busy between short turns, and the
// kernel's balancer pulls it once it has been runnable there for the migration cost
// (task_hot) and a tick has come (nr_balance_failed beyond cache_nice_tries lets a
// hot task go, so a running thread is pulled as well as a waiting one).
func (j *job) waitCPU(now, t sim.Time) bool {
	if !j.contended {
		j.contended, j.waitSince = true, now
	}
	if !j.place.random() && len(j.allowed) > 1 && (now >= j.eligibleAt() || j.place.RebalanceDomains) {
		if c := j.balancePull(now); c >= 0 {
			j.contended = false
			j.moveTo(c)
			j.mmWake(c) // stack/mmswitch.go
			return false
		}
	}
	if !j.cpuWait {
		j.peltAdvance()
		j.cpuWait = true
		j.r.sched().waiting[j.runCPU]++
	}
	j.turnAt = t
	j.fillWait = true
	j.scheduleFill(j.nextBalance(now))
	return true
}

// eligibleAt is the first tick at which the contended thread is no longer cache-hot.
func (j *job) eligibleAt() sim.Time {
	tick := j.place.tick()
	return (j.waitSince + j.place.migrationCost() + tick - 1) / tick * tick
}

// endCPUWait ends the thread's wait for its CPU.
func (j *job) endCPUWait() {
	if j.cpuWait {
		j.peltAdvance()
		j.cpuWait = false
		j.r.sched().waiting[j.runCPU]--
	}
}

// nextBalance returns when the waiting thread next has its turn or may be pulled: the
// first tick after it stops being cache-hot, or (another thread waiting on its CPU)
// the first allowed CPU going idle after that, if earlier than its turn.
func (j *job) nextBalance(now sim.Time) sim.Time {
	at := j.turnAt
	if j.place.random() || len(j.allowed) < 2 {
		return at
	}
	from := max(now+1, j.waitSince+j.place.migrationCost())
	s := j.r.sched()
	if j.place.RebalanceDomains {
		// the periodic balance runs at the ticks for every idle CPU
		// (rebalanceIdleCPUs); the thread listens for the CPUs whose task goes to
		// sleep after it stops being cache-hot (newidle_balance) while its CPU has
		// another task
		if j.r.rqTasks(j.runCPU, now) > 1 {
			for _, c := range j.allowed {
				if f := s.taskUntil[c]; c != j.runCPU && f >= from && f < at {
					at = f
				}
			}
		}
		return at
	}
	tick := j.place.tick()
	at = min(at, max(j.eligibleAt(), (now+tick)/tick*tick))
	if s.waiting[j.runCPU] > 1 {
		for _, c := range j.allowed {
			if c == j.runCPU {
				continue
			}
			if f := max(j.r.host.CPUFreeAt(c), s.taskUntil[c]); f >= from && f < at {
				at = f
			}
		}
	}
	return at
}

// balancePull returns the idle CPU that pulls the waiting thread at now, or −1.
func (j *job) balancePull(now sim.Time) int {
	if j.place.RebalanceDomains {
		return j.newidlePull(now)
	}
	if now < j.eligibleAt() {
		return -1
	}
	if j.place.NohzKickNrRunning && !j.sharesCPU(now) {
		return -1
	}
	ok := func(c int) bool { return j.r.schedIdle(c, now) && j.r.host.CPUFreeAt(c) <= now }
	if !j.place.NUMAImbalancePull {
		return firstAfter(j.runCPU, j.allowed, ok)
	}
	if c := firstAfter(j.runCPU, j.allowed, func(c int) bool { return j.r.sameLLC(c, j.runCPU) && ok(c) }); c >= 0 {
		return c
	}
	return firstAfter(j.runCPU, j.allowed, func(c int) bool { return ok(c) && j.r.numaPullAllowed(j.runCPU, c, now) })
}

// sharesCPU reports whether another modelled task is on the waiting thread's CPU at
// now: its run queue holds two or more tasks, counting the thread (rqTasks, nr_running
// for nohz_balancer_kick and calculate_imbalance).
func (j *job) sharesCPU(now sim.Time) bool {
	n := j.r.rqTasks(j.runCPU, now)
	if !j.runnable(now) {
		n++ // the thread itself, before waitCPU counts it as waiting
	}
	return n >= 2
}

// numaPullAllowed is the NUMA level of the idle balance (6.1 find_busiest_group →
// calculate_imbalance, Placement.NUMAImbalancePull) for a pull from src's LLC to
// dst, an idle CPU of another LLC (the model's node); the NUMA domain does not share
// package resources. Two cases, as calculate_imbalance takes them when the local
// (dst's) group has spare capacity:
//
//   - the busiest (src's) node is overloaded (group_is_overloaded, see
//     numaNodeOverloaded): the kernel pulls by utilisation, or one task from a newly
//     idle CPU, without adjust_numa_imbalance, so the pull is allowed;
//   - otherwise, with SD_PREFER_SIBLING on the child (LLC) domain, the imbalance is the
//     difference of the two nodes' running tasks (sum_nr_running: nrRunning summed
//     over the LLC); adjust_numa_imbalance cancels it while the destination, counting
//     the pulled task, runs no more than imb_numa_nr tasks (allow_numa_imbalance) and
//     the difference is at most NUMA_IMBALANCE_MIN = 2; only then is it halved (the
//     tasks to move), so the pull is refused exactly when it is cancelled.
//
// The local group is taken to have spare capacity when its running tasks are fewer
// than its CPUs (group_has_capacity's first test); when it is not (the kernel's fully
// busy / overloaded local branches, not modelled) the allowance is applied as before.
// imb_numa_nr (build_sched_domains, for the first domain above the LLC: its span over
// the child's, nr_llcs, when that is more than one) is NrCPUs / the size of dst's LLC,
// rounded down as the kernel's division is: the model's nodes are one LLC each under
// one NUMA level spanning all CPUs.
func (r *runner) numaPullAllowed(src, dst int, now sim.Time) bool {
	n := r.cfg.CPU.Costs.CPUsPerLLC
	if n <= 0 || n >= r.cfg.NrCPUs {
		return true
	}
	srcRun, srcCPUs := r.llcRunning(src, now)
	dstRun, dstCPUs := r.llcRunning(dst, now)
	if dstRun < dstCPUs && r.numaNodeOverloaded(src, srcRun, srcCPUs, now) {
		return true
	}
	imb := max(1, r.cfg.NrCPUs/dstCPUs)
	const numaImbalanceMin = 2
	return !(dstRun+1 <= imb && max(0, srcRun-dstRun) <= numaImbalanceMin)
}

// llcRunning returns the running tasks (nrRunning summed: sum_nr_running) of cpu's
// LLC at now and the LLC's number of CPUs (group_weight).
func (r *runner) llcRunning(cpu int, now sim.Time) (running, cpus int) {
	n := r.cfg.CPU.Costs.CPUsPerLLC
	lo := cpu / n * n
	hi := min(r.cfg.NrCPUs, lo+n)
	for c := lo; c < hi; c++ {
		running += r.nrRunning(c, now)
	}
	return running, hi - lo
}

// numaImbalancePct is the NUMA domain's imbalance_pct (6.1 sd_init: 117, which the
// SD_NUMA case keeps). Sourced.
const numaImbalancePct = 117

// numaNodeOverloaded is group_is_overloaded (6.1 kernel/sched/fair.c, as
// update_sg_lb_stats → group_classify use it) for the node (LLC) of cpu running
// running tasks on cpus CPUs: more running tasks than CPUs, and the group's
// utilisation above capacity × 100 / imbalance_pct or its runnable average above
// capacity × imbalance_pct / 100. Capacity is SCHED_CAPACITY_SCALE (1024) per CPU (no
// RT or IRQ pressure modelled). Utilisation and runnable are approximated from what
// the model keeps:
//
//   - with Placement.PELTLoad, runnable_avg per CPU is cpuLoad (for nice-0 tasks a
//     task's load_avg equals its runnable_avg), and util_avg, which the model does not
//     keep, is bounded above by min(runnable_avg, 1024) (cpu_util_cfs clamps to the
//     CPU's capacity, and running time is part of runnable time): so the
//     utilisation test can fire where the kernel's would not;
//   - without it, the instantaneous state stands for the averages: a CPU running or
//     holding a task counts 1024 of utilisation and 1024 of runnable per task on it.
func (r *runner) numaNodeOverloaded(cpu, running, cpus int, now sim.Time) bool {
	if running <= cpus {
		return false
	}
	const scale = 1024
	n := r.cfg.CPU.Costs.CPUsPerLLC
	lo := cpu / n * n
	pelt := r.cfg.Placement.PELTLoad && !r.cfg.Placement.random()
	var util, runnable uint64
	for c := lo; c < lo+cpus; c++ {
		var rc uint64
		if pelt {
			rc = r.cpuLoad(c, now)
		} else {
			rc = uint64(r.nrRunning(c, now)) * scale
		}
		runnable += rc
		util += min(rc, scale)
	}
	capacity := uint64(cpus) * scale
	return capacity*100 < util*numaImbalancePct || capacity*numaImbalancePct < runnable*100
}

// placeWorker returns the CPU an io-wq worker runs on after it is created (new) or
// woken by waker (wakerTask: the submitting thread woke it; otherwise a completion).
func (j *job) placeWorker(w *worker, waker int, wakerTask, created bool) int {
	if j.r.sub.WorkersOnOwnerCPU {
		return j.runCPU
	}
	if j.place.random() {
		// the deprecated rule's workers: uniform over all CPUs at every placement
		// (the earlier assumption), from the model's jitter stream
		return j.r.rnd.IntN(j.r.cfg.NrCPUs)
	}
	s := j.r.sched()
	now := j.r.eng.Now()
	if created {
		// wake_up_new_task → select_task_rq_fair(WF_FORK) → find_idlest_cpu from the
		// creator's CPU, which runs the creator and is not idle
		// (wake_up_new_task sets p->recent_used_cpu to the creator's CPU)
		w.recent = waker + 1
		if c := firstAfter(waker, s.all, func(c int) bool { return j.r.schedIdle(c, now) }); c >= 0 {
			return c
		}
		return waker
	}
	if stillRunning(now, w.ranUntil) {
		return w.cpu
	}
	return j.r.selectTaskRq(w.cpu, waker, wakerTask, s.all, &w.recent, now)
}
