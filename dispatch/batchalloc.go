package dispatch

import "math/bits"

// Batched request allocation for a plugged submission (v5.16+, Options.NoPlugRequestCache
// for the older rule), as block/blk-mq.c does it:
//
//   - blk_start_plug_nr_ios records how many I/Os the plugging caller will submit,
//     capped at BLK_MAX_REQUEST_COUNT. io_uring's io_submit_sqes passes the number
//     of SQEs of the io_uring_enter call; blk_start_plug (libaio's io_submit, iomap's
//     direct I/O, io-wq) passes one.
//   - The first bio that needs a new request under the plug (blk_mq_get_new_requests)
//     asks for plug->nr_ios tags and sets nr_ios to one, so each plug batches once.
//     __blk_mq_alloc_requests_batch takes them with blk_mq_get_tags
//     (__sbitmap_queue_get_batch: from the hinted word on, the first word whose first
//     free bit leaves room for all of them, one compare-and-swap; possibly fewer tags
//     than asked). blk_mq_get_tags refuses, and one tag is allocated as usual, under a
//     shallow depth (mq-deadline's async_depth for writes), for reserved tags and when
//     the tag set is shared between request queues (BLK_MQ_F_TAG_QUEUE_SHARED).
//   - Every tag obtained becomes an initialised request of the allocating CPU's
//     software queue and hardware queue on plug->cached_rq (pushed at the head, so
//     the last tag is used first); the bio takes the head.
//   - Each following bio of the same queue that does not merge takes the next cached
//     request (blk_mq_get_cached_request) instead of allocating one.
//   - Cached requests left unused are freed one by one (blk_mq_free_plug_rqs) when the
//     plug is finished or flushed because its task sleeps (__blk_flush_plug). A
//     flush because the plug is full (blk_add_rq_to_plug) keeps them.
//
// Cost: the batch is one sbitmap operation and one atomic on one tag word
// (CPUCosts.TagGet and the word's line) for all its tags; each request's
// initialisation (blk_mq_rq_ctx_init) stays in the bio's BioAlloc. Completions are
// not batched here: blk_mq_end_request_batch runs only for drivers that collect
// completions into an io_comp_batch (NVMe, null_blk and virtio-blk poll queues,
// ublk); the SCSI midlayer completes each command through blk_mq_complete_request.
//
// Not modelled: the hctx-type and flush checks of blk_mq_get_cached_request (the
// model has one hctx type and no flush requests), and the request's alloc_time_ns,
// which 6.1 keeps from the batch and v6.5 (blk_mq_rq_time_init) resets at use: the
// model stamps the request when its bio takes it.

// plugNrIOs is the plug's nr_ios as blk_mq_get_new_requests reads it: the count the
// plug was started with, capped at BLK_MAX_REQUEST_COUNT, then reset to one. It
// returns 1 for no plug, an inactive plug, or kernels without the request cache.
func (q *Queue) plugNrIOs(plug *Plug) int {
	if !plug.Active() || q.opts.NoPlugRequestCache {
		return 1
	}
	n := min(plug.nrIOs, q.opts.maxPlugRequests())
	plug.nrIOs = 1
	return max(n, 1)
}

// allocRequestPlug is blk_mq_get_new_requests' allocation: a batch of the plug's
// nr_ios requests when it is above one and blk_mq_get_tags grants tags, else one
// request as allocRequest allocates it (blocking on tw or failing when nowait).
func (q *Queue) allocRequestPlug(b *Bio, cpu int, nowait bool, tw *TagWaiter, plug *Plug) *Request {
	if n := q.plugNrIOs(plug); n > 1 {
		if rq := q.allocBatch(b, cpu, n, plug); rq != nil {
			return rq
		}
	}
	return q.allocRequest(b, cpu, nowait, tw)
}

// allocBatch is __blk_mq_alloc_requests_batch: up to n tags of cpu's hardware queue
// in one word, each turned into a request on the plug's cache; the cache's head is
// returned, holding b. It returns nil when blk_mq_get_tags grants nothing.
func (q *Queue) allocBatch(b *Bio, cpu, n int, plug *Plug) *Request {
	h := q.HctxOf(cpu)
	off, mask := h.th.GetTagsBatch(cpu, n, q.limitDepth(b), false)
	if mask == 0 {
		return nil
	}
	q.stats.BatchAllocs++
	q.stats.BatchTags += uint64(bits.OnesCount64(mask))
	tags := h.th.Tags()
	if q.elevator != nil {
		tags = h.th.SchedTags()
	}
	q.chargeTag(tags, off+bits.TrailingZeros64(mask), true) // one sbitmap batch get on one word
	for x := mask; x != 0; x &= x - 1 {
		tag := off + bits.TrailingZeros64(x)
		plug.cached.pushFront(q.taggedRequest(h, cpu, tag)) // rq_list_add
	}
	rq := plug.cached.popFront()
	q.useRequest(rq, b)
	return rq
}

// cachedRequest is blk_mq_get_cached_request after its merge attempt (made by the
// caller): the plug's first cached request if it belongs to q, now holding b; nil
// otherwise.
func (q *Queue) cachedRequest(plug *Plug, b *Bio) *Request {
	if !plug.Active() {
		return nil
	}
	rq := plug.cached.head
	if rq == nil || rq.q != q {
		return nil
	}
	plug.cached.popFront()
	q.stats.CachedUsed++
	q.useRequest(rq, b)
	return rq
}

// useRequest makes a pre-allocated request hold b (blk_mq_bio_to_request and the
// accounting start), stamped now.
func (q *Queue) useRequest(rq *Request, b *Bio) {
	rq.allocTime = q.eng.Now()
	rq.initFromBio(b)
	b.AllocatedAt = rq.allocTime
	q.disk.start(rq.allocTime) // blk_account_io_start
}

// releaseCached is blk_mq_free_plug_rqs: every cached request still unused is freed
// (its tag put, waking tag waiters, and a SCHED_RESTART run) on cpu, the task's CPU.
func (p *Plug) releaseCached(cpu int) {
	if p == nil {
		return
	}
	for rq := p.cached.popFront(); rq != nil; rq = p.cached.popFront() {
		q := rq.q
		q.host.onCPU(cpu)
		q.stats.CachedFreed++
		q.freeRequest(rq)
	}
}

// Cached returns the number of requests the plug holds pre-allocated for its next bios
// (plug->cached_rq).
func (p *Plug) Cached() int { return p.cached.n }
