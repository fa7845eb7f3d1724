package tagset

// GetTagsBatch models blk_mq_get_tags (v5.16+, "blk-mq: add support for allocating
// multiple requests"), the batched allocation of a plugged or io_uring submission
// that expects n requests (plug->nr_ios): up to n tags from one word of the hctx's
// scheduler tags (with an elevator) or driver tags, with one compare-and-swap
// (__sbitmap_queue_get_batch). It returns the first tag's kernel number and a mask
// of the tags obtained relative to it (bit i set: tag offset+i), or (0, 0) when
// the kernel does not batch: n < 2, a shallow depth is in force (the elevator's
// limit_depth, e.g. mq-deadline's async_depth for writes), a reserved tag is asked,
// or the tag set is TAG_QUEUE_SHARED; the caller then allocates one tag as usual.
// Driver tags obtained count as active requests, as blk_mq_get_tag's do. cpu
// selects the allocation hint; n is capped at one word.
func (h *Hctx) GetTagsBatch(cpu, n, shallow int, reserved bool) (offset int, mask uint64) {
	if n < 2 || shallow > 0 || reserved || h.queue().set.queueShared.Load() {
		return 0, 0
	}
	t, elv := h.tags, h.q.cfg.Elevator && h.schedTags != nil
	if elv {
		t = h.schedTags
	} else {
		h.TagBusy()
	}
	n = min(n, 64)
	off, m := t.bitmap.GetBatch(t.hint(cpu, false), n)
	if m == 0 {
		return 0, 0
	}
	if !elv {
		for x := m; x != 0; x &= x - 1 {
			h.incActive()
		}
	}
	return t.nrReserved + off, m
}

// PutTagsBatch models blk_mq_put_tags for a batched completion
// (blk_mq_end_request_batch): the normal driver tags (or scheduler tags, sched true)
// in tags, all allocated on this hctx, are freed together with
// sbitmap_queue_clear_batch (one atomic per word, one wake-up count) and dropped
// from the active requests. cpu is the completing CPU whose hint moves (−1: none).
// It panics, as Tags.Put does, on a tag out of range, reserved or not held.
func (h *Hctx) PutTagsBatch(tags []int, sched bool, cpu int) {
	h.queue()
	if len(tags) == 0 {
		return
	}
	t := h.tags
	if sched {
		t = h.schedTags
	}
	bits := tags // bit numbers equal tag numbers without reserved tags: no copy
	if t.nrReserved > 0 {
		bits = make([]int, len(tags))
	}
	for i, tag := range tags {
		if tag < t.nrReserved {
			panic("tagset: PutTagsBatch of a reserved tag")
		}
		bits[i] = tag - t.nrReserved
		if !sched {
			h.decActive()
		}
	}
	var hint *uint32
	if cpu >= 0 {
		hint = t.hint(cpu, false)
	}
	t.bitmap.ClearBatch(bits, hint)
}
