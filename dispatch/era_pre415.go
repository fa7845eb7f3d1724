package dispatch

import "fmt"

// Pre415Options are the dispatch switches of v4.11–v4.14, the blk-mq scheduler era
// before Ming Lei's v4.15 series "blk-mq-sched: improve SCSI-MQ performance"
// (blk_mq_sched_dispatch_requests dequeuing before the budget, and the SCSI
// device_busy check in scsi_queue_rq). The zero value is v4.15 and later.
// KernelPre415("4.11".."4.14") sets all of them (with SwQueueDequeue =
// DequeueFlushAll, SCSIRestart = RestartEveryCompletion and the other v4.15 switches).
type Pre415Options struct {
	// DequeueBeforeBudget models the absence of the .get_budget callback: requests are
	// taken out of the elevator or the software queues first, and the LUN queue_depth
	// check (scsi_dev_queue_ready) happens inside scsi_queue_rq, which answers BUSY when
	// the LUN is full. It also selects the v4.13 order of
	// blk_mq_sched_dispatch_requests (see schedDispatchPre415).
	DequeueBeforeBudget bool
	// DispatchListHead: requests left over by blk_mq_dispatch_rq_list are spliced at the
	// HEAD of hctx->dispatch (list_splice_init), where they can no longer merge; v4.15
	// made it the tail.
	DispatchListHead bool
	// SchedAfterNoProgress: the elevator is asked for more requests when the dispatch
	// list was empty OR made no progress (the v4.13 comment "if we did have work but
	// weren't able to make progress"), so a busy LUN keeps draining the elevator into
	// hctx->dispatch one request per run.
	SchedAfterNoProgress bool
	// SchedNrRequestsMaxRQ: with an elevator, nr_requests defaults to 2 × BLKDEV_MAX_RQ
	// = 256 (block/blk-mq-sched.c blk_mq_init_sched, v4.11–v4.14) instead of
	// 2 × min(queue_depth, BLKDEV_MAX_RQ) (v4.15 "use q->queue_depth as hint for
	// q->nr_requests").
	SchedNrRequestsMaxRQ bool
	// NoDispatchBusy: there is no dispatch_busy EWMA (added in v4.19); without a plug,
	// blk_mq_make_request issues a request directly only when it is synchronous on a
	// queue with several hctxs, and otherwise inserts it and runs the hctx
	// asynchronously, whatever earlier dispatches met. The pre-4.15 dispatch path never
	// reads dispatch_busy.
	NoDispatchBusy bool
}

// blkdevMaxRQ is BLKDEV_MAX_RQ (include/linux/blkdev.h): 128.
const blkdevMaxRQ = 128

// pre415 returns the switches of kernel version v (MAJOR*100+MINOR).
func pre415(v int) Pre415Options {
	if v >= 415 {
		return Pre415Options{}
	}
	return Pre415Options{DequeueBeforeBudget: true, DispatchListHead: true,
		SchedAfterNoProgress: true, SchedNrRequestsMaxRQ: true, NoDispatchBusy: true}
}

// KernelPre415 returns the Options of a blk-mq release before the SCSI budget
// callback, "4.11" to "4.14" (Kernel covers "4.15" onwards): the v4.15 switches of
// Kernel plus every Pre415Options switch and flush-all software-queue dequeue
// (DequeueFlushAll; one-by-one dequeue needs a budget). Other versions return an
// error naming the allowed range. The sbitmap/tag rules of these releases are those
// of Kernel("4.15") (wake-up countdown, no migration wake-up).
func KernelPre415(version string) (Options, error) {
	maj, min, err := parseVersion(version)
	if err != nil {
		return Options{}, err
	}
	v := maj*100 + min
	if v < 411 || v > 414 {
		return Options{}, fmt.Errorf("dispatch: pre-budget kernel version %q out of range [4.11, 4.14]", version)
	}
	o, err := Kernel("4.15")
	if err != nil {
		return Options{}, err
	}
	o.Pre415 = pre415(v)
	o.SwQueueDequeue = DequeueFlushAll
	// v4.11 restarted every hctx of the queue (QUEUE_FLAG_RESTART), a rule not
	// modelled; the shared-tags walk starts with v4.12 (6d8c6c0f97ad).
	o.RestartSharedTags = v >= 412
	return o, nil
}

// schedNrRequests applies the nr_requests default of the era: 0 stays 0 (the tagset
// default rule) unless Pre415.SchedNrRequestsMaxRQ applies to an elevator queue.
func (o Options) schedNrRequests(nr int, elevator bool) int {
	if nr == 0 && elevator && o.Pre415.SchedNrRequestsMaxRQ {
		return 2 * blkdevMaxRQ
	}
	return nr
}

// schedDispatchPre415 is blk_mq_sched_dispatch_requests of v4.13: the dispatch list
// (with SCHED_RESTART set); if it was empty and there is no elevator, every ctx is
// flushed and dispatched; with an elevator, requests are pulled one at a time while
// dispatch makes progress — also when the dispatch list made none
// (Pre415.SchedAfterNoProgress). There is no dispatch_busy in this era.
func (h *Hctx) schedDispatchPre415() {
	q := h.q
	cpu := q.host.cpu.cur // the CPU running the hctx
	var list rqList
	if !h.dispatch.empty() { // list_empty_careful, then hctx->lock
		h.lockDispatch()
		list.spliceTail(&h.dispatch.rqList)
	}
	hadList, didWork := !list.empty(), false
	switch {
	case hadList:
		h.markSchedRestart()
		didWork = h.dispatchRqListPre415(&list, cpu)
	case q.elevator == nil:
		h.flushBusyCtxs(&list)
		h.dispatchRqListPre415(&list, cpu)
	}
	if q.elevator == nil || didWork || hadList && !q.opts.Pre415.SchedAfterNoProgress {
		return
	}
	e := q.elevator
	for e.HasWork(h) {
		q.elevatorLock()
		rq := e.DispatchRequest(h)
		if rq == nil {
			return
		}
		list.pushBack(rq)
		if !rq.hctx.dispatchRqListPre415(&list, cpu) {
			return
		}
	}
}

// dispatchRqListPre415 is blk_mq_dispatch_rq_list of v4.13: per request a driver tag
// (blk_mq_mark_tag_wait on failure), then scsi_queue_rq, which itself checks the LUN
// queue_depth and answers BUSY when it is full (queueRqPre415). Leftovers go to the
// head (Pre415.DispatchListHead) or tail of hctx->dispatch; the hctx is re-run now
// only if SCHED_RESTART was cleared meanwhile. Returns whether any request was queued.
func (h *Hctx) dispatchRqListPre415(list *rqList, cpu int) bool {
	q := h.q
	queued := 0
	for !list.empty() {
		rq := list.head
		if !q.getDriverTag(rq) && !q.markTagWait(rq) {
			break
		}
		list.remove(rq)
		if q.queueRqPre415(rq, list.empty(), cpu) == BlkStsOK {
			queued++
			continue
		}
		list.pushFront(rq)
		q.putDriverTag(rq)
		q.stats.RequeuesBusy++
		break
	}
	if list.empty() {
		return queued != 0
	}
	now := q.eng.Now()
	for rq := list.head; rq != nil; rq = rq.next {
		if rq.listTime == 0 {
			rq.markDispatchList(now)
		}
	}
	h.lockDispatch()
	if q.opts.Pre415.DispatchListHead {
		h.dispatch.spliceHead(list)
	} else {
		h.dispatch.spliceTail(list)
	}
	h.stats.MaxDispatch = max(h.stats.MaxDispatch, h.dispatch.n)
	if !h.schedRestart && !h.WaitHookQueued() {
		h.runHwQueue(true)
	}
	return queued != 0
}

// queueRqPre415 is scsi_queue_rq without a budget callback: scsi_dev_queue_ready
// first (the driver's BudgetOps, called from inside queue_rq; a refusal is
// BLK_STS_RESOURCE, with the 3 ms delayed re-run when the LUN is idle, as the driver's
// GetBudget arranges it), then the rest of scsi_queue_rq.
func (q *Queue) queueRqPre415(rq *Request, last bool, cpu int) Status {
	token := q.getBudget(cpu)
	if token < 0 {
		return BlkStsResource
	}
	rq.budgetToken = token
	return q.queueRq(rq, last, cpu)
}
