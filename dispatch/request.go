package dispatch

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// EndIO receives the completion of a Bio (the bio's bi_end_io). Implement it on a
// long-lived struct so completions allocate nothing.
type EndIO interface {
	// EndBio is called once per submitted Bio, at the completion time now (ns), or with
	// err non-nil when the request failed.
	EndBio(b *Bio, now sim.Time, err error)
}

// Bio is one I/O handed to the block layer (struct bio): a contiguous byte range in one
// direction. The caller owns it; dispatch holds the pointer from SubmitBio until
// EndBio.
type Bio struct {
	Op     device.Op
	Offset int64 // bytes from the start of the device; multiple of 512
	Length int64 // bytes, > 0, multiple of 512
	// Sync marks REQ_SYNC (O_DIRECT I/O is sync).
	Sync bool
	// End receives the completion.
	End EndIO
	// Priv is the caller's data; dispatch never touches it.
	Priv any

	// AllocatedAt is set by dispatch to the time (ns) the bio got a request (a tag) or
	// was merged into one; IssuedAt to the time its request was accepted by the
	// device. With the submission and completion times they split the latency into
	// tag wait, queueing (ctx / elevator / dispatch list / budget) and device time.
	AllocatedAt, IssuedAt sim.Time
	// DispatchListAt is when the bio's request first entered hctx->dispatch (0 if it
	// never did): from then on it waited for budget, a driver tag or the device.
	DispatchListAt sim.Time
	// SameCall marks an I/O that is not the first of its submitting system call (the
	// second and later SQEs of one io_uring_enter, iocbs of one io_submit): the
	// call's own share of the submission cost (CPUCosts.SubmitSyscall) is not
	// charged again. Set by the caller before each submission.
	SameCall bool

	next *Bio // chain inside a request
	// split I/O (dispatch/split.go): parent is the I/O a part belongs to, split the
	// progress of an I/O cut into parts, nextPart the parts-in-flight list
	parent, nextPart *Bio
	split            *splitState

	rq     *Request   // the request holding the bio, nil before allocation and after completion
	waiter *TagWaiter // the task's tag waiter of the last blocking submission (valid while it sleeps on this bio)
}

// end returns the byte offset just after the bio.
func (b *Bio) end() int64 { return b.Offset + b.Length }

// noTag is BLK_MQ_NO_TAG.
const noTag = -1

// Request is one block request (struct request): one or more merged bios, a sched tag
// (with an elevator) and a driver tag once dispatched.
type Request struct {
	Op     device.Op
	Offset int64 // bytes
	Length int64 // bytes
	Sync   bool

	bios, biosTail *Bio
	nrBios         int

	tag         int // driver tag (blk_mq_tags numbering), noTag when none
	internalTag int // sched tag, noTag when none
	budgetToken int // SCSI budget token, -1 when none
	hctx        *Hctx
	ctx         *Ctx
	q           *Queue

	allocTime  sim.Time // when the request was allocated (ns)
	listTime   sim.Time // when it first entered hctx->dispatch (ns), 0 if never
	fifoTime   sim.Time // mq-deadline deadline (ns)
	dispatched bool     // handed to the device at least once
	plugged    bool     // held in a task's plug

	prev, next *Request // list links (ctx list, dispatch list, plug, elevator fifo)
	cmd        device.Command
	issueCPU   int        // CPU that ran queue_rq
	compCPU    int        // CPU running the completion (CPU costs)
	compEv     completion // completion deferred until compCPU is free
}

// Tag returns the request's driver tag, or -1 when it has none.
func (r *Request) Tag() int { return r.tag }

// InternalTag returns the request's sched tag, or -1 when it has none.
func (r *Request) InternalTag() int { return r.internalTag }

// NrBios returns the number of bios merged into the request.
func (r *Request) NrBios() int { return r.nrBios }

// end returns the byte offset just after the request.
func (r *Request) end() int64 { return r.Offset + r.Length }

// markDispatchList records the first entry into hctx->dispatch.
func (r *Request) markDispatchList(now sim.Time) {
	if r.listTime == 0 {
		r.listTime = max(now, 1)
	}
}

// initFromBio makes r a request of exactly one bio (blk_mq_bio_to_request).
func (r *Request) initFromBio(b *Bio) {
	r.Op, r.Offset, r.Length, r.Sync = b.Op, b.Offset, b.Length, b.Sync
	b.next, b.rq = nil, r
	r.bios, r.biosTail, r.nrBios = b, b, 1
}

// backMerge appends b (bio_attempt_back_merge).
func (r *Request) backMerge(b *Bio) {
	b.next, b.rq = nil, r
	r.biosTail.next = b
	r.biosTail = b
	r.Length += b.Length
	r.nrBios++
}

// frontMerge prepends b (bio_attempt_front_merge).
func (r *Request) frontMerge(b *Bio) {
	b.next, b.rq = r.bios, r
	r.bios = b
	r.Offset = b.Offset
	r.Length += b.Length
	r.nrBios++
}

// mergeKind tells how a bio may merge into a request.
type mergeKind uint8

const (
	noMerge mergeKind = iota
	backMergeKind
	frontMergeKind
)

// canMerge reports how b could merge into r within maxBytes (blk_try_merge plus the
// ll_back/front_merge_fn size check against max_sectors).
func (r *Request) canMerge(b *Bio, maxBytes int64) mergeKind {
	if r.Op != b.Op || r.Sync != b.Sync || r.Length+b.Length > maxBytes {
		return noMerge
	}
	switch {
	case r.end() == b.Offset:
		return backMergeKind
	case b.end() == r.Offset:
		return frontMergeKind
	}
	return noMerge
}

// rqList is an intrusive doubly linked list of requests (list_head).
type rqList struct {
	head, tail *Request
	n          int
}

func (l *rqList) empty() bool { return l.n == 0 }

func (l *rqList) pushBack(r *Request) {
	r.next, r.prev = nil, l.tail
	if l.tail != nil {
		l.tail.next = r
	} else {
		l.head = r
	}
	l.tail = r
	l.n++
}

func (l *rqList) pushFront(r *Request) {
	r.prev, r.next = nil, l.head
	if l.head != nil {
		l.head.prev = r
	} else {
		l.tail = r
	}
	l.head = r
	l.n++
}

func (l *rqList) remove(r *Request) {
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		l.head = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		l.tail = r.prev
	}
	r.prev, r.next = nil, nil
	l.n--
}

func (l *rqList) insertAfter(at, r *Request) {
	r.prev, r.next = at, at.next
	if at.next != nil {
		at.next.prev = r
	} else {
		l.tail = r
	}
	at.next = r
	l.n++
}

func (l *rqList) popFront() *Request {
	r := l.head
	if r != nil {
		l.remove(r)
	}
	return r
}

// spliceTail moves all of src to the tail of l.
func (l *rqList) spliceTail(src *rqList) {
	if src.n == 0 {
		return
	}
	if l.tail == nil {
		*l = *src
	} else {
		l.tail.next = src.head
		src.head.prev = l.tail
		l.tail = src.tail
		l.n += src.n
	}
	*src = rqList{}
}

// spliceHead moves all of src to the head of l.
func (l *rqList) spliceHead(src *rqList) {
	if src.n == 0 {
		return
	}
	if l.head == nil {
		*l = *src
	} else {
		src.tail.next = l.head
		l.head.prev = src.tail
		l.head = src.head
		l.n += src.n
	}
	*src = rqList{}
}
