package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
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

// TagWaiter is the wait-queue entry of one task (the struct sbq_wait on its stack). A
// task owns one and passes it to every blocking SubmitBio; it must not be reused while
// Sleeping.
type TagWaiter struct {
	S Sleeper
	// Plug is the task's plug, flushed (from schedule) before the task sleeps; nil
	// for none.
	Plug *Plug

	w        sbitmap.Waiter
	wakeFn   func(*sbitmap.Waiter)
	q        *Queue
	bio      *Bio
	bt       *Tags
	sleeping bool
}

// Sleeping reports whether the task sleeps in blk_mq_get_tag.
func (t *TagWaiter) Sleeping() bool { return t.sleeping }

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
	if plug.Active() && plug.merge(q, b) {
		return Merged
	}
	if q.bioMerge(b, cpu) {
		return Merged
	}
	rq := q.allocRequest(b, cpu, nowait, tw)
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
		if q.elevator.BioMerge(b, q.maxBytes) {
			q.stats.Merges++
			b.AllocatedAt = q.eng.Now()
			return true
		}
		return false
	}
	c := q.ctxs[cpu]
	if ctxBioMerge(&c.rqList, b, q.maxBytes) {
		c.nrMerges++
		q.stats.Merges++
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

// allocTags returns the bitmap a request of hctx h is allocated from and the shallow
// depth (blk_mq_limit_depth).
func (q *Queue) allocTags(h *Hctx, b *Bio) (*Tags, int) {
	if q.elevator != nil {
		return h.schedTags, q.elevator.LimitDepth(b)
	}
	h.tagBusy()
	return h.tags, 0
}

// tryGetTag is __blk_mq_get_tag: fair share first for driver tags, then the bitmap.
func (q *Queue) tryGetTag(h *Hctx, t *Tags, shallow, cpu int) int {
	if q.elevator == nil && !h.mayQueue() {
		return -1
	}
	return t.get(cpu, shallow)
}

// allocRequest is __blk_mq_alloc_requests + blk_mq_get_tag (§3.4–3.5). It returns nil
// when nowait and no tag is free, or when the task now sleeps on tw.
func (q *Queue) allocRequest(b *Bio, cpu int, nowait bool, tw *TagWaiter) *Request {
	h := q.HctxOf(cpu)
	t, shallow := q.allocTags(h, b)
	if tag := q.tryGetTag(h, t, shallow, cpu); tag >= 0 {
		return q.initRequest(h, cpu, tag, b)
	}
	if nowait {
		return nil
	}
	if tw == nil {
		panic("dispatch: blocking SubmitBio without a TagWaiter")
	}
	if tw.sleeping {
		panic("dispatch: SubmitBio with a TagWaiter whose task is already sleeping")
	}
	tw.q, tw.bio = q, b
	return q.getTagWait(tw, cpu)
}

// getTagWait is one pass of blk_mq_get_tag's wait loop for the task of tw on cpu: run
// the hctx, retry, register as an exclusive waiter, retry, and sleep.
func (q *Queue) getTagWait(tw *TagWaiter, cpu int) *Request {
	b := tw.bio
	h := q.HctxOf(cpu)
	t, shallow := q.allocTags(h, b)
	ws := h.nextWaitIndex()
	h.runHwQueue(false)
	if tag := q.tryGetTag(h, t, shallow, cpu); tag >= 0 {
		return q.initRequest(h, cpu, tag, b)
	}
	if tw.bt != t {
		// sbitmap binds a Waiter to one Queue for life: a task that migrated to
		// another hctx's tags waits with a fresh entry (it is not queued anywhere).
		if tw.wakeFn == nil {
			tw.wakeFn = tw.wake
		}
		tw.w = sbitmap.Waiter{Wake: tw.wakeFn}
	}
	tw.bt = t
	t.bitmap.PrepareWait(&tw.w, ws)
	if tag := q.tryGetTag(h, t, shallow, cpu); tag >= 0 {
		t.bitmap.FinishWait(&tw.w)
		return q.initRequest(h, cpu, tag, b)
	}
	if tw.Plug.Active() {
		tw.Plug.flush(cpu, true) // io_schedule → blk_flush_plug(from_schedule)
	}
	tw.sleeping = true
	return nil
}

// wake is the waiter's wake function: the task becomes runnable and runs after the
// scheduler's wake-up latency.
func (tw *TagWaiter) wake(*sbitmap.Waiter) {
	tw.q.eng.After(tw.q.host.wakeupDelay(), tw)
}

// Fire runs the woken task: finish the wait, re-map to the hctx of the CPU it now runs
// on (sending a compensating wake-up to the old bitmap if that changed), and retry.
func (tw *TagWaiter) Fire(now sim.Time) {
	q := tw.q
	old := tw.bt
	old.bitmap.FinishWait(&tw.w)
	cpu := tw.S.WakeCPU(now)
	h := q.HctxOf(cpu)
	if t, _ := q.allocTags(h, tw.bio); t != old {
		old.bitmap.WakeUp(1)
	}
	rq := q.getTagWait(tw, cpu)
	if rq == nil {
		return
	}
	tw.sleeping = false
	b := tw.bio
	tw.bio = nil
	if tw.Plug.Active() {
		tw.Plug.add(rq, cpu)
	} else {
		q.queueNewRequest(rq, b, cpu)
	}
	tw.S.Unblocked(b, now)
}

// initRequest is blk_mq_rq_ctx_init plus blk_mq_bio_to_request.
func (q *Queue) initRequest(h *Hctx, cpu, tag int, b *Bio) *Request {
	rq := q.allocRequestStruct()
	rq.hctx, rq.ctx = h, q.ctxs[cpu]
	rq.allocTime = q.eng.Now()
	if q.elevator != nil {
		rq.internalTag = tag
		h.schedTags.rqs[tag] = rq
	} else {
		rq.tag = tag
		h.tags.rqs[tag] = rq
		h.incActive()
	}
	rq.initFromBio(b)
	b.AllocatedAt = rq.allocTime
	return rq
}

// queueNewRequest is the tail of blk_mq_submit_bio without a plug: insert (elevator,
// or a busy hctx for async I/O) and run asynchronously, or issue directly.
func (q *Queue) queueNewRequest(rq *Request, b *Bio, cpu int) {
	h := rq.hctx
	if q.elevator != nil || h.dispatchBusy != 0 && (len(q.hctxs) == 1 || !rq.Sync) {
		q.insertRequest(rq, false)
		h.runHwQueue(true)
		return
	}
	q.tryIssueDirectly(rq, cpu)
}

// insertRequest is blk_mq_sched_insert_request without the run: the elevator, or the
// tail (head) of the ctx list with the ctx marked pending.
func (q *Queue) insertRequest(rq *Request, atHead bool) {
	if q.elevator != nil {
		q.elevator.InsertRequest(rq, atHead)
		return
	}
	c := rq.ctx
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
	switch q.queueRq(rq, cpu) {
	case stsOK:
		h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, false)
	default:
		h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, true)
		q.putDriverTag(rq)
		h.dispatch.pushBack(rq) // blk_mq_request_bypass_insert
		h.runHwQueue(false)
	}
}
