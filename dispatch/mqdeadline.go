package dispatch

import (
	"sort"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
)

// MQDeadline defaults (block/mq-deadline.c): read_expire HZ/2, write_expire 5 HZ,
// writes_starved 2, fifo_batch 16, front_merges 1.
const (
	DeadlineReadExpire    = 500 * sim.Millisecond
	DeadlineWriteExpire   = 5 * sim.Second
	DeadlineWritesStarved = 2
	DeadlineFifoBatch     = 16
)

// MQDeadline is the mq-deadline scheduler (block/mq-deadline.c), one instance per
// request queue shared by all hctxs, without I/O priority classes (every request is
// best-effort, as fio issues them by default): per data direction a sector-sorted set
// and a FIFO with deadlines; batches of up to fifo_batch sort-ordered requests; reads
// preferred, writes served after writes_starved read batches; back merges (end-offset
// lookup) and front merges; insert merges; async_depth limit for all but sync reads.
type MQDeadline struct {
	q *Queue

	sorted   [2][]*Request // by Offset, per direction (the rb-trees)
	fifo     [2]rqList     // per direction, by deadline (insertion order)
	dispatch rqList        // head insertions, served first
	nextRq   [2]*Request   // sort successor of the last dispatched request
	batching int
	starved  int
	lastDir  device.Op

	// The iosched tunables, as /sys/block/DEV/queue/iosched/ names them (set from
	// the defaults above, as dd_init_sched sets them): ReadExpire and WriteExpire the FIFO
	// deadlines (model ns; read_expire/write_expire, which sysfs shows in ms);
	// WritesStarved how many read batches may pass pending writes (writes_starved);
	// FifoBatch the most requests of one sort-ordered batch (fifo_batch); FrontMerges
	// whether a bio may merge in front of a request (front_merges).
	ReadExpire, WriteExpire  sim.Time
	WritesStarved, FifoBatch int
	FrontMerges              bool
	asyncDepth               int
	scaledDepth              int

	lastMerge *Request
}

// NewMQDeadline attaches a default-tuned mq-deadline to q (dd_init_sched,
// dd_depth_updated).
func NewMQDeadline(q *Queue) *MQDeadline {
	dd := &MQDeadline{q: q, ReadExpire: DeadlineReadExpire, WriteExpire: DeadlineWriteExpire,
		WritesStarved: DeadlineWritesStarved, FifoBatch: DeadlineFifoBatch, FrontMerges: true}
	dd.DepthUpdated(q.nrReq)
	return dd
}

// Name returns "mq-deadline".
func (dd *MQDeadline) Name() string { return "mq-deadline" }

// SingleQueue returns true.
func (dd *MQDeadline) SingleQueue() bool { return true }

// DepthUpdated is dd_depth_updated, per Options.DeadlineAsyncDepth (§6.4):
//   - DeadlineAsyncRawPerWord (v5.14–v6.9): async_depth = max(1, 3·nr_requests/4),
//     passed raw as a per-word shallow depth, and the sched tags' min_shallow_depth set
//     to it. With 8-bit words (per-hctx sched tags of 56) it never binds; with the one
//     64-bit word of host-wide sched tags (allocated at MAX_SCHED_RQ, v5.16+) it keeps
//     writes and async I/O to the first 42 of 56 tags.
//   - DeadlineAsyncScaled (v6.10+, "Fix the tag reservation code"): async_depth =
//     nr_requests scaled per word (a whole word: no limit by default) and
//     min_shallow_depth 1 (which lowers the wake batch).
//   - DeadlineAsyncWordShift (v6.6–v6.7, d47f9717e5cf): async_depth =
//     max(1, 3·2^shift/4) of the sched tags' word width, passed raw per word and set
//     as min_shallow_depth: 6 of every 8-bit word (42 of 56 per-hctx sched tags), 48
//     of the one 64-bit word of host-wide sched tags.
//   - DeadlineAsyncNone (≤ v5.13): no limit.
func (dd *MQDeadline) DepthUpdated(nr int) {
	rule := dd.q.opts.DeadlineAsyncDepth
	minShallow := 0
	switch rule {
	case DeadlineAsyncRawPerWord:
		dd.asyncDepth = max(1, 3*nr/4)
		minShallow = dd.asyncDepth
	case DeadlineAsyncScaled:
		dd.asyncDepth = nr
		minShallow = 1
		if dd.q.opts.DeadlineMinShallowAsyncDepth {
			minShallow = nr
		}
	case DeadlineAsyncWordShift:
		// Set per sched-tag bitmap below; every hctx's bitmap of one queue has the
		// same shift (same depth), and dd keeps the last one as the kernel does.
	default:
		dd.asyncDepth = 0
	}
	seen := map[*sbitmap.Queue]bool{}
	for _, h := range dd.q.hctxs {
		if t := h.th.SchedTags(); t != nil && !seen[t.Bitmap()] {
			seen[t.Bitmap()] = true
			if rule == DeadlineAsyncWordShift {
				dd.asyncDepth = max(1, 3*(1<<t.Bitmap().Sbitmap().Shift())/4)
				minShallow = dd.asyncDepth
			}
			if minShallow > 0 {
				_ = t.Bitmap().SetMinShallowDepth(minShallow)
			}
			if rule == DeadlineAsyncScaled {
				// ceil(async_depth · 2^shift / nr_requests): a whole word by default.
				sh := t.Bitmap().Sbitmap().Shift()
				dd.scaledDepth = (dd.asyncDepth<<sh + nr - 1) / nr
			}
		}
	}
}

// LimitDepth is dd_limit_depth: synchronous reads are not limited; everything else is
// allocated with the shallow depth of Options.DeadlineAsyncDepth (0 = none).
func (dd *MQDeadline) LimitDepth(b *Bio) int {
	if b.Sync && b.Op == device.OpRead {
		return 0
	}
	switch dd.q.opts.DeadlineAsyncDepth {
	case DeadlineAsyncRawPerWord, DeadlineAsyncWordShift:
		return dd.asyncDepth
	case DeadlineAsyncScaled:
		return dd.scaledDepth
	}
	return 0
}

// HasWork is dd_has_work.
func (dd *MQDeadline) HasWork(*Hctx) bool {
	return !dd.dispatch.empty() || !dd.fifo[0].empty() || !dd.fifo[1].empty()
}

// Queued returns the number of requests held.
func (dd *MQDeadline) Queued() int { return dd.dispatch.n + dd.fifo[0].n + dd.fifo[1].n }

// FinishRequest is dd_finish_request (nothing to do without zoned devices).
func (dd *MQDeadline) FinishRequest(*Request) {}

// InsertRequest is dd_insert_request: head insertions go to the dispatch list;
// otherwise try an insert merge, else add to the sort set and the FIFO with its
// deadline.
func (dd *MQDeadline) InsertRequest(rq *Request, atHead bool) {
	if atHead {
		dd.dispatch.pushFront(rq)
		return
	}
	if dd.insertMerge(rq) {
		return
	}
	dd.add(rq)
}

func (dd *MQDeadline) expire(op device.Op) sim.Time {
	if op == device.OpWrite {
		return dd.WriteExpire
	}
	return dd.ReadExpire
}

// add puts rq in its direction's sort set and FIFO.
func (dd *MQDeadline) add(rq *Request) {
	d := rq.Op
	rq.fifoTime = dd.q.eng.Now() + dd.expire(d)
	dd.sortInsert(rq)
	dd.fifo[d].pushBack(rq)
}

func (dd *MQDeadline) sortIndex(rq *Request) int {
	s := dd.sorted[rq.Op]
	i := sort.Search(len(s), func(i int) bool { return s[i].Offset >= rq.Offset })
	for ; i < len(s) && s[i] != rq; i++ {
	}
	return i
}

func (dd *MQDeadline) sortInsert(rq *Request) {
	s := dd.sorted[rq.Op]
	i := sort.Search(len(s), func(i int) bool { return s[i].Offset > rq.Offset })
	s = append(s, nil)
	copy(s[i+1:], s[i:])
	s[i] = rq
	dd.sorted[rq.Op] = s
}

// sortRemove removes rq from its sort set and returns its successor (or nil).
func (dd *MQDeadline) sortRemove(rq *Request) *Request {
	s := dd.sorted[rq.Op]
	i := dd.sortIndex(rq)
	if i == len(s) {
		return nil
	}
	copy(s[i:], s[i+1:])
	s = s[:len(s)-1]
	dd.sorted[rq.Op] = s
	if i < len(s) {
		return s[i]
	}
	return nil
}

// remove takes rq out of the scheduler (deadline_remove_request).
func (dd *MQDeadline) remove(rq *Request) {
	d := rq.Op
	if dd.nextRq[d] == rq {
		dd.nextRq[d] = dd.successor(rq)
	}
	dd.sortRemove(rq)
	dd.fifo[d].remove(rq)
	if dd.lastMerge == rq {
		dd.lastMerge = nil
	}
}

func (dd *MQDeadline) successor(rq *Request) *Request {
	s := dd.sorted[rq.Op]
	i := dd.sortIndex(rq)
	if i+1 < len(s) {
		return s[i+1]
	}
	return nil
}

// findEndingAt returns a queued request of direction d ending at off (the elevator
// hash of end sectors).
func (dd *MQDeadline) findEndingAt(d device.Op, off int64) *Request {
	s := dd.sorted[d]
	i := sort.Search(len(s), func(i int) bool { return s[i].Offset >= off })
	for j := i - 1; j >= 0; j-- {
		if s[j].end() == off {
			return s[j]
		}
		if s[j].end() < off-int64(dd.q.maxBytes) {
			break
		}
	}
	return nil
}

// findStartingAt returns a queued request of direction d starting at off (the
// front-merge lookup in the sort tree, dd_request_merge).
func (dd *MQDeadline) findStartingAt(d device.Op, off int64) *Request {
	s := dd.sorted[d]
	i := sort.Search(len(s), func(i int) bool { return s[i].Offset >= off })
	if i < len(s) && s[i].Offset == off {
		return s[i]
	}
	return nil
}

// BioMerge is dd_bio_merge → blk_mq_sched_try_merge: back merge (last_merge, then the
// end-offset hash), else front merge; a back merge that makes the request contiguous
// with its sort successor merges the two (attempt_back_merge), and a front merge with
// its predecessor likewise; the absorbed request is freed.
func (dd *MQDeadline) BioMerge(b *Bio, maxBytes int64) bool {
	if lm := dd.lastMerge; lm != nil && lm.canMerge(b, maxBytes) != noMerge {
		return dd.doBioMerge(lm, b, lm.canMerge(b, maxBytes), maxBytes)
	}
	if rq := dd.findEndingAt(b.Op, b.Offset); rq != nil && rq.canMerge(b, maxBytes) == backMergeKind {
		return dd.doBioMerge(rq, b, backMergeKind, maxBytes)
	}
	if dd.FrontMerges {
		if rq := dd.findStartingAt(b.Op, b.end()); rq != nil && rq.canMerge(b, maxBytes) == frontMergeKind {
			return dd.doBioMerge(rq, b, frontMergeKind, maxBytes)
		}
	}
	return false
}

func (dd *MQDeadline) doBioMerge(rq *Request, b *Bio, kind mergeKind, maxBytes int64) bool {
	if kind == backMergeKind {
		rq.backMerge(b)
		if next := dd.successor(rq); next != nil && rq.end() == next.Offset && rq.Length+next.Length <= maxBytes && next.Op == rq.Op && next.Sync == rq.Sync {
			dd.mergeRequests(rq, next)
		}
	} else {
		dd.sortRemove(rq)
		rq.frontMerge(b)
		// re-position after the front merge (elv_merged_request → dd_request_merged)
		dd.sortInsert(rq)
		if prev := dd.findEndingAt(rq.Op, rq.Offset); prev != nil && prev != rq && prev.Sync == rq.Sync && prev.Length+rq.Length <= maxBytes {
			dd.mergeRequests(prev, rq) // attempt_front_merge
			rq = prev
		}
	}
	dd.lastMerge = rq
	return true
}

// mergeRequests merges next into rq (attempt_merge + dd_merged_requests): rq takes the
// earlier deadline and FIFO position; next is removed and freed.
func (dd *MQDeadline) mergeRequests(rq, next *Request) {
	if next.fifoTime < rq.fifoTime {
		d := rq.Op
		dd.fifo[d].remove(rq)
		// take next's place in the FIFO
		if next.prev != nil {
			dd.fifo[d].insertAfter(next.prev, rq)
		} else {
			dd.fifo[d].pushFront(rq)
		}
		rq.fifoTime = next.fifoTime
	}
	dd.remove(next)
	rq.takeBios(next)
	dd.q.FreeMergedRequest(next)
}

// insertMerge is blk_mq_sched_try_insert_merge (elv_attempt_insert_merge): merge rq
// behind a queued request ending where rq starts, repeatedly.
func (dd *MQDeadline) insertMerge(rq *Request) bool {
	maxBytes := dd.q.maxBytes
	merged := false
	for {
		prev := dd.findEndingAt(rq.Op, rq.Offset)
		if prev == nil || prev == rq || prev.Sync != rq.Sync || prev.Length+rq.Length > maxBytes {
			return merged
		}
		if merged {
			dd.remove(rq)
		}
		if rq.fifoTime != 0 && rq.fifoTime < prev.fifoTime {
			prev.fifoTime = rq.fifoTime
		}
		prev.takeBios(rq)
		dd.q.FreeMergedRequest(rq)
		rq, merged = prev, true
	}
}

// DispatchRequest is dd_dispatch_request / __dd_dispatch_request (§6.2): continue
// the current batch with the last direction's next_rq while batching < fifo_batch,
// else choose a direction and take its FIFO head (expired, or no next_rq) or its
// next_rq. The other direction's next_rq is kept (v5.14+) or cleared
// (Options.DeadlineMoveClearsNextRq).
func (dd *MQDeadline) DispatchRequest(*Hctx) *Request {
	if rq := dd.dispatch.popFront(); rq != nil {
		return rq
	}
	var rq *Request
	if next := dd.nextRq[dd.lastDir]; next != nil && dd.batching < dd.FifoBatch {
		rq = next
	} else {
		d, ok := dd.chooseDir()
		if !ok {
			return nil
		}
		rq = dd.pickInDir(d)
		dd.batching = 0
	}
	dd.lastDir = rq.Op
	if dd.q.opts.DeadlineMoveClearsNextRq {
		dd.nextRq[0], dd.nextRq[1] = nil, nil // deadline_move_request before v5.14
	}
	dd.nextRq[rq.Op] = dd.successor(rq) // deadline_move_request: the sort-order successor
	dd.remove(rq)
	dd.batching++
	return rq
}

// chooseDir picks reads unless writes have been starved writes_starved times.
func (dd *MQDeadline) chooseDir() (device.Op, bool) {
	reads, writes := !dd.fifo[device.OpRead].empty(), !dd.fifo[device.OpWrite].empty()
	switch {
	case reads:
		if writes && dd.starved >= dd.WritesStarved {
			dd.starved = 0
			return device.OpWrite, true
		}
		if writes {
			dd.starved++
		}
		return device.OpRead, true
	case writes:
		dd.starved = 0
		return device.OpWrite, true
	}
	return 0, false
}

// pickInDir takes the FIFO head if expired or if there is no sort-order next request,
// else the sort-order next.
func (dd *MQDeadline) pickInDir(d device.Op) *Request {
	head := dd.fifo[d].head
	if head.fifoTime <= dd.q.eng.Now() {
		return head
	}
	if next := dd.nextRq[d]; next != nil {
		return next
	}
	return head
}
