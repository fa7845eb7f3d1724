package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// SubmitResult is the outcome of SubmitBio.
type SubmitResult uint8

const (
	// Queued: the bio is in a new request, queued or issued.
	Queued SubmitResult = iota
	// Merged: the bio was merged into an existing request.
	Merged
	// WouldBlock: REQ_NOWAIT and no tag was free (the bio gets -EAGAIN; the caller
	// still owns it and EndBio is not called).
	WouldBlock
	// Sleeping: the submitting task sleeps in blk_mq_get_tag; its TagWaiter's Sleeper
	// is told when the bio has been queued.
	Sleeping
	// Deferred: submitted from inside a completion (a Bio.End callback) under
	// Timing.IRQPreempt; the submission runs later in the submitting task's context
	// (Host.deferSubmit). Its outcome is not reported here: a merge or a queued
	// request completes through Bio.End as usual, a sleeping TagWaiter is told
	// Unblocked, and a REQ_NOWAIT bio that finds no tag ends with ErrAgain.
	Deferred
)

// String returns the result's name.
func (r SubmitResult) String() string {
	switch r {
	case Queued:
		return "queued"
	case Merged:
		return "merged"
	case WouldBlock:
		return "would-block"
	case Sleeping:
		return "sleeping"
	case Deferred:
		return "deferred"
	}
	return fmt.Sprintf("SubmitResult(%d)", uint8(r))
}

// Sleeper is a task that can sleep in blk_mq_get_tag (an io-wq worker, a libaio or
// psync submitter).
type Sleeper interface {
	// WakeCPU is called when the sleeping task runs again after a wake-up; it returns
	// the CPU it now runs on (a task may migrate while asleep).
	WakeCPU(now sim.Time) int
	// Unblocked is called once the bio that made the task sleep has been merged or
	// queued: the task returns from submit_bio.
	Unblocked(b *Bio, now sim.Time)
}

// WakePlacer is a Sleeper the scheduler places when it is woken: try_to_wake_up runs
// select_task_rq on the waking CPU (wakerCPU, the one freeing the tag) and enqueues the
// task on the chosen CPU at once, before the wake-up latency after which WakeCPU is
// called.
type WakePlacer interface {
	Woken(wakerCPU int)
}

// WakeRunCPU is a Sleeper that knows, right after a wake-up (after WakePlacer's
// Woken, if it is one), the CPU it will run on: Timing.GetTagIOScheduleReturn makes
// its retry wait for that CPU's charged work. A Sleeper without it is taken to run on
// the CPU it slept on.
type WakeRunCPU interface {
	RunCPU() int
}

// TagWaiter is a task's blocking tag allocation (blk_mq_get_tag with its struct
// sbq_wait): a tagset.TagAlloc whose wake-up schedules the task after the scheduler's
// wake-up latency. A task owns one and passes it to every blocking SubmitBio; it must
// not be reused while Sleeping.
type TagWaiter struct {
	S Sleeper
	// Plug is the task's plug, flushed (from schedule) before the task sleeps; nil
	// for none.
	Plug *Plug

	alloc    tagset.TagAlloc
	q        *Queue
	bio      *Bio
	sleeping bool
	wakerCPU int // the CPU that ran the last wake-up (try_to_wake_up's this_cpu)

	// callbacks bound once (no allocation per wait)
	runHctx     func(*tagset.Hctx)
	currentHctx func() (*tagset.Hctx, int)
	woken       func(*tagset.TagAlloc)
}

// Sleeping reports whether the task sleeps in blk_mq_get_tag.
func (t *TagWaiter) Sleeping() bool { return t.sleeping }

// WakerCPU returns the CPU that ran the task's last wake-up from blk_mq_get_tag (the
// CPU that freed the tag and called try_to_wake_up: the scheduler's this_cpu in
// select_task_rq_fair), for the Sleeper's WakeCPU to place the task.
func (t *TagWaiter) WakerCPU() int { return t.wakerCPU }

// SubmitBio is blk_mq_submit_bio for a task on cpu (§5.1): merge into a queued request
// (ctx list or elevator), else allocate a request — failing with WouldBlock when nowait,
// or sleeping on tw (which must be non-nil) — then insert it or issue it directly.
// SubmitBio panics on a malformed bio (Length <= 0, Offset < 0, nil End) or a cpu out
// of range: programming errors.
func (q *Queue) SubmitBio(b *Bio, cpu int, nowait bool, tw *TagWaiter) SubmitResult {
	return q.SubmitBioPlug(b, cpu, nowait, tw, nil)
}

// SubmitBioPlug is SubmitBio for a task with an active plug (nil or inactive: none):
// the plug's last request is tried for a merge first, and a new request is added to
// the plug instead of being issued (§5.3).
func (q *Queue) SubmitBioPlug(b *Bio, cpu int, nowait bool, tw *TagWaiter, plug *Plug) SubmitResult {
	if b.Length <= 0 || b.Offset < 0 || b.End == nil {
		panic(fmt.Sprintf("dispatch: SubmitBio with Offset %d, Length %d, End %v", b.Offset, b.Length, b.End))
	}
	if cpu < 0 || cpu >= len(q.ctxs) {
		panic(fmt.Sprintf("dispatch: SubmitBio on cpu %d, want [0, %d)", cpu, len(q.ctxs)))
	}
	if q.host.deferSubmit(q, b, cpu, nowait, tw, plug) {
		return Deferred // from inside an interrupt: the task's work (Host.deferSubmit)
	}
	if q.frz.frozen { // blk_queue_enter (dispatch/freeze.go)
		return q.enterFrozen(b, cpu, nowait, tw, plug)
	}
	if q.needsSplit(b) { // more than one bio or request (dispatch/split.go)
		return q.submitSplit(b, cpu, nowait, tw, plug)
	}
	return q.submitOne(b, cpu, nowait, tw, plug)
}

// submitOne is blk_mq_submit_bio for one bio that fits the queue limits.
func (q *Queue) submitOne(b *Bio, cpu int, nowait bool, tw *TagWaiter, plug *Plug) SubmitResult {
	q.stats.Bios++
	h := q.host
	h.onCPU(cpu)
	h.charge(h.cpu.c.SubmitCharge(b.SameCall) + h.cpu.c.BioAlloc)
	if plug.Active() && plug.merge(q, b) {
		h.charge(h.cpu.c.Merge)
		return Merged
	}
	if q.bioMerge(b, cpu) {
		h.charge(h.cpu.c.Merge)
		return Merged
	}
	rq := q.cachedRequest(plug, b)
	if rq == nil {
		rq = q.allocRequestPlug(b, cpu, nowait, tw, plug)
	}
	if rq == nil {
		if nowait {
			return WouldBlock
		}
		return Sleeping
	}
	if plug.Active() {
		plug.add(rq, cpu)
		return Queued
	}
	q.queueNewRequest(rq, b, cpu)
	return Queued
}

// bioMerge is blk_mq_sched_bio_merge: the elevator's bio_merge, or without elevator
// the last eight requests of the ctx list (blk_bio_list_merge).
func (q *Queue) bioMerge(b *Bio, cpu int) bool {
	if q.elevator != nil {
		q.elevatorLock()
		if q.elevator.BioMerge(b, q.maxBytes) {
			q.stats.Merges++
			q.disk.merge(b.Op)
			b.AllocatedAt = q.eng.Now()
			return true
		}
		return false
	}
	c := q.ctxs[cpu]
	if c.rqList.empty() { // list_empty_careful: no lock
		return false
	}
	q.ctxLock(c, 0)
	if ctxBioMerge(&c.rqList, b, q.maxBytes) {
		c.nrMerges++
		q.stats.Merges++
		q.disk.merge(b.Op)
		b.AllocatedAt = q.eng.Now()
		return true
	}
	return false
}

// ctxMergeScan is the number of requests blk_bio_list_merge looks at.
const ctxMergeScan = 8

// ctxBioMerge scans list backwards, at most eight requests, for a back or front merge
// within maxBytes.
func ctxBioMerge(list *rqList, b *Bio, maxBytes int64) bool {
	n := 0
	for rq := list.tail; rq != nil && n < ctxMergeScan; rq, n = rq.prev, n+1 {
		switch rq.canMerge(b, maxBytes) {
		case backMergeKind:
			rq.backMerge(b)
			return true
		case frontMergeKind:
			rq.frontMerge(b)
			return true
		}
	}
	return false
}

// limitDepth is blk_mq_limit_depth's elevator part: the shallow depth for the sched
// tag (0 = none).
func (q *Queue) limitDepth(b *Bio) int {
	if q.elevator != nil {
		return q.elevator.LimitDepth(b)
	}
	return 0
}

// allocRequest is __blk_mq_alloc_requests + blk_mq_get_tag (§3.4–3.5, tagset.TagAlloc):
// a sched tag with an elevator, else a driver tag (tag busy, fair share). It returns
// nil when nowait and no tag is free, or when the task now sleeps on tw.
func (q *Queue) allocRequest(b *Bio, cpu int, nowait bool, tw *TagWaiter) *Request {
	h := q.HctxOf(cpu)
	if nowait {
		a := &q.nowaitAlloc
		*a = tagset.TagAlloc{Hctx: h.th, CPU: cpu, NoWait: true, ShallowDepth: q.limitDepth(b)}
		if a.Start() != tagset.AllocGot {
			return nil
		}
		return q.initRequest(h, cpu, a.Tag, b)
	}
	if tw == nil {
		panic("dispatch: blocking SubmitBio without a TagWaiter")
	}
	if tw.sleeping {
		panic("dispatch: SubmitBio with a TagWaiter whose task is already sleeping")
	}
	tw.bind(q, b)
	a := &tw.alloc
	*a = tagset.TagAlloc{Hctx: h.th, CPU: cpu, ShallowDepth: q.limitDepth(b),
		RunHctx: tw.runHctx, CurrentHctx: tw.currentHctx, Woken: tw.woken}
	return tw.afterAlloc(a.Start(), cpu)
}

// bind sets the waiter's queue, bio and callbacks.
func (tw *TagWaiter) bind(q *Queue, b *Bio) {
	tw.bio, b.waiter = b, tw
	if tw.q == q && tw.runHctx != nil {
		return
	}
	tw.q = q
	// blk_mq_run_hw_queue(data->hctx, false) before each sleep
	tw.runHctx = func(th *tagset.Hctx) { q.hctxs[th.Index()].runHwQueue(false) }
	// re-map CPU → ctx → hctx after waking
	tw.currentHctx = func() (*tagset.Hctx, int) {
		cpu := tw.S.WakeCPU(q.eng.Now())
		q.host.onCPU(cpu)
		bt, _ := tw.alloc.WaitQueue()
		q.host.chargeSbqFinish(bt) // sbitmap_finish_wait (CPUCosts.SbqWakeLines)
		return q.HctxOf(cpu).th, cpu
	}
	// the task becomes runnable and runs after the wake-up latency (try_to_wake_up
	// charged on the waking CPU)
	tw.woken = func(*tagset.TagAlloc) {
		tw.wakerCPU = q.host.cpu.cur
		if p, ok := tw.S.(WakePlacer); ok {
			p.Woken(tw.wakerCPU)
		}
		if h := q.host; h.timing.KblockdTTWU {
			// the same try_to_wake_up as a kblockd worker's (Timing.KblockdTTWU)
			t, _ := h.kblockdDue(tw.wakerCPU, tw.alloc.CPU)
			h.chargeSbqWake(tw.alloc.WaitQueue())
			h.wakeTask(tw.alloc.CPU, tw.ioScheduleReturn(t), tw)
			return
		}
		q.host.chargeSbqWake(tw.alloc.WaitQueue()) // try_to_wake_up, under the wait queue's lock with SbqWakeLines
		q.host.wakeTask(tw.alloc.CPU, tw.ioScheduleReturn(q.eng.Now()+q.host.wakeupDelay()), tw)
	}
}

// ioScheduleReturn is when the woken task's io_schedule returns, given its wake-up is
// due at t (Host.ioScheduleReturn on the CPU it runs on).
func (tw *TagWaiter) ioScheduleReturn(t sim.Time) sim.Time {
	return tw.q.host.ioScheduleReturn(tw.runCPU(), t)
}

// runCPU is the CPU the woken task runs on: WakeRunCPU's, else the one it slept on.
func (tw *TagWaiter) runCPU() int {
	if r, ok := tw.S.(WakeRunCPU); ok {
		return r.RunCPU()
	}
	return tw.alloc.CPU
}

// ioScheduleReturn is when a tag sleeper woken to run on cpu, due at t, returns from
// io_schedule: t, or under Timing.GetTagIOScheduleReturn no earlier than the end of
// the work charged to cpu by now (charges made after the wake-up follow it).
func (h *Host) ioScheduleReturn(cpu int, t sim.Time) sim.Time {
	if !h.timing.GetTagIOScheduleReturn || cpu < 0 || cpu >= len(h.cpu.cpus) {
		return t
	}
	return max(t, h.busyUntil(cpu))
}

// afterAlloc turns the allocation status into a request, or puts the task to sleep
// (flushing its plug, as io_schedule does).
func (tw *TagWaiter) afterAlloc(st tagset.AllocStatus, cpu int) *Request {
	q := tw.q
	a := &tw.alloc
	if st == tagset.AllocGot {
		if tw.sleeping {
			q.frz.usage-- // the request taken next holds the queue instead
		}
		tw.sleeping = false
		return q.initRequest(q.hctxs[a.Hctx.Index()], a.CPU, a.Tag, tw.bio)
	}
	q.host.chargeSbqSleep(a.WaitQueue()) // sbitmap_prepare_to_wait (CPUCosts.SbqWakeLines)
	if tw.Plug.Active() {
		tw.Plug.flush(cpu, true) // io_schedule → blk_flush_plug(from_schedule)
		tw.Plug.releaseCached(cpu)
	}
	if !tw.sleeping {
		q.frz.usage++ // asleep in blk_mq_get_tag, inside blk_queue_enter
	}
	tw.sleeping = true
	return nil
}

// Fire runs the woken task: tagset.TagAlloc.Resume finishes the wait, re-maps to the
// hctx of the CPU it now runs on (passing a wake-up to the old bitmap if that changed)
// and retries; on success the bio is queued and the Sleeper told.
func (tw *TagWaiter) Fire(now sim.Time) {
	q := tw.q
	if h := q.host; h.timing.GetTagRunQueueWait {
		// still runnable behind its CPU's work (Timing.GetTagRunQueueWait)
		if cpu := tw.runCPU(); cpu >= 0 && cpu < len(h.cpu.cpus) {
			if t := h.busyUntil(cpu); t > now {
				q.eng.At(t, tw)
				return
			}
		}
	}
	rq := tw.afterAlloc(tw.alloc.Resume(), tw.alloc.CPU)
	if rq == nil {
		return
	}
	b := tw.bio
	tw.bio = nil
	cpu, parent := rq.ctx.cpu, b.parent // rq and a part may be freed by a synchronous completion
	if tw.Plug.Active() {
		tw.Plug.add(rq, cpu)
	} else {
		q.queueNewRequest(rq, b, cpu)
	}
	if parent != nil && q.continueSplit(parent, cpu, tw, tw.Plug) == Sleeping {
		return // the next part of the split I/O sleeps (dispatch/split.go)
	}
	if parent != nil {
		b = parent
	}
	tw.S.Unblocked(b, now)
}

// initRequest is blk_mq_rq_ctx_init plus blk_mq_bio_to_request.
func (q *Queue) initRequest(h *Hctx, cpu, tag int, b *Bio) *Request {
	rq := q.taggedRequest(h, cpu, tag)
	q.useRequest(rq, b)
	if q.elevator != nil {
		q.chargeTag(h.th.SchedTags(), tag, true)
	} else {
		q.chargeTag(h.th.Tags(), tag, true)
	}
	return rq
}

// taggedRequest is blk_mq_rq_ctx_init's part before the bio: a request of h's
// software queue for cpu holding tag (the scheduler tag with an elevator, else the
// driver tag).
func (q *Queue) taggedRequest(h *Hctx, cpu, tag int) *Request {
	rq := q.allocRequestStruct()
	q.frz.usage++ // the request holds q_usage_counter until it is freed
	rq.hctx, rq.ctx = h, q.ctxs[cpu]
	if q.elevator != nil {
		rq.internalTag = tag
	} else {
		rq.tag = tag // an active request for fair sharing (counted by tagset)
	}
	return rq
}

// queueNewRequest is the tail of blk_mq_submit_bio without a plug: insert (elevator,
// or a busy hctx for async I/O) and run asynchronously, or issue directly.
func (q *Queue) queueNewRequest(rq *Request, b *Bio, cpu int) {
	h := rq.hctx
	if q.elevator != nil || (h.dispatchBusy != 0 || q.opts.Pre415.NoDispatchBusy) && (len(q.hctxs) == 1 || !rq.Sync) {
		q.insertRequest(rq, false)
		h.runInsertAsync(cpu) // runHwQueue(true), or kblockd preempting the submitter
		return
	}
	q.tryIssueDirectly(rq, cpu)
}

// insertRequest is blk_mq_sched_insert_request without the run: the elevator, or the
// tail (head) of the ctx list with the ctx marked pending.
func (q *Queue) insertRequest(rq *Request, atHead bool) {
	if q.elevator != nil {
		q.host.charge(q.host.cpu.c.Insert)
		q.elevatorLock()
		q.elevator.InsertRequest(rq, atHead)
		return
	}
	c := rq.ctx
	q.ctxLock(c, q.host.cpu.c.Insert)
	if atHead {
		c.rqList.pushFront(rq)
	} else {
		c.rqList.pushBack(rq)
	}
	rq.hctx.markCtxPending(c)
}

// tryIssueDirectly is blk_mq_try_issue_directly: budget, driver tag, queue_rq. Without
// budget or tag the request is inserted and the hctx run synchronously; a busy driver
// puts it on hctx->dispatch and runs the hctx.
func (q *Queue) tryIssueDirectly(rq *Request, cpu int) {
	h := rq.hctx
	token := q.getBudget(cpu)
	if token < 0 {
		q.insertRequest(rq, false)
		h.runHwQueue(false)
		return
	}
	rq.budgetToken = token
	if !q.getDriverTag(rq) {
		q.putBudget(token, cpu)
		rq.budgetToken = -1
		q.insertRequest(rq, false)
		h.runHwQueue(false)
		return
	}
	q.stats.DirectIssues++
	switch q.queueRq(rq, true, cpu) {
	case BlkStsOK:
		h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, false)
	default:
		h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, true)
		q.putDriverTag(rq)
		rq.markDispatchList(q.eng.Now())
		h.lockDispatch()
		h.dispatch.pushBack(rq) // blk_mq_request_bypass_insert
		h.runHwQueue(false)
	}
}
