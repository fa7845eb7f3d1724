package legacy

type mergeKind uint8

const (
	noMerge mergeKind = iota
	backMerge
	frontMerge
)

// tryMerge models blk_try_merge after blk_rq_merge_ok: same direction, and the bio
// ends where rq starts (front) or starts where rq ends (back). The sync flag does
// not have to match (deadline and noop have no allow_merge hook).
func tryMerge(rq *Request, b *Bio) mergeKind {
	if rq.op != b.Op {
		return noMerge
	}
	switch {
	case rq.end() == b.Offset:
		return backMerge
	case rq.offset == b.end():
		return frontMerge
	}
	return noMerge
}

// fits models ll_back_merge_fn / ll_front_merge_fn: the merged request must stay
// within max_sectors and max_segments.
func (q *Queue) fits(rq *Request, length int64, segments int) bool {
	return rq.length+length <= q.cfg.MaxSectorsBytes && rq.segments+segments <= q.cfg.MaxSegments
}

// attemptBioMerge models bio_attempt_back_merge / bio_attempt_front_merge.
func (q *Queue) attemptBioMerge(rq *Request, b *Bio, kind mergeKind) bool {
	if !q.fits(rq, b.Length, b.segments()) {
		return false
	}
	if kind == backMerge {
		q.unhash(rq)
		rq.bios = append(rq.bios, b)
		rq.length += b.Length
		q.st.BackMerges++
	} else {
		rq.bios = append(rq.bios, nil)
		copy(rq.bios[1:], rq.bios)
		rq.bios[0] = b
		rq.offset = b.Offset
		rq.length += b.Length
		q.st.FrontMerges++
	}
	rq.segments += b.segments()
	return true
}

// elvMerge models elv_merge: q->last_merge first, then the back-merge hash (a
// request ending where the bio starts), then the scheduler's front merge.
func (q *Queue) elvMerge(b *Bio) (*Request, mergeKind) {
	if rq := q.lastMerge; rq != nil {
		if k := tryMerge(rq, b); k != noMerge {
			return rq, k
		}
	}
	if rq := q.hash[b.Offset]; rq != nil && rq.op == b.Op {
		return rq, backMerge
	}
	if rq := q.elv.FrontMerge(b.Op, b.end()); rq != nil {
		return rq, frontMerge
	}
	return nil, noMerge
}

// mergedBio follows a bio merge into an elevator request as blk_queue_bio does:
// attempt_back_merge (rq with its latter request) or attempt_front_merge (its
// former request with rq); if that fails, elv_merged_request.
func (q *Queue) mergedBio(rq *Request, kind mergeKind) {
	if kind == backMerge {
		if next := q.elv.Latter(rq); next != nil && q.attemptMerge(rq, next) {
			return
		}
	} else if prev := q.elv.Former(rq); prev != nil && q.attemptMerge(prev, rq) {
		return
	}
	q.merged(rq, kind)
}

// attemptMerge models attempt_merge of two elevator requests: same direction,
// contiguous (rq ends where next starts), within max_sectors and max_segments
// (ll_merge_requests_fn). next's bios are appended to rq, the scheduler drops
// next (elv_merge_requests), rq is rehashed and becomes last_merge, and next is
// freed.
func (q *Queue) attemptMerge(rq, next *Request) bool {
	if rq.op != next.op || rq.end() != next.offset || !q.fits(rq, next.length, next.segments) {
		return false
	}
	q.unhash(rq)
	q.unhash(next)
	rq.bios = append(rq.bios, next.bios...)
	rq.length += next.length
	rq.segments += next.segments
	q.elv.MergeRequests(rq, next)
	q.rehash(rq)
	q.lastMerge = rq
	q.st.RequestMerges++
	next.where = inNowhere
	q.freeRequest(next)
	return true
}

// merged models elv_merged_request after a bio merge: rehash, let the scheduler
// reposition after a front merge, remember last_merge.
func (q *Queue) merged(rq *Request, kind mergeKind) {
	q.rehash(rq)
	if kind == frontMerge {
		q.elv.Merged(rq)
	}
	q.lastMerge = rq
}

func (q *Queue) unhash(rq *Request) {
	if rq.where == inElevator && q.hash[rq.end()] == rq {
		delete(q.hash, rq.end())
	}
}

func (q *Queue) rehash(rq *Request) {
	if rq.where == inElevator {
		q.hash[rq.end()] = rq
	}
}

// attemptInsertMerge models elv_attempt_insert_merge with blk_attempt_req_merge:
// a request coming off a plug is merged behind a queued request that ends where
// it starts (last_merge first, then the hash). The absorbed request is freed.
func (q *Queue) attemptInsertMerge(rq *Request) bool {
	if q.cfg.NoMerges {
		return false
	}
	for _, prev := range []*Request{q.lastMerge, q.hash[rq.offset]} {
		if prev == nil || prev.where != inElevator || prev.op != rq.op || prev.end() != rq.offset {
			continue
		}
		if !q.fits(prev, rq.length, rq.segments) {
			continue
		}
		q.unhash(prev)
		prev.bios = append(prev.bios, rq.bios...)
		prev.length += rq.length
		prev.segments += rq.segments
		q.rehash(prev)
		q.st.InsertMerges++
		q.freeRequest(rq)
		return true
	}
	return false
}
