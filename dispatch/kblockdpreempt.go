package dispatch

import (
	"math/bits"

	"github.com/blkmq/blkmq/sim"
)

// CFS constants of the kblockd worker's wake-up preemption (kernel/sched/fair.c,
// kernel/sched/core.c), sourced:
//   - baseWakeupGranularity: sysctl_sched_wakeup_granularity's base, 1 ms, scaled by
//     the boot-time factor 1 + ilog2(min(nr_cpus, 8)) (SCHED_TUNABLESCALING_LOG,
//     get_update_sysctl_factor): 2 ms on 2 CPUs, 3 ms on 4 to 7.
//   - niceMinus20Weight, nice0Weight: sched_prio_to_weight[0] and [20]. kblockd is
//     allocated WQ_HIGHPRI (blk_dev_init), so its workers run at HIGHPRI_NICE_LEVEL,
//     nice -20 (kernel/workqueue.c), and fio's threads at nice 0.
const (
	baseWakeupGranularity = sim.Millisecond
	niceMinus20Weight     = 88761
	nice0Weight           = 1024
)

// KblockdPreemptGranularity is the vruntime lead (ns) a nice-0 task must have over
// cpu's woken kblockd worker for the worker's wake-up to preempt it, on a machine of
// nrCPUs CPUs: wakeup_preempt_entity preempts the current task when its vruntime leads
// the woken entity's by more than wakeup_gran, sysctl_sched_wakeup_granularity
// converted to the woken entity's virtual time (calc_delta_fair: × NICE_0_LOAD /
// weight). 23.1 µs on 2 CPUs, 34.6 µs on 4. nrCPUs below 1 counts as 1. The lead is
// the worker's lag behind min_vruntime (kblockdPreempt.lead: place_entity's credit,
// KblockdPlaceCredit, makes it several ms); under Options.NoPlaceEntityCredit (rounds
// 6-8) it was taken as the CPU time run since the worker last ran, on the assumption
// that a worker leaves its vruntime at min_vruntime, and the submitter had to run this
// long between two runs.
func KblockdPreemptGranularity(nrCPUs int) sim.Time {
	n := min(max(nrCPUs, 1), 8)
	factor := sim.Time(bits.Len(uint(n))) // 1 + ilog2(n)
	return baseWakeupGranularity * factor * nice0Weight / niceMinus20Weight
}

// KblockdPlaceCredit is the vruntime credit (ns of vruntime) 6.1's place_entity gives
// a waking entity on a machine of nrCPUs CPUs: sysctl_sched_latency (6 ms × (1 +
// ilog2(min(nr_cpus, 8))), SCHED_TUNABLESCALING_LOG) halved by GENTLE_FAIR_SLEEPERS. A
// woken entity is placed at max(its vruntime, min_vruntime − the credit)
// (kernel/sched/fair.c place_entity, !initial), so a kblockd worker that slept while
// nice-0 tasks ran is up to this far behind them: 6 ms on 2-3 CPUs, 9 ms on 4-7,
// 12 ms from 8. nrCPUs below 1 counts as 1.
func KblockdPlaceCredit(nrCPUs int) sim.Time {
	n := min(max(nrCPUs, 1), 8)
	return baseSchedLatency * sim.Time(bits.Len(uint(n))) / 2
}

// baseSchedLatency is sysctl_sched_latency's base, 6 ms (normalized_sysctl_sched_latency).
const baseSchedLatency = 6 * sim.Millisecond

// kblockdPreempt is the per-CPU state of the kblockd wake-up preemption
// (Options.NoKblockdWakeupPreempt false).
type kblockdPreempt struct {
	// lastRun is the CPU's busy time (sim.CPU.BusyTime) when its kblockd worker last
	// finished a run: the reference of the lead under Options.NoPlaceEntityCredit.
	lastRun []sim.Time
	// lag is how far (ns of vruntime) the worker's vruntime is behind the CPU's
	// min_vruntime at ref, the busy time it was last brought up to date at; a lag
	// grows by the nice-0 time run since (each ns of a nice-0 task's run moves
	// min_vruntime by one), is capped at credit when the worker is woken
	// (place_entity) and shrinks by the worker's own runs at its nice -20 weight.
	// A worker asleep since before the run starts at credit (assumed: its last run
	// was more than the credit of nice-0 time ago, e.g. before fio started).
	lag, ref []sim.Time
	gran     sim.Time
	credit   sim.Time
	runs     uint64 // runs that preempted the submitter
	others   func(cpu int, now sim.Time) bool
	mm       uint64 // of them, runs that handed the CPU to another task (MMSwitch)
}

// SetOtherTasks tells the host which CPUs have a runnable task besides the one
// running (fn reports it for cpu at now): a kblockd run that preempted a submitter
// then hands the CPU to that task, the one CFS's pick_next_entity takes (the
// leftmost vruntime: the preempted task ran last; with fewer than sched_nr_latency
// tasks no last buddy is set to keep it), and a switch between two processes costs
// CPUCosts.MMSwitch on top of the worker's two switches. nil (the default) assumes no
// other task. Package stack sets it from its fio threads.
func (h *Host) SetOtherTasks(fn func(cpu int, now sim.Time) bool) { h.kbPreemptState().others = fn }

// KblockdPreemptCounts returns how many kblockd runs preempted their submitter
// (runInsertAsync's path) and how many of them then handed the CPU to another
// process, charging CPUCosts.MMSwitch: diagnostics of the emulated switch costs.
func (h *Host) KblockdPreemptCounts() (runs, processSwitches uint64) {
	return h.kbPreempt.runs, h.kbPreempt.mm
}

// kblockdRan records that cpu's kblockd worker has just run an item that took the
// CPU from busy time start to end: the lead of the task it interrupted starts again
// from here (Options.NoPlaceEntityCredit), and the worker's lag takes the nice-0 time
// run before the item and loses the item's own time at nice -20. Called at every
// kblockd run (runWork.Fire and runInsertAsync).
func (h *Host) kblockdRan(cpu int, start, end sim.Time) {
	if h.opts.NoKblockdWakeupPreempt || !h.cpu.on {
		return
	}
	p := h.kbPreemptState()
	p.lastRun[cpu] = h.cpu.cpus[cpu].BusyTime()
	if start < p.ref[cpu] {
		start = p.ref[cpu]
	}
	p.lag[cpu] += start - p.ref[cpu]                              // nice-0 time before the item
	p.lag[cpu] -= (end - start) * nice0Weight / niceMinus20Weight // calc_delta_fair of the item
	p.ref[cpu] = end
}

// lead returns the woken kblockd worker's vruntime lead over the task running on
// cpu (ns of vruntime), updating the worker's placement: by default its lag behind
// min_vruntime brought up to the CPU's busy time and capped at the place_entity
// credit (the running task is at or past min_vruntime); under
// Options.NoPlaceEntityCredit the CPU time run since the worker's last run.
func (p *kblockdPreempt) lead(h *Host, cpu int) sim.Time {
	busy := h.cpu.cpus[cpu].BusyTime()
	if h.opts.NoPlaceEntityCredit {
		return busy - p.lastRun[cpu]
	}
	p.lag[cpu] = min(p.lag[cpu]+busy-p.ref[cpu], p.credit)
	p.ref[cpu] = busy
	return p.lag[cpu]
}

func (h *Host) kbPreemptState() *kblockdPreempt {
	p := &h.kbPreempt
	if p.lastRun == nil {
		p.lastRun = make([]sim.Time, h.cfg.NrCPUs)
		p.gran = KblockdPreemptGranularity(h.cfg.NrCPUs)
		p.credit = KblockdPlaceCredit(h.cfg.NrCPUs)
		p.ref = make([]sim.Time, h.cfg.NrCPUs)
		p.lag = make([]sim.Time, h.cfg.NrCPUs)
		for i := range p.lag {
			p.lag[i] = p.credit
		}
	}
	return p
}

// runInsertAsync is the blk_mq_run_hw_queue(hctx, true) that ends an unplugged
// submission's insert (blk_mq_submit_bio → blk_mq_sched_insert_request(rq, false,
// true, true): every submission with an elevator, and async I/O to a busy hctx
// without one), issued by the submitting task on cpu.
//
// Unless Options.NoKblockdWakeupPreempt, when the work goes to cpu's own kblockd worker,
// is not pending already, and the woken worker's vruntime is more than
// KblockdPreemptGranularity behind the submitter's (by default its lag behind
// min_vruntime, carried from run to run and capped at KblockdPlaceCredit by
// place_entity: several ms, so every wake-up preempts; under
// Options.NoPlaceEntityCredit the CPU time run since that worker last ran), the worker's
// wake-up preempts the submitter (try_to_wake_up → check_preempt_curr →
// check_preempt_wakeup sets TIF_NEED_RESCHED; the switch happens at the system
// call's return to user space, exit_to_user_mode_loop), so the worker runs this one
// submission's hctx run before the task submits again: the waker's Wakeup, the two
// context switches (to the worker and back) and the run are charged on cpu now, and
// CPUCosts.MMSwitch when another task is runnable there (SetOtherTasks): the worker's
// sleep then hands the CPU to that task, not back to the submitter. The
// submission's later steps and the next submission cannot coalesce into it, as they
// do with a worker that waits for its CPU (runWork.Fire). Otherwise, and with
// NoKblockdWakeupPreempt, it is runHwQueue(true).
func (h *Hctx) runInsertAsync(cpu int) {
	q := h.q
	host := q.host
	if q.opts.NoKblockdWakeupPreempt || !host.cpu.on || len(h.cpus) == 0 ||
		host.cfg.Flags&BlkMqFBlocking != 0 || h.runWork.pending || !h.hasPending() ||
		h.kblockdTarget(cpu) != cpu {
		h.runHwQueue(true)
		return
	}
	p := host.kbPreemptState()
	if p.lead(host, cpu) <= p.gran {
		h.runHwQueue(true)
		return
	}
	q.stats.AsyncRuns++
	p.runs++
	host.onCPU(cpu)
	start := host.cpu.cpus[cpu].BusyTime()
	host.charge(host.cpu.c.Wakeup) // kblockd_mod_delayed_work_on → wake_up_worker
	host.charge(2 * host.cpu.c.kthreadSwitch())
	if h.singleHwQueue() {
		h.workCPU = cpu
	}
	host.kworkerStart(cpu)
	h.runHwQueueNow()
	host.kworkerRan(cpu)
	host.onCPU(cpu)
	end := host.cpu.cpus[cpu].BusyTime()
	if c := host.cpu.c.MMSwitch; c > 0 && p.others != nil && p.others(cpu, q.eng.Now()) {
		p.mm++
		host.charge(c) // the worker sleeps and CFS picks the other process
	}
	host.kblockdRan(cpu, start, end) // the other process's switch-in is its own time
}

// busyUntilTime returns the busy time (sim.CPU.BusyTime) charged on cpu so far, 0
// with CPU costs off.
func (h *Host) busyUntilTime(cpu int) sim.Time {
	if !h.cpu.on {
		return 0
	}
	return h.cpu.cpus[cpu].BusyTime()
}
