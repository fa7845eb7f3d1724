package dispatch

// prepResult is blk_mq_prep_dispatch_rq's answer.
type prepResult uint8

const (
	prepOK prepResult = iota
	prepNoBudget
	prepNoTag
)

// prepDispatchRq is blk_mq_prep_dispatch_rq: take budget if the caller did not, then the
// driver tag (with blk_mq_mark_tag_wait on failure).
func (q *Queue) prepDispatchRq(rq *Request, needBudget bool, cpu int) prepResult {
	if needBudget {
		token := q.getBudget(cpu)
		if token < 0 {
			q.putDriverTag(rq)
			return prepNoBudget
		}
		rq.budgetToken = token
	}
	if !q.getDriverTag(rq) && !q.markTagWait(rq) {
		if needBudget {
			q.putBudget(rq.budgetToken, cpu)
			rq.budgetToken = -1
		}
		return prepNoTag
	}
	return prepOK
}

// dispatchRqList is blk_mq_dispatch_rq_list (§5.8): send the requests of list to the
// driver in order; nrBudgets of them already hold budget. Leftovers go to the tail of
// hctx->dispatch with their budgets returned, and the hctx is re-run now, in 3 ms, or
// left to SCHED_RESTART. Returns false if requests were left over, else whether any
// was queued.
func (h *Hctx) dispatchRqList(list *rqList, nrBudgets int, cpu int) bool {
	q := h.q
	if list.empty() {
		return false
	}
	queued := 0
	prep := prepOK
	needsResource := false
	for !list.empty() {
		rq := list.head
		prep = q.prepDispatchRq(rq, nrBudgets == 0, cpu)
		if prep != prepOK {
			break
		}
		list.remove(rq)
		if nrBudgets > 0 {
			nrBudgets--
		}
		switch q.queueRq(rq, list.empty(), cpu) {
		case BlkStsOK:
			queued++
			continue
		case BlkStsResource:
			needsResource = true
		}
		// blk_mq_handle_dev_resource: back to the head, driver tag released.
		list.pushFront(rq)
		q.putDriverTag(rq)
		q.stats.RequeuesBusy++
		break
	}
	if !list.empty() && queued > 0 {
		// the driver was told more would come (bd->last false): commit_rqs
		q.cfg.Ops.CommitRQs(h, cpu)
	}
	if list.empty() {
		h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, false)
		return queued != 0
	}
	noTag := prep == prepNoTag && q.tagsShared()
	if nrBudgets > 0 { // blk_mq_release_budgets: only caller-taken budgets remain
		for rq := list.head; rq != nil; rq = rq.next {
			if rq.budgetToken >= 0 {
				q.putBudget(rq.budgetToken, cpu)
				rq.budgetToken = -1
			}
		}
	}
	if list.head.listTime == 0 { // a list taken from hctx->dispatch is marked already
		now := q.eng.Now()
		for rq := list.head; rq != nil; rq = rq.next {
			rq.markDispatchList(now)
		}
	}
	h.lockDispatch()
	h.dispatch.spliceTail(list)
	h.stats.MaxDispatch = max(h.stats.MaxDispatch, h.dispatch.n)
	if prep == prepNoBudget {
		needsResource = true
	}
	switch {
	case !h.schedRestart || noTag && !h.WaitHookQueued() && !h.waitHook.pendingAdd:
		h.runHwQueue(true)
	case needsResource:
		h.delayRun()
	}
	h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, true)
	return false
}
