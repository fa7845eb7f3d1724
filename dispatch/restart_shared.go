package dispatch

// Names of the contention model's lines read by the shared-tags restart walk.
const (
	lineRestartCount = "shared_hctx_restart"
	lineHctxState    = "hctx->state"
)

// schedRestart is blk_mq_sched_restart for the hctx of a freed request: the hctx's
// own restart (schedRestartRun), or, with Options.RestartSharedTags while the tag set
// is shared between queues, the v4.12–v4.18 round-robin walk over the queues that share
// it (restartSharedTags).
func (q *Queue) schedRestart(h *Hctx) {
	if !q.opts.RestartSharedTags || q.host.ts == nil || !q.host.ts.QueueShared() {
		h.schedRestartRun()
		return
	}
	q.restartSharedTags(h)
}

// restartSharedTags is the BLK_MQ_F_TAG_SHARED branch of v4.12–v4.18
// blk_mq_sched_restart: nothing unless one of this queue's hctxs has SCHED_RESTART
// (atomic_read(&queue->shared_hctx_restart)); else the other queues of the tag set in
// list order starting after this one (list_for_each_entry_rcu_rr), each of their hctxs
// with the same driver tags, and the first with SCHED_RESTART is cleared and run
// asynchronously; if none is, this queue's hctxs from the one after h, wrapping round to
// h itself. Every hctx looked at is a load of its state line, and the counter a load of
// the queue's line, on the completing CPU.
func (q *Queue) restartSharedTags(h *Hctx) {
	host := q.host
	host.load(lineRestartCount, q, 0)
	marked := false
	for _, h2 := range q.hctxs {
		marked = marked || h2.schedRestart
	}
	if !marked {
		return
	}
	tags := h.th.Tags()
	try := func(h2 *Hctx) bool {
		host.load(lineHctxState, h2, 0)
		if h2.th.Tags() != tags || !h2.schedRestart {
			return false
		}
		// test_and_clear_bit(BLK_MQ_S_SCHED_RESTART), atomic_dec(&q->shared_hctx_restart)
		host.rmw(lineHctxState, h2, 0)
		host.rmw(lineRestartCount, h2.q, 0)
		h2.schedRestartRun()
		return true
	}
	qs := host.queues
	self := q.index()
	for k := 1; k < len(qs); k++ {
		for _, h2 := range qs[(self+k)%len(qs)].hctxs {
			if try(h2) {
				return
			}
		}
	}
	n := len(q.hctxs)
	for i := range n {
		if try(q.hctxs[(h.index+1+i)%n]) {
			return
		}
	}
}

// markSchedRestart is blk_mq_sched_mark_restart_hctx: set SCHED_RESTART. In the
// Options.RestartSharedTags era, while the tag set is shared between queues, setting it
// is a test_and_set_bit on the hctx's state line and an atomic_inc of the queue's
// shared_hctx_restart, both charged on the current CPU.
func (h *Hctx) markSchedRestart() {
	q := h.q
	if !h.schedRestart && q.opts.RestartSharedTags && q.host.ts != nil && q.host.ts.QueueShared() {
		q.host.rmw(lineHctxState, h, 0)
		q.host.rmw(lineRestartCount, q, 0)
	}
	h.schedRestart = true
}
