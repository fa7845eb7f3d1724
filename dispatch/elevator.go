package dispatch

// Elevator is an I/O scheduler attached to a request queue (struct elevator_mq_ops,
// block/elevator.h). Requests allocated from scheduler tags are inserted into it and
// taken out one at a time at dispatch, after the budget is taken. "none" is no
// Elevator. All methods run on the engine's goroutine.
type Elevator interface {
	// Name is the sysfs name ("mq-deadline").
	Name() string
	// SingleQueue reports a single-queue scheduler (one instance across hctxs whose
	// dispatch_request may return a request of any hctx; blk_mq_get_sq_hctx applies).
	SingleQueue() bool
	// InsertRequest queues rq (ops.insert_requests), possibly merging it into a queued
	// request (blk_mq_sched_try_insert_merge), in which case the elevator frees rq
	// with Queue.FreeMergedRequest.
	InsertRequest(rq *Request, atHead bool)
	// HasWork reports whether a dispatch on h could return a request (ops.has_work).
	HasWork(h *Hctx) bool
	// DispatchRequest removes and returns the next request to send, or nil
	// (ops.dispatch_request).
	DispatchRequest(h *Hctx) *Request
	// BioMerge tries to merge b into a queued request within maxBytes (ops.bio_merge).
	BioMerge(b *Bio, maxBytes int64) bool
	// LimitDepth returns the shallow depth for allocating b's sched tag, 0 for none
	// (ops.limit_depth).
	LimitDepth(b *Bio) int
	// DepthUpdated is called when nr_requests changes (ops.depth_updated).
	DepthUpdated(nrRequests int)
	// FinishRequest is called when a request that went through the elevator is freed
	// (ops.finish_request).
	FinishRequest(rq *Request)
}

// FreeMergedRequest frees a request whose bios an elevator merged into another
// (blk_mq_free_request of the "free" request of blk_mq_sched_try_merge): its tags are
// put, waking waiters.
func (q *Queue) FreeMergedRequest(rq *Request) {
	q.stats.Merges++
	q.disk.mergedAway(rq, q.eng.Now()) // blk_account_io_merge_request (dispatch/diskstats.go)
	q.freeRequest(rq)
}

// takeBios moves all bios of src to the tail of dst (blk_attempt_req_merge's bio
// chain splice). src keeps no bios.
func (dst *Request) takeBios(src *Request) {
	if src.bios == nil {
		return
	}
	for b := src.bios; b != nil; b = b.next {
		b.rq = dst
	}
	if dst.Offset == src.end() { // src in front
		src.biosTail.next = dst.bios
		dst.bios = src.bios
		dst.Offset = src.Offset
	} else {
		dst.biosTail.next = src.bios
		dst.biosTail = src.biosTail
	}
	dst.Length += src.Length
	dst.nrBios += src.nrBios
	src.bios, src.biosTail, src.nrBios = nil, nil, 0
}
