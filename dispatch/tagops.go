package dispatch

import (
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// tagBusy is blk_mq_tag_busy: with a shared tag set, mark the hctx (or, with host-wide
// tags, the request queue) active and recalculate the wake batch for the new number of
// users. Queues never go idle in this model (the kernel waits for the timeout scan,
// tens of seconds; §3.6).
func (h *Hctx) tagBusy() {
	host := h.q.host
	if !host.shared {
		return
	}
	if host.cfg.HostTagset {
		if h.q.activeShared {
			return
		}
		h.q.activeShared = true
	} else {
		if h.tagActive {
			return
		}
		h.tagActive = true
	}
	h.tags.activeQueues++
	h.tags.bitmap.RecalculateWakeBatch(h.tags.activeQueues)
}

// nrActiveRequests returns the active-request count fair sharing compares.
func (h *Hctx) nrActiveRequests() int {
	if h.q.host.cfg.HostTagset {
		return h.q.nrActiveShared
	}
	return h.nrActive
}

// mayQueue is hctx_may_queue for the driver tags.
func (h *Hctx) mayQueue() bool {
	host := h.q.host
	if !host.shared || h.tags.Depth() == 1 {
		return true
	}
	if host.cfg.HostTagset && !h.q.activeShared || !host.cfg.HostTagset && !h.tagActive {
		return true
	}
	users := h.tags.activeQueues
	if users == 0 {
		return true
	}
	return h.nrActiveRequests() < tagset.FairShareDepth(h.tags.Depth(), users)
}

func (h *Hctx) incActive() {
	if h.q.host.shared {
		h.nrActive++
		h.q.nrActiveShared++
	}
}

func (h *Hctx) decActive() {
	if h.q.host.shared {
		h.nrActive--
		h.q.nrActiveShared--
	}
}

// getDriverTag is blk_mq_get_driver_tag: a request allocated from sched tags takes a
// driver tag at dispatch (fair share first, one non-blocking attempt).
func (q *Queue) getDriverTag(rq *Request) bool {
	if rq.tag != noTag {
		return true
	}
	h := rq.hctx
	h.tagBusy()
	if !h.mayQueue() {
		return false
	}
	tag := h.tags.get(rq.ctx.cpu, 0)
	if tag < 0 {
		q.stats.DriverTagFails++
		return false
	}
	rq.tag = tag
	h.tags.rqs[tag] = rq
	h.incActive()
	return true
}

// putDriverTag is blk_mq_put_driver_tag: only requests that also hold a sched tag give
// their driver tag back before completion.
func (q *Queue) putDriverTag(rq *Request) {
	if rq.tag == noTag || rq.internalTag == noTag {
		return
	}
	rq.hctx.decActive()
	rq.hctx.tags.put(rq.tag, rq.ctx.cpu)
	rq.tag = noTag
}

// markTagWait is blk_mq_mark_tag_wait: after a failed driver-tag attempt, arrange to be
// re-run when a tag frees, then retry once. It returns true if the retry got a tag.
func (q *Queue) markTagWait(rq *Request) bool {
	h := rq.hctx
	if !q.host.shared && !q.host.cfg.HostTagset {
		h.schedRestart = true
		return q.getDriverTag(rq)
	}
	if h.waitHook.queued || h.waitHook.pendingAdd {
		return false // only one hook per hctx at a time
	}
	bt := h.tags.bitmap
	ws := h.nextWaitIndex()
	if q.opts.NoTagWaitBarrier {
		// Case R07 before 5266caaf5660: the retry runs before the hook is visible to
		// the freeing side; the hook lands a store-buffer drain later.
		if q.getDriverTag(rq) {
			return true
		}
		h.waitHook.pendingAdd = true
		h.waitHook.addAt = ws
		q.eng.After(tagWaitVisibilityDelay, &h.waitHook)
		return false
	}
	h.waitHook.add(bt, ws)
	if q.getDriverTag(rq) {
		h.waitHook.remove()
		return true
	}
	return false
}

// tagWaitVisibilityDelay is how long, without the barrier of case R07, the hook's
// registration stays invisible to a completing CPU (a store-buffer drain; exaggerated
// to nanoseconds of virtual time so the race has a window in the model).
const tagWaitVisibilityDelay = 500 * sim.Nanosecond

// nextWaitIndex is bt_wait_ptr: the hctx's wait_index, advanced by one.
func (h *Hctx) nextWaitIndex() int {
	i := h.waitIndex
	h.waitIndex = (h.waitIndex + 1) % sbitmap.WaitQueues
	return i
}

// add hooks the entry on bt's wait queue ws.
func (d *dispatchWait) add(bt *sbitmap.Queue, ws int) {
	if d.w.Wake == nil {
		d.w.Wake = d.wake
	}
	d.bt = bt
	d.queued = true
	bt.AddWaitHook(&d.w, ws)
}

// remove unhooks the entry.
func (d *dispatchWait) remove() {
	if d.queued {
		d.bt.RemoveWaitHook(&d.w)
		d.queued = false
	}
}

// Fire makes a delayed (R07 bad-era) registration visible.
func (d *dispatchWait) Fire(sim.Time) {
	d.pendingAdd = false
	d.add(d.h.tags.bitmap, d.addAt)
}

// freeRequest is __blk_mq_free_request: drop the active count, put the driver and
// sched tags (waking waiters), tell the elevator, then blk_mq_sched_restart.
func (q *Queue) freeRequest(rq *Request) {
	h := rq.hctx
	cpu := rq.ctx.cpu
	if q.elevator != nil && rq.internalTag != noTag {
		q.elevator.FinishRequest(rq)
	}
	if rq.tag != noTag {
		h.decActive()
		h.tags.put(rq.tag, cpu)
	}
	if rq.internalTag != noTag {
		h.schedTags.put(rq.internalTag, cpu)
	}
	q.freeRequestStruct(rq)
	h.schedRestartRun()
}

// schedRestartRun is blk_mq_sched_restart: if SCHED_RESTART is set, clear it and run
// the hctx asynchronously.
func (h *Hctx) schedRestartRun() {
	if h.schedRestart {
		h.schedRestart = false
		h.runHwQueue(true)
	}
}
