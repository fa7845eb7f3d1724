package dispatch

// errAgain mirrors the -EAGAIN of the dispatch loops: hctx->dispatch became non-empty.
const errAgain = -1

// schedDispatchRequests is blk_mq_sched_dispatch_requests: run the inner dispatch, once
// more if it returned -EAGAIN, then defer to an asynchronous run.
func (h *Hctx) schedDispatchRequests() {
	if h.q.opts.Pre415.DequeueBeforeBudget {
		h.schedDispatchPre415()
		return
	}
	if h.schedDispatchInner() == errAgain {
		if h.schedDispatchInner() == errAgain {
			h.runHwQueue(true)
		}
	}
}

// schedDispatchInner is __blk_mq_sched_dispatch_requests (§5.5 order): the dispatch list
// first (with SCHED_RESTART set), then the elevator or the software queues.
func (h *Hctx) schedDispatchInner() int {
	q := h.q
	cpu := q.host.cpu.cur // the CPU running the hctx: the caller's, or kblockd's (Fire)
	var list rqList
	if !h.dispatch.empty() { // list_empty_careful, then hctx->lock
		h.lockDispatch()
		list.spliceTail(&h.dispatch.rqList)
	}
	needDispatch := false
	if !list.empty() {
		h.markSchedRestart()
		if !h.dispatchRqList(&list, 0, cpu) {
			return 0
		}
		needDispatch = true
	} else {
		needDispatch = h.dispatchBusy != 0
	}
	if q.elevator != nil {
		return h.doDispatchSched(cpu)
	}
	switch {
	case q.opts.SwQueueDequeue == DequeueOneByOne,
		q.opts.SwQueueDequeue == DequeueByDispatchBusy && needDispatch:
		return h.doDispatchCtx(cpu)
	}
	h.flushBusyCtxs(&list)
	h.dispatchRqList(&list, 0, cpu)
	return 0
}

// flushBusyCtxs is blk_mq_flush_busy_ctxs: move every request of every marked ctx to
// list (ctx order).
func (h *Hctx) flushBusyCtxs(list *rqList) {
	if h.nrCtxPending == 0 {
		return
	}
	for _, c := range h.ctxs {
		if h.ctxMap[c.indexHw] {
			h.q.ctxLock(c, 0)
			list.spliceTail(&c.rqList)
			h.clearCtxPending(c)
		}
	}
}

// dequeueFromCtx is blk_mq_dequeue_from_ctx: the first request of the first non-empty
// ctx at or after start (wrapping); nil if none.
func (h *Hctx) dequeueFromCtx(start int) *Request {
	n := len(h.ctxs)
	for i := 0; i < n; i++ {
		c := h.ctxs[(start+i)%n]
		if !h.ctxMap[c.indexHw] {
			continue
		}
		h.q.ctxLock(c, 0)
		rq := c.rqList.popFront()
		if c.rqList.empty() {
			h.clearCtxPending(c)
		}
		return rq
	}
	return nil
}

// doDispatchCtx is blk_mq_do_dispatch_ctx: one request at a time, budget first, round
// robin over ctxs from dispatch_from (§5.7).
func (h *Hctx) doDispatchCtx(cpu int) int {
	q := h.q
	ret := 0
	ctx := h.dispatchFrom
	for {
		if !h.dispatch.empty() {
			ret = errAgain
			break
		}
		if h.nrCtxPending == 0 {
			break
		}
		token := q.getBudget(cpu)
		if token < 0 {
			break
		}
		rq := h.dequeueFromCtx(ctx)
		if rq == nil {
			q.putBudget(token, cpu)
			q.delayRunHwQueues(cpu)
			break
		}
		rq.budgetToken = token
		ctx = (rq.ctx.indexHw + 1) % len(h.ctxs)
		var list rqList
		list.pushBack(rq)
		if !h.dispatchRqList(&list, 1, cpu) {
			break
		}
	}
	h.dispatchFrom = ctx
	return ret
}

// doDispatchSched is blk_mq_do_dispatch_sched: repeat the batched elevator dequeue
// while it makes progress (the kernel also stops after 1 s or need_resched, never
// reached here).
func (h *Hctx) doDispatchSched(cpu int) int {
	for {
		ret := h.doDispatchSchedOnce(cpu)
		if ret != 1 {
			return ret
		}
	}
}

// doDispatchSchedOnce is __blk_mq_do_dispatch_sched (§5.6): take budget, then a request
// from the elevator, up to max_dispatch (1 when dispatch_busy, else nr_requests; 1 in
// the v4.15–v5.9 era), stopping early when a request gets no driver tag; then dispatch
// the batch with the budgets already held. Returns 1 on progress, errAgain, or 0.
func (h *Hctx) doDispatchSchedOnce(cpu int) int {
	q := h.q
	e := q.elevator
	maxDispatch := q.nrReq
	if h.dispatchBusy != 0 || q.opts.NoSchedBatch {
		maxDispatch = 1
	}
	var list rqList
	count, busy, runQueue, multi := 0, false, false, false
	for count < maxDispatch {
		if !e.HasWork(h) {
			break
		}
		if !h.dispatch.empty() {
			busy = true
			break
		}
		token := q.getBudget(cpu)
		if token < 0 {
			break
		}
		q.elevatorLock()
		rq := e.DispatchRequest(h)
		if rq == nil {
			q.putBudget(token, cpu)
			runQueue = true
			break
		}
		rq.budgetToken = token
		list.pushBack(rq)
		count++
		if rq.hctx != h {
			multi = true
		}
		if !q.getDriverTag(rq) {
			break
		}
	}
	dispatched := false
	switch {
	case count == 0:
		if runQueue && !q.opts.NoBudgetRerun {
			q.delayRunHwQueues(cpu)
		}
	case multi:
		dispatched = q.dispatchMultiHctx(&list, cpu)
	default:
		dispatched = h.dispatchRqList(&list, count, cpu)
	}
	if busy {
		return errAgain
	}
	if dispatched {
		return 1
	}
	return 0
}

// dispatchMultiHctx sorts a batch by hctx and dispatches each run of requests through
// its own hctx (blk_mq_dispatch_hctx_list), with budgets already held.
func (q *Queue) dispatchMultiHctx(list *rqList, cpu int) bool {
	dispatched := false
	for !list.empty() {
		h := list.head.hctx
		var part, rest rqList
		for rq := list.popFront(); rq != nil; rq = list.popFront() {
			if rq.hctx == h {
				part.pushBack(rq)
			} else {
				rest.pushBack(rq)
			}
		}
		*list = rest
		if h.dispatchRqList(&part, part.n, cpu) {
			dispatched = true
		}
	}
	return dispatched
}
