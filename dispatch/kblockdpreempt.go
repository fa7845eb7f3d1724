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

// KblockdPreemptGranularity is the CPU time (ns) a nice-0 task must have run since
// cpu's kblockd worker last ran for the worker's wake-up to preempt it, on a machine of
// nrCPUs CPUs: wakeup_preempt_entity preempts the current task when its vruntime leads
// the woken entity's by more than wakeup_gran, sysctl_sched_wakeup_granularity
// converted to the woken entity's virtual time (calc_delta_fair: × NICE_0_LOAD /
// weight). A worker that ran a few microseconds at nice -20 left its vruntime where
// the CPU's min_vruntime was then, so the lead is about the CPU time run since
// (assumed: one runnable nice-0 task besides the worker; with several, each task's
// share). 23.1 µs on 2 CPUs, 34.6 µs on 4. nrCPUs below 1 counts as 1.
func KblockdPreemptGranularity(nrCPUs int) sim.Time {
	n := min(max(nrCPUs, 1), 8)
	factor := sim.Time(bits.Len(uint(n))) // 1 + ilog2(n)
	return baseWakeupGranularity * factor * nice0Weight / niceMinus20Weight
}

// kblockdPreempt is the per-CPU state of the kblockd wake-up preemption
// (Options.NoKblockdWakeupPreempt false): the CPU's busy time (sim.CPU.BusyTime) when
// its kblockd worker last ran, the reference of the vruntime lead.
type kblockdPreempt struct {
	lastRun []sim.Time
	gran    sim.Time
	runs    uint64 // runs that preempted the submitter
	others  func(cpu int, now sim.Time) bool
	mm      uint64 // of them, runs that handed the CPU to another task (MMSwitch)
}

// SetOtherTasks tells the host which CPUs have a runnable task besides the one
// running (fn reports it for cpu at now): a kblockd run that preempted a submitter
// then hands the CPU to that task, the one CFS's pick_next_entity takes (the
// leftmost vruntime: the preempted task ran last; with fewer than sched_nr_latency
// tasks no last buddy is set to keep it), and a switch between two processes costs
// CPUCosts.MMSwitch on top of the worker's two switches. nil (the default) assumes no
// other task. Package stack sets it from its fio threads.
func (h *Host) SetOtherTasks(fn func(cpu int, now sim.Time) bool) { h.kbPreemptState().others = fn }

// kblockdRan records that cpu's kblockd worker has just run an item: the lead of the
// task it interrupted starts again from here. Called at every kblockd run
// (runWork.Fire and runInsertAsync).
func (h *Host) kblockdRan(cpu int) {
	if h.opts.NoKblockdWakeupPreempt || !h.cpu.on {
		return
	}
	p := h.kbPreemptState()
	p.lastRun[cpu] = h.cpu.cpus[cpu].BusyTime()
}

func (h *Host) kbPreemptState() *kblockdPreempt {
	p := &h.kbPreempt
	if p.lastRun == nil {
		p.lastRun = make([]sim.Time, h.cfg.NrCPUs)
		p.gran = KblockdPreemptGranularity(h.cfg.NrCPUs)
	}
	return p
}

// runInsertAsync is the blk_mq_run_hw_queue(hctx, true) that ends an unplugged
// submission's insert (blk_mq_submit_bio → blk_mq_sched_insert_request(rq, false,
// true, true): every submission with an elevator, and async I/O to a busy hctx
// without one), issued by the submitting task on cpu.
//
// Unless Options.NoKblockdWakeupPreempt, when the work goes to cpu's own kblockd worker,
// is not pending already, and the submitter has run more than
// KblockdPreemptGranularity of CPU time since that worker last ran, the worker's
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
	if host.cpu.cpus[cpu].BusyTime()-p.lastRun[cpu] <= p.gran {
		h.runHwQueue(true)
		return
	}
	q.stats.AsyncRuns++
	p.runs++
	host.onCPU(cpu)
	host.charge(host.cpu.c.Wakeup) // kblockd_mod_delayed_work_on → wake_up_worker
	host.charge(2 * host.cpu.c.kthreadSwitch())
	if h.singleHwQueue() {
		h.workCPU = cpu
	}
	host.kworkerStart(cpu)
	h.runHwQueueNow()
	host.kworkerRan(cpu)
	host.onCPU(cpu)
	if c := host.cpu.c.MMSwitch; c > 0 && p.others != nil && p.others(cpu, q.eng.Now()) {
		p.mm++
		host.charge(c) // the worker sleeps and CFS picks the other process
	}
	host.kblockdRan(cpu)
}
