package dispatch

import "math/bits"

// The set of hctxs that may have work. blk_mq_run_hw_queues visits every hctx of the
// queue and runs those with pending work (blk_mq_hctx_has_pending); on a completion
// with 1 024 hctxs that visit costs more than the model's work. Without an elevator,
// pending work is a non-empty hctx->dispatch or a marked ctx: every insertion into
// either marks the hctx in Queue.mayWork, and a visit that finds a marked hctx without
// work clears its mark. So the marks are a superset of the hctxs with work, visited in
// index order — the same hctxs in the same order as the full walk, at a cost that
// depends on the hctxs with work, not on how many there are.

// hctxDispatch is hctx->dispatch: an rqList whose insertions mark the hctx.
type hctxDispatch struct {
	rqList
	h *Hctx
}

func (d *hctxDispatch) pushBack(r *Request) {
	d.rqList.pushBack(r)
	d.h.markMayWork()
}

func (d *hctxDispatch) pushFront(r *Request) {
	d.rqList.pushFront(r)
	d.h.markMayWork()
}

func (d *hctxDispatch) insertAfter(at, r *Request) {
	d.rqList.insertAfter(at, r)
	d.h.markMayWork()
}

func (d *hctxDispatch) spliceTail(src *rqList) {
	d.rqList.spliceTail(src)
	d.h.markMayWork()
}

func (d *hctxDispatch) spliceHead(src *rqList) {
	d.rqList.spliceHead(src)
	d.h.markMayWork()
}

// markMayWork puts the hctx into its queue's set of hctxs that may have work.
func (h *Hctx) markMayWork() {
	h.q.mayWork[h.index>>6] |= 1 << (h.index & 63)
}

// nextMayWork returns the index of the first marked hctx at or after i, or -1.
func (q *Queue) nextMayWork(i int) int {
	for w := i >> 6; w < len(q.mayWork); w++ {
		m := q.mayWork[w]
		if w == i>>6 {
			m &^= 1<<(i&63) - 1
		}
		if m != 0 {
			return w<<6 | bits.TrailingZeros64(m)
		}
	}
	return -1
}

// runMarkedHwQueues is runHwQueues without an elevator: each hctx with pending work
// (and, if sq is not nil, sq whatever it holds; the others only for a non-empty
// dispatch list), in index order. Marks of hctxs found without work are cleared.
func (q *Queue) runMarkedHwQueues(sq *Hctx, async bool) {
	next := 0
	for {
		i := q.nextMayWork(next)
		if sq != nil && sq.index >= next && (i < 0 || sq.index < i) {
			i = sq.index
		}
		if i < 0 {
			return
		}
		next = i + 1
		x := q.hctxs[i]
		if x.dispatch.empty() && x.nrCtxPending == 0 {
			x.q.mayWork[i>>6] &^= 1 << (i & 63) // no work: unmark (runHwQueue would do nothing)
		}
		if sq != nil && x != sq && x.dispatch.empty() {
			continue
		}
		x.runHwQueue(async)
	}
}
