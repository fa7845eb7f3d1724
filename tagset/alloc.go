package tagset

import "github.com/blkmq/blkmq/sbitmap"

// MayQueue models hctx_may_queue for an allocation from bt (the hctx's driver
// bitmap): it allows when the set is not TAG_QUEUE_SHARED, bt has depth 1, this
// hctx (per-hctx tags) or its queue (shared tags) is not active, or there are no
// active users; otherwise only while ActiveRequests() <
// FairShareDepth(bt.Depth(), active_queues). Callers apply it to driver tags
// only, never to scheduler tags, and (since v5.10) not to reserved tags. With
// Options.NoFairSharing it always allows.
func (h *Hctx) MayQueue(bt *sbitmap.Queue) bool {
	s := h.queue().set
	if !s.queueShared.Load() || bt == nil || s.cfg.Options.NoFairSharing {
		return true
	}
	depth := bt.Depth()
	if depth == 1 {
		return true
	}
	if s.cfg.SharedTags() {
		if !h.q.active.Load() {
			return true
		}
	} else if !h.active.Load() {
		return true
	}
	users := int(h.tags.activeQueues.Load())
	if users == 0 {
		return true
	}
	return h.ActiveRequests() < FairShareDepth(depth, users)
}

// getDriverTagLimited is __blk_mq_get_tag on the driver tags: fair share (not
// for reserved since 285008501c65), then one non-blocking get.
func (h *Hctx) getDriverTagLimited(cpu int, reserved bool, shallow int) int {
	if (!reserved || h.q.set.cfg.Options.ReservedFairShare) && !h.MayQueue(h.tags.bt(reserved)) {
		return -1
	}
	tag := h.tags.get(cpu, reserved, shallow)
	if tag >= 0 {
		h.incActive()
	}
	return tag
}

func (h *Hctx) incActive() {
	h.nrActive.Add(1)
	h.q.nrActiveShared.Add(1)
}

func (h *Hctx) decActive() {
	if h.nrActive.Add(-1) < 0 {
		panic("tagset: nr_active went negative (PutDriverTag without a driver tag)")
	}
	h.q.nrActiveShared.Add(-1)
}

// GetDriverTag models __blk_mq_alloc_driver_tag (a driver tag at dispatch, or
// any non-blocking driver-tag allocation): TagBusy, the fair-share check (not
// for reserved tags), then a single non-blocking get. It returns the tag (kernel
// numbering) or -1, and on success counts an active request. cpu selects the
// allocation hint; pass the same cpu to PutDriverTag.
func (h *Hctx) GetDriverTag(cpu int, reserved bool) int {
	h.TagBusy()
	return h.getDriverTagLimited(cpu, reserved, 0)
}

// PutDriverTag models __blk_mq_put_driver_tag: the active-request count drops
// and the tag is freed (waking waiters, possibly synchronously). cpu is the CPU
// that allocated it, or −1 (see Tags.Put). Panics if the tag is not held; a tag
// outside the set is refused before the count drops.
func (h *Hctx) PutDriverTag(tag, cpu int) {
	h.queue()
	h.tags.checkTag(tag)
	h.decActive()
	h.tags.Put(tag, cpu)
}

// PutSchedTag frees a scheduler tag (blk_mq_put_tag on sched_tags). Panics
// without an elevator or if the tag is not held.
func (h *Hctx) PutSchedTag(tag, cpu int) {
	h.queue()
	if h.schedTags == nil {
		panic("tagset: PutSchedTag on a queue without an elevator")
	}
	h.schedTags.Put(tag, cpu)
}
