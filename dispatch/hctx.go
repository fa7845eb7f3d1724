package dispatch

import (
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// Hctx is a hardware queue (struct blk_mq_hw_ctx): its software queues, dispatch list,
// driver tags (and scheduler tags with an elevator), run work and restart state.
type Hctx struct {
	q            *Queue
	index        int
	cpus         []int
	ctxs         []*Ctx
	ctxMap       []bool // hctx->ctx_map: ctx has queued requests
	nrCtxPending int
	dispatch     hctxDispatch // hctx->dispatch (workset.go: insertions mark the hctx)
	dispatchFrom int          // index of the ctx to serve next (hctx->dispatch_from)
	dispatchBusy int          // EWMA (blk_mq_update_dispatch_busy)
	schedRestart bool         // BLK_MQ_S_SCHED_RESTART
	th           *tagset.Hctx // tag state: driver/sched tags, activity, dispatch_wait
	runWork      runWork
	waitHook     dispatchWait // dispatch_wait of the R07 pre-barrier era only
	waitIndex    int          // wait_index of that hook
	nextCPU      int          // async runs rotate over cpus every 8 runs
	nextCPUBatch int
	workCPU      int           // single hw queue: the CPU that last queued the run work
	lk           *sim.SpinLock // hctx->lock in the contention model (cpu.go listLockAt)

	stats HctxStats
}

// HctxStats are counters of one hardware queue.
type HctxStats struct {
	Runs        uint64 // dispatch runs
	Dispatched  uint64 // requests accepted by the device through this hctx
	MaxDispatch int    // largest dispatch-list length seen
	// Punted counts synchronous runs requested from a CPU outside the hctx's
	// cpumask, which go to kblockd instead of running inline.
	Punted uint64
}

// Index returns the hctx number.
func (h *Hctx) Index() int { return h.index }

// CPUs returns the CPUs mapped to the hctx.
func (h *Hctx) CPUs() []int { return h.cpus }

// DispatchBusy returns the dispatch_busy EWMA.
func (h *Hctx) DispatchBusy() int { return h.dispatchBusy }

// DispatchLen returns the length of hctx->dispatch.
func (h *Hctx) DispatchLen() int { return h.dispatch.n }

// Tags returns the driver tags (hctx->tags).
func (h *Hctx) Tags() *tagset.Tags { return h.th.Tags() }

// SchedTags returns the scheduler tags (nil without elevator).
func (h *Hctx) SchedTags() *tagset.Tags { return h.th.SchedTags() }

// TagState returns the hctx's tag-side state in the tagset package.
func (h *Hctx) TagState() *tagset.Hctx { return h.th }

// Stats returns the hctx counters.
func (h *Hctx) Stats() HctxStats { return h.stats }

// SchedRestart reports whether BLK_MQ_S_SCHED_RESTART is set.
func (h *Hctx) SchedRestart() bool { return h.schedRestart }

// RunPending reports whether a run (asynchronous or delayed) is scheduled.
func (h *Hctx) RunPending() bool { return h.runWork.pending }

// WaitHookQueued reports whether the hctx's dispatch-wait hook is on a tag waitqueue.
func (h *Hctx) WaitHookQueued() bool { return h.th.DispatchWaitQueued() || h.waitHook.queued }

// hasPending is blk_mq_hctx_has_pending: dispatch list, a marked ctx, or elevator work.
func (h *Hctx) hasPending() bool {
	if !h.dispatch.empty() || h.nrCtxPending > 0 {
		return true
	}
	return h.q.elevator != nil && h.q.elevator.HasWork(h)
}

// markCtxPending sets the ctx's bit in ctx_map (blk_mq_hctx_mark_pending).
func (h *Hctx) markCtxPending(c *Ctx) {
	if !h.ctxMap[c.indexHw] {
		h.ctxMap[c.indexHw] = true
		h.nrCtxPending++
		h.markMayWork()
	}
}

// clearCtxPending clears the ctx's bit (blk_mq_hctx_clear_pending).
func (h *Hctx) clearCtxPending(c *Ctx) {
	if h.ctxMap[c.indexHw] {
		h.ctxMap[c.indexHw] = false
		h.nrCtxPending--
	}
}

// runWork is the hctx's single delayed work item (hctx->run_work on kblockd). at is
// when the work is due; the engine event may sit earlier (evAt <= at) and re-arms
// itself on firing, so postponing a pending work costs no heap operation.
type runWork struct {
	h       *Hctx
	id      sim.EventID
	at      sim.Time // due time of the pending work
	evAt    sim.Time // time of the scheduled engine event (valid when id != 0)
	pending bool
	// deferred: the due work already waited once for its CPU (CPU costs)
	deferred bool
	// kwOn: the work has woken kwCPU's kblockd worker (queued with delay 0, or due
	// and waiting for its CPU), which counts as a task there (kworkers)
	kwOn  bool
	kwCPU int
	// recv is the CPU time the worker's CPU spends receiving the wake-up (the IPI and,
	// from idle, the activation; Timing.KblockdTTWU), charged there when the run
	// starts
	recv sim.Time
	// chained: under Timing.KblockdTTWU the work was queued while its CPU's kblockd
	// worker was running another item, which takes it without a wake-up or a context
	// switch (kernel/workqueue.c insert_work: no wake_up_worker while
	// pool->nr_running; worker_thread's keep_working loop)
	chained bool
	// waitOn is 1 + the CPU this work's woken worker waits for under
	// Timing.IRQPreempt (Host.kwWait), 0 when it does not wait
	waitOn int
	// switching: under the ProcessOneWork rule (Timing.NoProcessOneWork unset) the woken worker is being switched in
	// (its IPI receive and context switch charged on its CPU, due at their end);
	// the work is still PENDING, so a run queued meanwhile is absorbed by it
	switching bool
	switchCPU int // the CPU it is switched in on
}

// Fire runs the hctx from kblockd (blk_mq_run_work_fn), or re-arms a postponed work.
func (w *runWork) Fire(now sim.Time) {
	w.id = 0
	if !w.pending {
		return
	}
	if w.at > now {
		w.evAt = w.at
		w.id = w.h.q.eng.At(w.at, w)
		return
	}
	h := w.h
	var cpu int
	if w.switching {
		cpu = w.switchCPU // the worker switched in there (ProcessOneWork)
	} else {
		cpu = h.runCPU()
	}
	if t := h.q.host.busyUntil(cpu); t > now && !w.deferred {
		// kblockd's worker runs once the CPU has finished its earlier work
		w.deferred = true
		w.at, w.evAt = t, t
		w.id = h.q.eng.At(t, w)
		w.kwQueue(cpu)   // the woken worker waits for its CPU
		w.kwWaitAdd(cpu) // and goes before the task's next step (Timing.IRQPreempt)
		return
	}
	if !h.q.host.timing.NoProcessOneWork && !w.switching && w.switchIn(cpu, now) {
		return // the work function runs once the worker is on the CPU
	}
	w.pending, w.deferred = false, false
	w.kwWaitDone()
	h.q.host.onCPU(cpu)
	start := h.q.host.busyUntilTime(cpu)
	switch {
	case w.switching:
		w.switching = false
		if !w.chained {
			h.q.host.charge(h.q.host.cpu.c.kthreadSwitch()) // away from it when it sleeps again
		}
	default:
		h.q.host.charge(w.recv)
		w.recv = 0
		// the kblockd kworker's two context switches (CPUCosts.LazyTLBSwitch, else
		// Switch; 0 natively): to it when woken, and away when worker_thread sleeps again
		if !w.chained {
			h.q.host.charge(2 * h.q.host.cpu.c.kthreadSwitch())
		}
	}
	w.chained = false
	h.q.host.kworkerStart(cpu)
	h.runHwQueueNow()
	h.q.host.kworkerRan(cpu)
	h.q.host.kblockdRan(cpu, start, h.q.host.busyUntilTime(cpu))
	w.kwRan(cpu)
}

// switchIn is the worker's arrival on cpu under the ProcessOneWork rule (Timing.NoProcessOneWork unset): the CPU
// receives the wake-up (runWork.recv) and switches to the worker (CPUCosts.LazyTLBSwitch,
// else Switch, unless the worker was already running an item: chained) before worker_thread
// reaches process_one_work, which clears the work's PENDING bit just before it
// calls blk_mq_run_work_fn (kernel/workqueue.c). switchIn charges that arrival and
// re-arms the work for its end, still pending, and reports true; with nothing to
// charge (native costs: no switch cost, no IPI receive) it reports false and the
// run goes on at once, as with the switch off.
func (w *runWork) switchIn(cpu int, now sim.Time) bool {
	host := w.h.q.host
	sw := host.cpu.c.kthreadSwitch()
	if w.chained || !host.cpu.on {
		sw = 0
	}
	w.switching, w.switchCPU = true, cpu
	if w.recv == 0 && sw == 0 {
		return false
	}
	w.kwWaitAdd(cpu) // the worker has the CPU: a fio step waits for it (Timing.IRQPreempt)
	host.onCPU(cpu)
	host.charge(w.recv + sw)
	w.recv = 0
	t := host.busyUntil(cpu)
	w.deferred = true // the CPU is the worker's now: no second wait for it
	w.at, w.evAt = t, t
	w.id = w.h.q.eng.At(t, w)
	return true
}

// runCPU is the CPU whose kblockd worker runs the work (blk_mq_hctx_next_cpu). On a
// queue with a single hw queue blk_mq_hctx_next_cpu returns WORK_CPU_UNBOUND, and
// kblockd, a per-CPU workqueue, then queues the work on the CPU that called
// kblockd_mod_delayed_work_on (__queue_work takes raw_smp_processor_id(); a delayed
// run's timer fires on the CPU that armed it): runCPU returns workCPU, set by every
// queueing (runAsyncFrom, delayRunFrom). Otherwise kblockd runs the hctx on its CPUs
// in turn, moving to the next one every BLK_MQ_CPU_WORK_BATCH (8) runs.
func (h *Hctx) runCPU() int {
	if len(h.cpus) == 0 {
		return 0 // unmapped: runHwQueueNow does nothing
	}
	if h.singleHwQueue() {
		return h.workCPU
	}
	if len(h.cpus) == 1 {
		return h.cpus[0]
	}
	if h.nextCPUBatch++; h.nextCPUBatch > 8 {
		h.nextCPUBatch = 1
		h.nextCPU = (h.nextCPU + 1) % len(h.cpus)
	}
	return h.cpus[h.nextCPU]
}

// singleHwQueue reports whether the hctx's queue has one hw queue
// (hctx->queue->nr_hw_queues == 1), where kblockd work is not bound to the hctx's CPUs.
func (h *Hctx) singleHwQueue() bool { return len(h.q.hctxs) == 1 }

// modify (re)arms the work to be due at t (kblockd_mod_delayed_work_on: a pending work
// is moved to the new time, earlier or later).
func (w *runWork) modify(t sim.Time) {
	w.pending, w.at, w.deferred, w.switching = true, t, false, false
	w.kwWaitDone()
	if w.id != 0 {
		if w.evAt <= t {
			return // the event fires first and re-arms to t
		}
		w.h.q.eng.Cancel(w.id)
	}
	w.evAt = t
	w.id = w.h.q.eng.At(t, w)
}

// runHwQueue is blk_mq_run_hw_queue(hctx, async) issued from the CPU running the
// current path (runHwQueueFrom).
func (h *Hctx) runHwQueue(async bool) { h.runHwQueueFrom(h.q.host.cpu.cur, async) }

// runHwQueueFrom is blk_mq_run_hw_queue(hctx, async) issued from cpu: nothing when no
// work is pending; otherwise __blk_mq_delay_run_hw_queue(hctx, async, 0) of v6.1
// (block/blk-mq.c), which dispatches inline only when the run is synchronous, the tag
// set is not BLK_MQ_F_BLOCKING and cpu is in hctx->cpumask; every other run queues the
// kblockd work with delay 0, on blk_mq_hctx_next_cpu (runAsync). A synchronous request
// from a CPU outside the cpumask (a kworker or completion on another hctx's CPU) is
// counted in HctxStats.Punted.
func (h *Hctx) runHwQueueFrom(cpu int, async bool) {
	if len(h.cpus) == 0 || !h.hasPending() {
		return // an unmapped hctx (more hw queues than CPUs) is never run
	}
	if async || h.q.host.cfg.Flags&BlkMqFBlocking != 0 {
		h.runAsyncFrom(cpu)
		return
	}
	if !h.inCPUMask(cpu) {
		h.stats.Punted++
		h.runAsyncFrom(cpu)
		return
	}
	h.runHwQueueNow()
}

// inCPUMask reports whether cpu is in hctx->cpumask: the CPUs whose software queue
// maps to this hctx.
func (h *Hctx) inCPUMask(cpu int) bool {
	return cpu >= 0 && cpu < len(h.q.cpuHctx) && h.q.cpuHctx[cpu] == h.index
}

// runAsync queues the kblockd run with delay 0 from the CPU running the current path.
func (h *Hctx) runAsync() { h.runAsyncFrom(h.q.host.cpu.cur) }

// runAsyncFrom queues the kblockd run with delay 0 from cpu. A run already pending to
// fire sooner is kept (mod_delayed_work with delay 0 would fire it now; both are "as
// soon as kblockd runs"), unless the queue has a single hw queue and cpu is not the
// CPU the work is queued on: mod_delayed_work_on(WORK_CPU_UNBOUND) takes the work back
// and queues it on cpu's kblockd worker.
//
// The work is due the kblockd wake-up latency after cpu reaches this call in its path
// (Host.kblockdQueuedAt), not after the path's start: a completion frees the budget
// early (scsi_device_unbusy) but asks for the reruns last (scsi_run_queue_async at the
// end of scsi_end_request), so no kworker it wakes can run before the completion's
// CPU time charged so far has passed.
//
// Under the ProcessOneWork rule (Timing.NoProcessOneWork unset) a run queued while the work's worker is being switched
// in is kept whatever its due time: the work is still PENDING (try_to_grab_pending
// then re-queues it where the arriving worker finds it).
//
// Under Timing.KblockdTTWU the due time depends on whether the worker is cpu's own or
// another CPU's (Host.kblockdDue); a run kept pending sends no new IPI (the worker
// is runnable already: try_to_wake_up finds it so and returns); a run queued while
// the target's worker is running a work item is taken by that worker when the item
// ends, with no wake-up, IPI or context switch (Host.kworkerRunning).
func (h *Hctx) runAsyncFrom(cpu int) {
	h.q.stats.AsyncRuns++
	host := h.q.host
	target := h.kblockdTarget(cpu)
	t, recv := host.kblockdDue(cpu, target)
	moved := h.singleHwQueue() && h.runWork.pending && h.workCPU != cpu
	kept := h.runWork.pending && (h.runWork.at <= t || h.runWork.switching) && !moved
	running := false
	if host.timing.KblockdTTWU && !kept {
		if end, ok := host.kworkerRunning(cpu, target); ok {
			t, recv, running = end, 0, true // no wake_up_worker, no IPI
		}
	}
	if !running {
		host.charge(host.cpu.c.Wakeup) // queue the work, wake kblockd
		if host.serialLoop() {
			host.kblockdLoopWakes += host.cpu.c.Wakeup // the next queueing's wake leaves after it
		}
	}
	if h.singleHwQueue() {
		h.workCPU = cpu
	}
	if kept {
		return
	}
	h.runWork.modify(t)
	h.runWork.recv = recv
	h.runWork.chained = running
	if h.q.host.kw.on {
		h.runWork.kwQueue(h.kwCPUPeek())
	}
}

// kblockdTarget is the CPU whose kblockd worker a run queued now from cpu wakes: cpu
// itself on a single hw queue (WORK_CPU_UNBOUND queues on the running CPU), otherwise
// the CPU blk_mq_hctx_next_cpu will pick (kwCPUPeek).
func (h *Hctx) kblockdTarget(cpu int) int {
	if h.singleHwQueue() {
		return cpu
	}
	return h.kwCPUPeek()
}

// delayRun is blk_mq_delay_run_hw_queue(hctx, 3 ms) from the current CPU.
func (h *Hctx) delayRun() { h.delayRunFrom(h.q.host.cpu.cur) }

// delayRunFrom is blk_mq_delay_run_hw_queue(hctx, 3 ms) issued from cpu: (re)arm the
// work 3 ms from now (on a single hw queue, on cpu's kblockd worker).
func (h *Hctx) delayRunFrom(cpu int) {
	h.q.stats.DelayedRuns++
	if h.singleHwQueue() {
		h.workCPU = cpu
	}
	h.runWork.modify(h.q.eng.Now() + h.q.host.timing.ResourceDelay)
	h.runWork.recv = 0   // add_timer_on: the timer fires on the worker's CPU, no IPI
	h.runWork.kwCancel() // a timer now: no worker is woken until it fires
}

// runHwQueueNow is __blk_mq_run_hw_queue: one dispatch run
// (blk_mq_sched_dispatch_requests).
func (h *Hctx) runHwQueueNow() {
	if len(h.cpus) == 0 {
		return
	}
	h.stats.Runs++
	h.q.stats.Runs++
	h.q.host.charge(h.q.host.cpu.c.QueueRun)
	h.schedDispatchRequests()
}

// dispatchWait is the hctx's dispatch_wait entry: a non-exclusive hook on a driver-tag
// waitqueue whose wake-up re-runs the hctx asynchronously (blk_mq_dispatch_wake).
type dispatchWait struct {
	h      *Hctx
	w      sbitmap.Waiter
	bt     *sbitmap.Queue
	queued bool

	pendingAdd bool        // R07 bad era: registration not yet visible
	addAt      int         // wait queue of the pending registration
	addCPU     int         // CPU that made the pending registration
	addID      sim.EventID // the event making it visible to the other CPUs
}

// wake is blk_mq_dispatch_wake: unhook and run the hctx asynchronously.
func (d *dispatchWait) wake(*sbitmap.Waiter) {
	d.queued = false // sbitmap unhooked it before calling Wake
	d.h.runAsync()
}

// runHwQueues is blk_mq_run_hw_queues(q, async) issued from cpu: every hctx, or with a
// single-queue elevator (v5.12+) the hctx of cpu plus hctxs with a non-empty dispatch
// list.
//
// An asynchronous call queues every hctx's work from the one point cpu reached when
// it made the call (Host.kblockdFrom): the wake-up cost each queueing charges is the
// waking CPU's time, not a delay of the other kworkers.
func (q *Queue) runHwQueues(cpu int, async bool) {
	if h := q.host; async && !h.kblockdFromSet {
		h.kblockdFrom, h.kblockdFromSet = h.kblockdQueuedAt(cpu), true
		h.kblockdLoopWakes = 0
		defer h.endRunHwQueues()
	}
	sq := q.sqHctx(cpu)
	if q.elevator == nil {
		q.runMarkedHwQueues(sq, async) // the same hctxs in the same order (workset.go)
		return
	}
	for _, x := range q.hctxs {
		if sq != nil && x != sq && x.dispatch.empty() {
			continue
		}
		x.runHwQueueFrom(cpu, async)
	}
}

// endRunHwQueues ends an asynchronous runHwQueues call.
func (h *Host) endRunHwQueues() { h.kblockdFromSet, h.kblockdLoopWakes = false, 0 }

// delayRunHwQueues is blk_mq_delay_run_hw_queues(q, 3 ms) issued from cpu: hctxs whose
// run work is already pending are skipped.
func (q *Queue) delayRunHwQueues(cpu int) {
	sq := q.sqHctx(cpu)
	for _, x := range q.hctxs {
		if sq != nil && x != sq && x.dispatch.empty() {
			continue
		}
		if x.runWork.pending {
			continue
		}
		x.delayRunFrom(cpu)
	}
}

// sqHctx returns the hctx to run for a single-queue elevator (blk_mq_get_sq_hctx), or
// nil when every hctx must run.
func (q *Queue) sqHctx(cpu int) *Hctx {
	if q.elevator == nil || !q.elevator.SingleQueue() || q.opts.RunAllHctxsWithSQSched {
		return nil
	}
	return q.HctxOf(cpu)
}
