package stack

import "github.com/blkmq/blkmq/sim"

// This file models 6.1's load balancer per sched-domain level
// (Placement.RebalanceDomains): which CPU pulls a task, when, and at which level.
//
// The model's machine has one or two domain levels (kernel/sched/topology.c, no SMT):
//
//   - MC, the last-level cache (dispatch.CPUCosts.CPUsPerLLC; every CPU when 0), whose
//     groups are single CPUs;
//   - NUMA, all CPUs, whose groups are the LLCs (the model's nodes), when there is
//     more than one LLC. (A package level spanning one LLC is degenerate and removed;
//     so is the NUMA level of distance 10, which spans one node.)
//
// sd_init gives each level (span weight w) min_interval = balance_interval = w ms,
// max_interval = 2w ms, busy_factor 16 and imbalance_pct 117; cache_nice_tries is 1
// for MC (SD_SHARE_PKG_RESOURCES) and 2 for NUMA, which also clears SD_PREFER_SIBLING
// (so the NUMA level's child, MC, keeps it: prefer_sibling holds at the NUMA level).
// Each CPU has its own copy of each level (balance_interval, last_balance,
// nr_balance_failed).

// sdLevel indexes the model's sched-domain levels, lowest first.
type sdLevel int

const (
	sdMC sdLevel = iota
	sdNUMA
	nrSDLevels
)

// sched-domain constants of sd_init (6.1 kernel/sched/topology.c). Sourced.
const (
	sdImbalancePct = 117 // MC and NUMA (SMT would be 110)
	sdBusyFactor   = 16
	capacityScale  = 1024 // SCHED_CAPACITY_SCALE, per CPU (no RT/IRQ pressure modelled)
)

// cacheNiceTries is sd->cache_nice_tries: 1 for MC, 2 for NUMA (sd_init).
func cacheNiceTries(l sdLevel) int {
	if l == sdNUMA {
		return 2
	}
	return 1
}

// cpuIdleType is enum cpu_idle_type.
type cpuIdleType uint8

const (
	cpuIdle cpuIdleType = iota
	cpuNotIdle
	cpuNewlyIdle
)

// groupType is enum group_type (6.1), in its order of busyness; the model's groups
// are never misfit, asym_packing or imbalanced (symmetric capacities, no affinity
// skew between groups).
type groupType uint8

const (
	groupHasSpare groupType = iota
	groupFullyBusy
	groupOverloaded
)

// migrationType is enum migration_type.
type migrationType uint8

const (
	migrateLoad migrationType = iota
	migrateUtil
	migrateTask
)

// sgStats is struct sg_lb_stats for one group, from the model state at one instant.
type sgStats struct {
	first, cpus         int // the group's CPUs: first .. first+cpus-1
	sumNrRunning, idle  int
	util, runnable      uint64 // group_util, group_runnable (see groupStats)
	capacity, load      uint64
	avgLoad             uint64
	typ                 groupType
	local, hasAnyRunner bool
}

// rebalanceState is each CPU's copy of each domain level.
type rebalanceState struct {
	lastBalance [nrSDLevels][]sim.Time
	interval    [nrSDLevels][]sim.Time // balance_interval (ms, as a sim.Time)
	failed      [nrSDLevels][]int      // nr_balance_failed
	tickEv      rebalanceTick
	started     bool
	// counters (rebalanceStats, read by tests and instrumentation)
	stats rebalanceStats
}

// rebalanceStats counts what Placement.RebalanceDomains's balancer did in a run.
type rebalanceStats struct {
	// Pulls are waiting tasks moved by load_balance, per level (0 = MC, 1 = NUMA),
	// by the periodic balance and by newidle_balance; Active are running tasks moved
	// by active balance (active_load_balance_cpu_stop), per level.
	PeriodicPulls, NewidlePulls, Active [2]int
	// Failed counts load_balance calls that found an imbalance and moved nothing,
	// per level.
	Failed [2]int
}

// rebalanceTick is the scheduler tick at which idle CPUs' periodic balance runs.
type rebalanceTick struct{ r *runner }

// Fire runs rebalance_domains for every idle CPU whose domains are due, then the next
// tick (while a job runs).
func (e *rebalanceTick) Fire(now sim.Time) {
	r := e.r
	r.rebalanceIdleCPUs(now)
	for _, j := range r.jobs {
		if !j.finished {
			r.eng.At(now+r.cfg.Placement.tick(), &r.cpuSched.bal.tickEv)
			return
		}
	}
	r.cpuSched.bal.started = false
}

// rebalanceOn reports whether Placement.RebalanceDomains applies to the run.
func (r *runner) rebalanceOn() bool {
	p := r.cfg.Placement
	return p.RebalanceDomains && !p.random() && r.cfg.NrCPUs > 1
}

// rebalanceStart sets up the per-CPU domain state and schedules the first tick (at the
// next tick boundary).
func (r *runner) rebalanceStart() {
	b := &r.cpuSched.bal
	if b.started || !r.rebalanceOn() {
		return
	}
	r.rebalanceInit()
	b.started = true
	b.tickEv.r = r
	tick := r.cfg.Placement.tick()
	r.eng.At((r.eng.Now()/tick+1)*tick, &b.tickEv)
}

// rebalanceInit allocates each CPU's domain state (balance_interval = min_interval).
func (r *runner) rebalanceInit() {
	b := &r.cpuSched.bal
	if b.interval[sdMC] != nil {
		return
	}
	for l := sdMC; l < nrSDLevels; l++ {
		b.lastBalance[l] = make([]sim.Time, r.cfg.NrCPUs)
		b.interval[l] = make([]sim.Time, r.cfg.NrCPUs)
		b.failed[l] = make([]int, r.cfg.NrCPUs)
		for c := range b.interval[l] {
			b.interval[l][c] = r.sdMinInterval(l, c)
		}
	}
}

// sdLevels returns the number of domain levels (1: one LLC; 2: MC and NUMA).
func (r *runner) sdLevels() sdLevel {
	n := r.cfg.CPU.Costs.CPUsPerLLC
	if n <= 0 || n >= r.cfg.NrCPUs {
		return 1
	}
	return 2
}

// sdSpan returns the CPUs of cpu's domain at level l: first .. first+n-1.
func (r *runner) sdSpan(l sdLevel, cpu int) (first, n int) {
	if l == sdNUMA || r.sdLevels() == 1 {
		return 0, r.cfg.NrCPUs
	}
	return r.llcRange(cpu)
}

// llcRange returns cpu's LLC: first .. first+n-1.
func (r *runner) llcRange(cpu int) (first, n int) {
	k := r.cfg.CPU.Costs.CPUsPerLLC
	if k <= 0 {
		return 0, r.cfg.NrCPUs
	}
	first = cpu / k * k
	return first, min(r.cfg.NrCPUs, first+k) - first
}

// sdMinInterval is min_interval = the level's span weight in ms (sd_init).
func (r *runner) sdMinInterval(l sdLevel, cpu int) sim.Time {
	_, w := r.sdSpan(l, cpu)
	return sim.Time(w) * sim.Millisecond
}

// sdInterval is get_sd_balance_interval for an idle CPU: its balance_interval in
// scheduler ticks (msecs_to_jiffies rounds up; at least one).
func (r *runner) sdInterval(l sdLevel, cpu int) sim.Time {
	return r.msToJiffies(r.cpuSched.bal.interval[l][cpu])
}

func (r *runner) msToJiffies(d sim.Time) sim.Time {
	tick := r.cfg.Placement.tick()
	return max(1, (d+tick-1)/tick) * tick
}

// rqTasks is rq->nr_running for the model: the distinct modelled tasks on cpu at now —
// fio threads and io-wq workers running (their charged work not done), woken onto it
// or waiting for it — plus a kblockd worker with Placement.KworkerTasks. (nrRunning
// counts a CPU's charged task work and each waiting thread separately, so a thread
// waiting for the work it charged itself counts twice there.)
func (r *runner) rqTasks(cpu int, now sim.Time) int {
	n := 0
	for _, j := range r.jobs {
		if j.runCPU == cpu && j.runnable(now) {
			n++
		}
		for _, w := range j.workers {
			if w.cpu == cpu && (w.woken || stillRunning(now, w.ranUntil)) {
				n++
			}
		}
	}
	if r.kworkerTask(cpu, now) {
		n++
	}
	return n
}

// runnable reports whether the thread is on its CPU's run queue at now: running (the
// work it charged when it last ran is not done), woken onto it, or waiting for it.
func (j *job) runnable(now sim.Time) bool {
	return j.cpuWait || j.woken || stillRunning(now, j.ranUntil)
}

// rqIdle is idle_cpu: no modelled task on cpu.
func (r *runner) rqIdle(cpu int, now sim.Time) bool { return r.rqTasks(cpu, now) == 0 }

// rebalanceIdleCPUs is the periodic balance of the idle CPUs at a tick: the nohz idle
// balance (_nohz_idle_balance, kicked by a busy CPU's tick: nohz_balancer_kick) or an
// idle CPU's own tick runs rebalance_domains(CPU_IDLE) for each idle CPU whose
// rq->next_balance has come. Busy CPUs' own periodic balance (CPU_NOT_IDLE, every
// busy_factor × balance_interval: 224 ms for a 14-CPU LLC) is not modelled; neither is
// the kick's rate limit beyond the per-domain intervals.
func (r *runner) rebalanceIdleCPUs(now sim.Time) {
	b := &r.cpuSched.bal
	levels := r.sdLevels()
	for d := range r.cfg.NrCPUs {
		if !r.rqIdle(d, now) {
			continue
		}
		for l := sdMC; l < levels; l++ {
			if now < b.lastBalance[l][d]+r.sdInterval(l, d) {
				continue
			}
			moved, cont := r.loadBalance(d, l, cpuIdle, now)
			b.lastBalance[l][d] = now
			if moved != nil {
				moved.pulledTo(d, now)
			}
			if moved != nil || !cont {
				// moved: d is busy now, its upper levels use the busy interval
				// (× busy_factor), not due; !cont: another CPU of d's group
				// balances this and the upper levels (should_we_balance)
				break
			}
		}
	}
}

// newidleBalance is newidle_balance for cpu, which has just gone idle: its domains
// lowest first, load_balance(CPU_NEWLY_IDLE) at each, stopping once a task was pulled.
// The avg_idle test against max_newidle_lb_cost is not modelled (the CPU balances
// every time it goes idle while a task can be pulled); rd->overload holds whenever a
// pull is possible (the busiest run queue has two tasks). It returns the thread to
// pull (the caller moves it), or nil.
func (r *runner) newidleBalance(cpu int, now sim.Time) *job {
	for l := sdMC; l < r.sdLevels(); l++ {
		if moved, _ := r.loadBalance(cpu, l, cpuNewlyIdle, now); moved != nil {
			return moved
		}
	}
	return nil
}

// groupStats is update_sg_lb_stats for the group first .. first+cpus-1 at now.
// Utilisation and runnable averages, which the model does not keep, come from the
// instantaneous state (a CPU holding a task counts SCHED_CAPACITY_SCALE of
// utilisation, each task SCHED_CAPACITY_SCALE of runnable and load) or, with
// Placement.PELTLoad, from the threads' PELT loads (runnable = load = cpuLoad,
// utilisation bounded by min(runnable, capacity)).
func (r *runner) groupStats(first, cpus, dst int, now sim.Time) sgStats {
	s := sgStats{first: first, cpus: cpus, local: dst >= first && dst < first+cpus}
	pelt := r.cfg.Placement.PELTLoad
	for c := first; c < first+cpus; c++ {
		n := r.rqTasks(c, now)
		s.sumNrRunning += n
		if n == 0 {
			s.idle++
		}
		var rc uint64
		if pelt {
			rc = r.cpuLoad(c, now)
		} else {
			rc = uint64(n) * capacityScale
		}
		s.runnable += rc
		s.load += rc
		s.util += min(rc, capacityScale)
	}
	s.capacity = uint64(cpus) * capacityScale
	s.typ = groupClassify(&s)
	if s.typ == groupOverloaded {
		s.avgLoad = s.load * capacityScale / s.capacity
	}
	return s
}

// groupClassify is group_classify (6.1) for the model's groups: group_is_overloaded,
// else !group_has_capacity (fully busy), else has spare.
func groupClassify(s *sgStats) groupType {
	if s.sumNrRunning > s.cpus &&
		(s.capacity*100 < s.util*sdImbalancePct || s.capacity*sdImbalancePct < s.runnable*100) {
		return groupOverloaded
	}
	if s.sumNrRunning < s.cpus {
		return groupHasSpare
	}
	if s.capacity*sdImbalancePct < s.runnable*100 {
		return groupFullyBusy
	}
	if s.capacity*100 > s.util*sdImbalancePct {
		return groupHasSpare
	}
	return groupFullyBusy
}

// pickBusiest is update_sd_pick_busiest (6.1, symmetric capacities): whether sg is
// busier than the busiest so far.
func pickBusiest(sg, busiest *sgStats) bool {
	if sg.sumNrRunning == 0 {
		return false
	}
	if busiest == nil || sg.typ > busiest.typ {
		return true
	}
	if sg.typ < busiest.typ {
		return false
	}
	switch sg.typ {
	case groupOverloaded:
		return sg.avgLoad > busiest.avgLoad
	case groupFullyBusy:
		return false // avg_load is not computed for fully busy groups: the first one
	}
	if sg.idle > busiest.idle {
		return false
	}
	return !(sg.idle == busiest.idle && sg.sumNrRunning <= busiest.sumNrRunning)
}

// lbDecision is what find_busiest_group and calculate_imbalance decide.
type lbDecision struct {
	busiest   *sgStats
	imbalance uint64
	mig       migrationType
}

// findBusiestGroup is find_busiest_group (6.1) for dst at level l: the busiest group
// and the imbalance, or busiest nil (balanced).
func (r *runner) findBusiestGroup(dst int, l sdLevel, idle cpuIdleType, now sim.Time) lbDecision {
	first, n := r.sdSpan(l, dst)
	var groups []sgStats
	if l == sdMC || r.sdLevels() == 1 {
		for c := first; c < first+n; c++ {
			groups = append(groups, r.groupStats(c, 1, dst, now))
		}
	} else {
		for c := first; c < first+n; {
			f, k := r.llcRange(c)
			groups = append(groups, r.groupStats(f, k, dst, now))
			c = f + k
		}
	}
	var local, busiest *sgStats
	var totalLoad, totalCap uint64
	for i := range groups {
		g := &groups[i]
		totalLoad += g.load
		totalCap += g.capacity
		if g.local {
			local = g
			continue
		}
		if pickBusiest(g, busiest) {
			busiest = g
		}
	}
	d := lbDecision{}
	if busiest == nil || local == nil {
		return d
	}
	// the NUMA level's child (MC) has SD_PREFER_SIBLING; MC has no child here
	preferSibling := l == sdNUMA
	if local.typ > busiest.typ {
		return d
	}
	if local.typ == groupOverloaded {
		avg := totalLoad * capacityScale / totalCap
		local.avgLoad = local.load * capacityScale / local.capacity
		if local.avgLoad >= busiest.avgLoad || local.avgLoad >= avg ||
			100*busiest.avgLoad <= sdImbalancePct*local.avgLoad {
			return d
		}
	}
	force := preferSibling && local.typ == groupHasSpare && busiest.sumNrRunning > local.sumNrRunning+1
	if !force && busiest.typ != groupOverloaded {
		if idle == cpuNotIdle {
			return d
		}
		if busiest.cpus > 1 && local.idle <= busiest.idle+1 {
			return d
		}
		if busiest.sumNrRunning == 1 {
			return d
		}
	}
	d.busiest = busiest
	r.calculateImbalance(&d, local, l, idle, totalLoad, totalCap)
	if d.imbalance == 0 {
		d.busiest = nil
	}
	return d
}

// calculateImbalance is calculate_imbalance (6.1) for the model's group types.
func (r *runner) calculateImbalance(d *lbDecision, local *sgStats, l sdLevel, idle cpuIdleType, totalLoad, totalCap uint64) {
	busiest := d.busiest
	if local.typ == groupHasSpare {
		if busiest.typ > groupFullyBusy && l == sdNUMA {
			// the NUMA level does not share package resources: fill the local
			// group's spare capacity by utilisation
			d.mig = migrateUtil
			d.imbalance = max(local.capacity, local.util) - local.util
			if idle != cpuNotIdle && d.imbalance == 0 {
				d.mig, d.imbalance = migrateTask, 1
			}
			return
		}
		d.mig = migrateTask
		if busiest.cpus == 1 || l == sdNUMA { // prefer_sibling at NUMA
			d.imbalance = uint64(max(0, busiest.sumNrRunning-local.sumNrRunning))
		} else {
			d.imbalance = uint64(max(0, local.idle-busiest.idle))
		}
		if l == sdNUMA {
			d.imbalance = adjustNUMAImbalance(d.imbalance, local.sumNrRunning+1, r.imbNUMANr())
		}
		d.imbalance >>= 1
		return
	}
	avg := totalLoad * capacityScale / totalCap
	if local.typ < groupOverloaded {
		local.avgLoad = local.load * capacityScale / local.capacity
		if local.avgLoad >= avg {
			return
		}
	}
	if busiest.avgLoad <= avg || avg <= local.avgLoad {
		return
	}
	d.mig = migrateLoad
	d.imbalance = min((busiest.avgLoad-avg)*busiest.capacity, (avg-local.avgLoad)*local.capacity) / capacityScale
}

// adjustNUMAImbalance is adjust_numa_imbalance (6.1): an imbalance of at most
// NUMA_IMBALANCE_MIN (2) tasks is allowed while the destination, counting the pulled
// task, runs no more than imb_numa_nr tasks.
func adjustNUMAImbalance(imbalance uint64, dstRunning, imbNUMANr int) uint64 {
	const numaImbalanceMin = 2
	if dstRunning > imbNUMANr {
		return imbalance
	}
	if imbalance <= numaImbalanceMin {
		return 0
	}
	return imbalance
}

// imbNUMANr is the NUMA level's imb_numa_nr (build_sched_domains: its span over the
// LLC's, nr_llcs, for a node of one LLC under one NUMA level).
func (r *runner) imbNUMANr() int {
	_, n := r.llcRange(0)
	return max(1, r.cfg.NrCPUs/n)
}

// findBusiestQueue is find_busiest_queue (6.1) in the busiest group: by running tasks
// (migrate_task), utilisation (migrate_util) or load (migrate_load), the first CPU
// of the highest.
func (r *runner) findBusiestQueue(g *sgStats, mig migrationType, now sim.Time) int {
	best, bestV := -1, uint64(0)
	for c := g.first; c < g.first+g.cpus; c++ {
		n := r.rqTasks(c, now)
		if n == 0 {
			continue
		}
		var v uint64
		switch mig {
		case migrateTask:
			v = uint64(n)
		default:
			if r.cfg.Placement.PELTLoad {
				v = r.cpuLoad(c, now)
			} else {
				v = uint64(n) * capacityScale
			}
			if mig == migrateUtil {
				v = min(v, capacityScale)
			}
		}
		if v > bestV {
			best, bestV = c, v
		}
	}
	return best
}

// loadBalance is load_balance(dst, level l, idle) (6.1): should_we_balance, the
// busiest group and run queue, then detach one waiting task that can_migrate_task
// allows (not cache-hot: it has waited at least the migration cost, or the level's
// nr_balance_failed exceeds cache_nice_tries); with nothing moved, the periodic
// balance counts a failure and, past cache_nice_tries + 2 failures of a task
// imbalance, moves the busiest CPU's running task (need_active_balance →
// active_load_balance_cpu_stop). It returns the thread to move to dst (the caller
// moves it: pulledTo), or nil, and continue_balancing (false when another CPU of
// dst's group balances this level).
func (r *runner) loadBalance(dst int, l sdLevel, idle cpuIdleType, now sim.Time) (moved *job, cont bool) {
	b := &r.cpuSched.bal
	if idle != cpuNewlyIdle && !r.shouldWeBalance(dst, l, now) {
		r.lbBalanced(dst, l, idle)
		return nil, false
	}
	d := r.findBusiestGroup(dst, l, idle, now)
	if d.busiest == nil {
		r.lbBalanced(dst, l, idle)
		return nil, true
	}
	src := r.findBusiestQueue(d.busiest, d.mig, now)
	if src < 0 {
		r.lbBalanced(dst, l, idle)
		return nil, true
	}
	if r.rqTasks(src, now) > 1 {
		hotOK := b.failed[l][dst] > cacheNiceTries(l)
		if j := r.detachWaiting(src, dst, hotOK, now); j != nil {
			b.failed[l][dst] = 0
			b.interval[l][dst] = r.sdMinInterval(l, dst)
			if idle == cpuNewlyIdle {
				b.stats.NewidlePulls[l]++
			} else {
				b.stats.PeriodicPulls[l]++
			}
			return j, true
		}
	}
	b.stats.Failed[l]++
	if idle == cpuNewlyIdle {
		return nil, true
	}
	b.failed[l][dst]++
	b.interval[l][dst] = r.sdMinInterval(l, dst)
	if d.mig == migrateTask && b.failed[l][dst] > cacheNiceTries(l)+2 {
		b.failed[l][dst] = cacheNiceTries(l) + 1
		if j := r.runningOn(src, dst, now); j != nil {
			b.stats.Active[l]++
			return j, true
		}
	}
	return nil, true
}

// lbBalanced is load_balance's out_balanced: nr_balance_failed reset and, outside the
// newly idle balance, balance_interval doubled up to max_interval (2 × min_interval).
func (r *runner) lbBalanced(dst int, l sdLevel, idle cpuIdleType) {
	b := &r.cpuSched.bal
	b.failed[l][dst] = 0
	if idle == cpuNewlyIdle {
		return
	}
	if mi := 2 * r.sdMinInterval(l, dst); b.interval[l][dst] < mi {
		b.interval[l][dst] = min(2*b.interval[l][dst], mi)
	}
}

// shouldWeBalance is should_we_balance (6.1, no SMT) for the periodic balance: the
// first idle CPU of dst's group at level l, else the group's first CPU, balances it.
// At MC the groups are single CPUs.
func (r *runner) shouldWeBalance(dst int, l sdLevel, now sim.Time) bool {
	if l == sdMC || r.sdLevels() == 1 {
		return true
	}
	first, n := r.llcRange(dst)
	for c := first; c < first+n; c++ {
		if r.rqIdle(c, now) {
			return c == dst
		}
	}
	return first == dst
}

// detachWaiting is detach_tasks for one task: the thread waiting on src (runnable,
// not running) that ran least recently (the tail of cfs_tasks), allowed on dst, and
// not cache-hot (task_hot: it last ran at least the migration cost ago) unless hotOK.
func (r *runner) detachWaiting(src, dst int, hotOK bool, now sim.Time) *job {
	var pick *job
	for _, j := range r.jobs {
		if j.runCPU != src || !j.cpuWait || len(j.allowed) < 2 || !contains(j.allowed, dst) {
			continue
		}
		if !hotOK && now-j.waitSince < j.place.migrationCost() {
			continue
		}
		if pick == nil || j.waitSince < pick.waitSince {
			pick = j
		}
	}
	return pick
}

// runningOn returns the thread the active balance moves from src to dst: one on src's
// run queue (running, woken or waiting) allowed on dst, or nil.
func (r *runner) runningOn(src, dst int, now sim.Time) *job {
	for _, j := range r.jobs {
		if j.runCPU == src && j.runnable(now) && len(j.allowed) > 1 && contains(j.allowed, dst) {
			return j
		}
	}
	return nil
}

// pulledTo moves the thread to dst at now, as load_balance's detach/attach or the
// active balance does: a thread waiting for its CPU resumes its loop on dst at once;
// a running one carries on there (its next submission and wake-ups start from dst).
func (j *job) pulledTo(dst int, now sim.Time) {
	if j.woken {
		j.wokenRuns()
		j.moveTo(dst)
		j.peltAdvance()
		j.woken = true
		j.r.sched().woken[dst]++
		return
	}
	if j.cpuWait && j.fillWait {
		j.r.eng.Cancel(j.fillID)
		j.endCPUWait()
		j.contended = false
		j.moveTo(dst)
		j.mmWake(dst)
		j.turnAt = now
		j.scheduleFill(now)
		return
	}
	j.moveTo(dst)
}

// scheduleFill schedules the thread's fillEv at t, keeping its ID (pulledTo cancels
// it).
func (j *job) scheduleFill(t sim.Time) { j.fillID = j.r.eng.At(t, &j.fillEv) }

// newidlePull is the newly idle balance as the waiting thread sees it at now: each
// allowed CPU whose task has just gone to sleep (its charged work ended at now and it
// has no task) runs newidle_balance over its own domains. A pull of this thread
// returns its new CPU; a pull of another thread moves that one (pulledTo); −1 if this
// thread stays.
func (j *job) newidlePull(now sim.Time) int {
	r := j.r
	s := r.sched()
	for _, c := range j.allowed {
		if c == j.runCPU || now == 0 || s.taskUntil[c] != now || !r.rqIdle(c, now) {
			continue
		}
		k := r.newidleBalance(c, now)
		if k == j {
			return c
		}
		if k != nil {
			k.pulledTo(c, now)
		}
	}
	return -1
}
