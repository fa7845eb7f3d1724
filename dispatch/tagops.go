package dispatch

import (
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// tagsShared reports whether the host's driver tags are shared between request queues
// (BLK_MQ_F_TAG_QUEUE_SHARED) or between hctxs (host-wide tags): the test of
// blk_mq_mark_tag_wait and of the "no tag" re-run rule of blk_mq_dispatch_rq_list.
func (q *Queue) tagsShared() bool { return q.host.ts.QueueShared() || q.host.cfg.HostTagset }

// getDriverTag is blk_mq_get_driver_tag: a request allocated from sched tags takes a
// driver tag at dispatch (tagset: tag busy, fair share, one non-blocking attempt).
func (q *Queue) getDriverTag(rq *Request) bool {
	if rq.tag != noTag {
		return true
	}
	tag := rq.hctx.th.GetDriverTag(rq.ctx.cpu, false)
	if tag < 0 {
		q.stats.DriverTagFails++
		return false
	}
	rq.tag = tag
	q.chargeTag(rq.hctx.th.Tags(), tag, true)
	return true
}

// putDriverTag is blk_mq_put_driver_tag: only requests that also hold a sched tag give
// their driver tag back before completion.
func (q *Queue) putDriverTag(rq *Request) {
	if rq.tag == noTag || rq.internalTag == noTag {
		return
	}
	q.chargeTag(rq.hctx.th.Tags(), rq.tag, false)
	if q.opts.NoTagWaitBarrier {
		q.landOwnHooks(rq.hctx)
	}
	rq.hctx.th.PutDriverTag(rq.tag, rq.ctx.cpu)
	rq.tag = noTag
}

// markTagWait is blk_mq_mark_tag_wait: after a failed driver-tag attempt, arrange to be
// re-run when a tag frees (SCHED_RESTART for unshared tags, else the hctx's
// dispatch_wait hook on the tag waitqueue), then retry once. It returns true if the
// retry got a tag.
func (q *Queue) markTagWait(rq *Request) bool {
	h := rq.hctx
	if !q.tagsShared() {
		h.schedRestart = true
	} else if q.opts.NoTagWaitBarrier {
		return q.markTagWaitNoBarrier(rq)
	}
	tag, res := h.th.MarkTagWait(rq.ctx.cpu, false)
	if res == tagset.TagWaitGot {
		rq.tag = tag
		return true
	}
	return false
}

// markTagWaitNoBarrier is blk_mq_mark_tag_wait before 5266caaf5660 (case R07): the
// retry runs before the hook is visible to the freeing side; the hook lands a
// store-buffer drain later.
func (q *Queue) markTagWaitNoBarrier(rq *Request) bool {
	h := rq.hctx
	if h.WaitHookQueued() || h.waitHook.pendingAdd {
		return false // only one hook per hctx at a time
	}
	if q.getDriverTag(rq) {
		return true
	}
	h.waitHook.pendingAdd = true
	q.host.pendingHooks++
	h.waitHook.addAt = h.waitIndex
	h.waitHook.addCPU = q.host.cpu.cur
	h.waitIndex = (h.waitIndex + 1) % sbitmap.WaitQueues
	h.waitHook.addID = q.eng.After(tagWaitVisibilityDelay, &h.waitHook)
	return false
}

// landOwnHooks makes visible, before a driver tag of h's tag set is freed from the
// current CPU, every pending R07 registration (markTagWaitNoBarrier) that CPU made on
// that tag set's wait queues. The race of case R07 needs two CPUs: a CPU always sees
// its own earlier stores, and the free's clear_bit is a locked instruction that
// drains its store buffer, so the waker's waitqueue_active finds the hook when the
// hooking CPU itself frees the tag. Without this, a free on the hooking CPU inside
// the visibility window lost the wake-up (a hang of R09 the kernel cannot have).
func (q *Queue) landOwnHooks(h *Hctx) {
	if q.host.pendingHooks == 0 {
		return // no registration pending anywhere: the walk below would land none
	}
	cpu := q.host.cpu.cur
	bt := h.th.Tags().Bitmap()
	for _, x := range q.host.queues {
		for _, o := range x.hctxs {
			d := &o.waitHook
			if d.pendingAdd && d.addCPU == cpu && o.th.Tags().Bitmap() == bt {
				q.eng.Cancel(d.addID)
				d.land()
			}
		}
	}
}

// tagWaitVisibilityDelay is how long, without the barrier of case R07, the hook's
// registration stays invisible to a completing CPU (a store-buffer drain; exaggerated
// to nanoseconds of virtual time so the race has a window in the model).
const tagWaitVisibilityDelay = 500 * sim.Nanosecond

// add hooks the entry on bt's wait queue ws.
func (d *dispatchWait) add(bt *sbitmap.Queue, ws int) {
	if d.w.Wake == nil {
		d.w.Wake = d.wake
	}
	d.bt = bt
	d.queued = bt.AddWaitHook(&d.w, ws)
}

// Fire makes a delayed (R07 bad-era) registration visible.
func (d *dispatchWait) Fire(sim.Time) {
	d.h.q.host.onCPU(d.h.cpus[0])
	d.land()
}

// land makes the pending registration visible: the hook joins its wait queue.
func (d *dispatchWait) land() {
	if d.pendingAdd {
		d.h.q.host.pendingHooks--
	}
	d.pendingAdd = false
	d.addID = 0
	d.add(d.h.th.Tags().Bitmap(), d.addAt)
}

// freeRequest is __blk_mq_free_request: put the driver tag (dropping the active
// count) and the sched tag, waking waiters, tell the elevator, then
// blk_mq_sched_restart.
func (q *Queue) freeRequest(rq *Request) {
	h := rq.hctx
	cpu := rq.ctx.cpu
	if q.elevator != nil && rq.internalTag != noTag {
		q.elevator.FinishRequest(rq)
	}
	if rq.tag != noTag {
		q.chargeTag(h.th.Tags(), rq.tag, false)
		if q.opts.NoTagWaitBarrier {
			q.landOwnHooks(h)
		}
		h.th.PutDriverTag(rq.tag, cpu)
	}
	if rq.internalTag != noTag {
		q.chargeTag(h.th.SchedTags(), rq.internalTag, false)
		h.th.PutSchedTag(rq.internalTag, cpu)
	}
	q.freeRequestStruct(rq)
	q.schedRestart(h)
	q.queueExit() // blk_queue_exit (dispatch/freeze.go)
}

// schedRestartRun is blk_mq_sched_restart: if SCHED_RESTART is set, clear it and run
// the hctx asynchronously.
func (h *Hctx) schedRestartRun() {
	if h.schedRestart {
		h.schedRestart = false
		h.runHwQueue(true)
	}
}
