package dispatch

import "github.com/blkmq/blkmq/sim"

// kworkers is the scheduler's view of the host's kblockd workers: a kworker is a task
// (a kthread of the per-CPU kblockd pool, scheduled by CFS), so while it is runnable or
// running on a CPU that CPU is not idle for available_idle_cpu (kernel/sched/core.c
// idle_cpu: rq->curr is not the idle task, or rq->nr_running or rq->ttwu_pending is
// set). A run queued with delay 0 wakes the worker at once (__queue_work →
// wake_up_worker → try_to_wake_up), so the worker counts from the queueing until the
// run's work is done; a delayed run (BLK_MQ_BUDGET_DELAY) is a timer until it fires.
type kworkers struct {
	on      bool       // TrackKworkers: kept only when someone reads KworkerBusy
	pending []int      // per CPU: hctx run works queued with delay 0, not yet run
	until   []sim.Time // per CPU: end of the last run's charged work
}

// kwFor returns the state sized for cpu.
func (h *Host) kwFor(cpu int) *kworkers {
	k := &h.kw
	if k.pending == nil {
		k.pending = make([]int, h.cfg.NrCPUs)
		k.until = make([]sim.Time, h.cfg.NrCPUs)
	}
	return k
}

// TrackKworkers turns on the bookkeeping KworkerBusy reads (off by default, so the
// hctx runs of a caller that never asks do not carry it). Call it before the run
// starts.
func (h *Host) TrackKworkers() { h.kw.on = true }

// KworkerBusy reports whether one of the host's kblockd workers is runnable or running
// on cpu at now: a run of an hctx queued there with delay 0 and not yet done, or the
// work of the last run not yet finished. The scheduler's idle test (available_idle_cpu)
// fails on such a CPU. CPUs out of range report false.
func (h *Host) KworkerBusy(cpu int, now sim.Time) bool {
	if cpu < 0 || cpu >= h.cfg.NrCPUs || h.kw.pending == nil {
		return false
	}
	return h.kw.pending[cpu] > 0 || h.kw.until[cpu] > now
}

// kwQueue marks the hctx's run work as having woken the kblockd worker of cpu.
func (w *runWork) kwQueue(cpu int) {
	if !w.h.q.host.kw.on || w.kwOn && w.kwCPU == cpu {
		return
	}
	w.kwCancel()
	w.h.q.host.kwFor(cpu).pending[cpu]++
	w.kwOn, w.kwCPU = true, cpu
}

// kwCancel forgets the worker wake-up (the work became a timer again, or ran).
func (w *runWork) kwCancel() {
	if w.kwOn {
		w.h.q.host.kw.pending[w.kwCPU]--
		w.kwOn = false
	}
}

// kwRan records the end of a run on cpu: the worker occupies the CPU until the run's
// charged work is done.
func (w *runWork) kwRan(cpu int) {
	if !w.h.q.host.kw.on {
		return
	}
	w.kwCancel()
	k := w.h.q.host.kwFor(cpu)
	k.until[cpu] = max(k.until[cpu], w.h.q.host.busyUntil(cpu))
}

// kwCPUPeek is the CPU the next run of the work goes to (runCPU without advancing its
// rotation).
func (h *Hctx) kwCPUPeek() int {
	switch {
	case len(h.cpus) == 0:
		return 0
	case h.singleHwQueue():
		return h.workCPU
	case len(h.cpus) == 1:
		return h.cpus[0]
	}
	if h.nextCPUBatch+1 > 8 {
		return h.cpus[(h.nextCPU+1)%len(h.cpus)]
	}
	return h.cpus[h.nextCPU]
}
