package tagset

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blkmq/blkmq/sbitmap"
)

// QueueConfig describes one request queue (a SCSI LUN's struct request_queue)
// attached to a tag set.
type QueueConfig struct {
	// Elevator reports whether an I/O scheduler is attached; then every request
	// first takes a scheduler tag and the driver tag only at dispatch.
	Elevator bool
	// NrRequests is q->nr_requests; 0 selects DefaultNrRequests. Range with an
	// elevator [1, MaxSchedRQ], without [1, queue_depth], and above the set's
	// reserved_tags. (The kernel's sysfs store raises values below BlkdevMinRQ
	// to it; defaults may be lower, e.g. 2 for queue_depth 1.)
	NrRequests int
}

// BlkdevMinRQ is BLKDEV_MIN_RQ, the smallest nr_requests (4).
const BlkdevMinRQ = 4

// RequestQueue models the tag-related state of struct request_queue: its hctxs,
// scheduler tags, QUEUE_FLAG_HCTX_ACTIVE and nr_active_requests_shared_tags
// (host-wide tags), and the timeout timer that drives lazy idling. Make one with
// TagSet.AddQueue: the zero RequestQueue belongs to no tag set, so its methods
// that return an error return one naming AddQueue and the others panic so.
type RequestQueue struct {
	set        *TagSet
	cfg        QueueConfig
	hctxs      []*Hctx
	nrRequests atomic.Int32

	schedShared *Tags // sched_shared_tags (shared tags with an elevator)

	active         atomic.Bool  // QUEUE_FLAG_HCTX_ACTIVE
	nrActiveShared atomic.Int32 // nr_active_requests_shared_tags

	timerMu   sync.Mutex
	timerAt   int64 // ns; -1 = not armed
	rqTimeout int64 // q->rq_timeout (ns); 0 = Options.IdleDelay (tagset/active.go)
}

// Hctx models the tag-related state of struct blk_mq_hw_ctx: its driver and
// scheduler tags, BLK_MQ_S_TAG_ACTIVE, nr_active, wait_index and the
// dispatch_wait hook. Get one from RequestQueue.Hctx: the zero Hctx has no
// queue, and its allocation methods panic naming TagSet.AddQueue.
type Hctx struct {
	q         *RequestQueue
	index     int
	tags      *Tags
	schedTags *Tags

	active    atomic.Bool  // BLK_MQ_S_TAG_ACTIVE
	nrActive  atomic.Int32 // nr_active
	waitIndex atomic.Uint32

	dispatchWait sbitmap.Waiter
	hookMu       sync.Mutex
	hookedOn     *sbitmap.Queue

	// OnTagWake is called when this hctx's dispatch_wait hook is woken by a
	// freed driver tag (blk_mq_dispatch_wake, after the hook is removed). The
	// kernel runs the hctx asynchronously; a simulator schedules that run. It
	// may be called synchronously from inside any Put of the tags, with no lock
	// of this package held. Set it before dispatching; nil ignores the wake.
	OnTagWake func(h *Hctx)
}

// AddQueue attaches a new request queue to the set (blk_mq_init_allocated_queue
// with blk_mq_add_queue_tag_set). The second queue makes the set
// TAG_QUEUE_SHARED. Errors name nr_requests and its range.
func (s *TagSet) AddQueue(qc QueueConfig) (*RequestQueue, error) {
	if s.tags == nil {
		return nil, errZeroTagSet
	}
	nr := qc.NrRequests
	if nr == 0 {
		nr = DefaultNrRequests(s.cfg.QueueDepth, qc.Elevator)
	}
	if err := s.checkNrRequests(nr, qc.Elevator); err != nil {
		return nil, err
	}
	q := &RequestQueue{set: s, cfg: qc, timerAt: -1}
	q.nrRequests.Store(int32(nr))
	q.hctxs = make([]*Hctx, s.cfg.NrHwQueues)
	for i := range q.hctxs {
		h := &Hctx{q: q, index: i, tags: s.Tags(i)}
		h.dispatchWait.Wake = h.dispatchWake
		q.hctxs[i] = h
	}
	if err := q.initSchedTags(nr); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.queues = append(s.queues, q)
	s.updateShared()
	s.mu.Unlock()
	return q, nil
}

func (s *TagSet) checkNrRequests(nr int, elevator bool) error {
	hi := s.cfg.QueueDepth
	if elevator {
		hi = MaxSchedRQ
	}
	if nr < 1 || nr > hi || nr <= s.cfg.ReservedTags {
		return fmt.Errorf("tagset: nr_requests %d out of range [%d, %d]", nr, s.cfg.ReservedTags+1, hi)
	}
	return nil
}

// RemoveQueue detaches q (blk_mq_exit_queue): its hctxs go idle, and the set
// stops being TAG_QUEUE_SHARED when one queue is left. Removing a queue twice,
// or nil, is a no-op; removing a queue of another tag set panics.
func (s *TagSet) RemoveQueue(q *RequestQueue) {
	if q == nil {
		return
	}
	if q.set != s {
		panic("tagset: RemoveQueue of a queue of another tag set")
	}
	for _, h := range q.hctxs {
		h.tagIdle()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.queues {
		if x == q {
			s.queues = append(s.queues[:i:i], s.queues[i+1:]...)
			break
		}
	}
	s.updateShared()
}

// Set returns the tag set.
func (q *RequestQueue) Set() *TagSet { return q.set }

// Elevator reports whether the queue has an I/O scheduler.
func (q *RequestQueue) Elevator() bool { return q.cfg.Elevator }

// NrRequests returns q->nr_requests.
func (q *RequestQueue) NrRequests() int { return int(q.nrRequests.Load()) }

// Hctx returns hardware queue i; it panics outside [0, NrHwQueues).
func (q *RequestQueue) Hctx(i int) *Hctx {
	if i < 0 || i >= len(q.hctxs) {
		panic(fmt.Sprintf("tagset: hctx %d out of range [0, %d)", i, len(q.hctxs)))
	}
	return q.hctxs[i]
}

// NrHwQueues returns the number of hctxs.
func (q *RequestQueue) NrHwQueues() int { return len(q.hctxs) }

// Active reports QUEUE_FLAG_HCTX_ACTIVE (host-wide tags: the queue counts as a
// fair-share user).
func (q *RequestQueue) Active() bool { return q.active.Load() }

// ActiveRequests returns nr_active_requests_shared_tags: the queue's requests
// holding driver tags (maintained always; used by fair sharing with host-wide
// tags).
func (q *RequestQueue) ActiveRequests() int { return int(q.nrActiveShared.Load()) }

// UpdateNrRequests models blk_mq_update_nr_requests (writing
// queue/nr_requests). With an elevator, scheduler tags are resized, growing up
// to MaxSchedRQ (per-hctx scheduler tags are reallocated to grow; tags held
// then must not be put afterwards — quiesce first, as the kernel freezes the
// queue). Without an elevator only shrinking is allowed and the driver tags are
// resized — with shared tags the one bitmap of all queues. Errors name
// nr_requests and its range.
func (q *RequestQueue) UpdateNrRequests(nr int) error {
	s := q.set
	if s == nil {
		return errZeroQueue
	}
	if err := s.checkNrRequests(nr, q.cfg.Elevator); err != nil {
		return err
	}
	switch {
	case q.schedShared != nil:
		if err := q.schedShared.bitmap.Resize(nr - s.cfg.ReservedTags); err != nil {
			return err
		}
	case q.cfg.Elevator:
		for _, h := range q.hctxs {
			if nr > h.schedTags.nrReserved+h.schedTags.bitmap.Sbitmap().Capacity() {
				t, err := newTags(nr, s.cfg.ReservedTags, nr, s.cfg.NrCPUs, s.cfg.Seed^uint64(h.index+1)<<40, s.cfg.Queue)
				if err != nil {
					return err
				}
				h.schedTags = t
				continue
			}
			if err := h.schedTags.bitmap.Resize(nr - s.cfg.ReservedTags); err != nil {
				return err
			}
		}
	default:
		for _, t := range s.tags {
			if err := t.bitmap.Resize(nr - s.cfg.ReservedTags); err != nil {
				return err
			}
		}
	}
	q.nrRequests.Store(int32(nr))
	return nil
}

// errZeroQueue is the error of a zero RequestQueue's methods that return one,
// errZeroTagSet that of a zero TagSet's AddQueue.
var (
	errZeroQueue  = errors.New(zeroQueueMsg)
	errZeroTagSet = errors.New("tagset: zero TagSet: make one with tagset.New")
)

const (
	zeroQueueMsg = "tagset: zero RequestQueue: make one with TagSet.AddQueue"
	zeroHctxMsg  = "tagset: zero Hctx: take one from RequestQueue.Hctx of a queue made by TagSet.AddQueue"
)

// tagSet returns the queue's tag set; it panics on a zero RequestQueue.
func (q *RequestQueue) tagSet() *TagSet {
	if q.set == nil {
		panic(zeroQueueMsg)
	}
	return q.set
}

// queue returns the hctx's request queue; it panics on a zero Hctx.
func (h *Hctx) queue() *RequestQueue {
	if h.q == nil {
		panic(zeroHctxMsg)
	}
	return h.q
}

// Index returns the hctx's queue_num.
func (h *Hctx) Index() int { return h.index }

// Queue returns the hctx's request queue.
func (h *Hctx) Queue() *RequestQueue { return h.q }

// Tags returns the driver tags (hctx->tags).
func (h *Hctx) Tags() *Tags { return h.tags }

// SchedTags returns the scheduler tags (hctx->sched_tags), nil without an
// elevator.
func (h *Hctx) SchedTags() *Tags { return h.schedTags }

// Active reports BLK_MQ_S_TAG_ACTIVE (per-hctx fair-share user).
func (h *Hctx) Active() bool { return h.active.Load() }

// ActiveRequests returns the active-request count fair sharing compares against
// its limit: nr_active of this hctx, or the queue's count with shared tags
// (__blk_mq_active_requests). Requests holding driver tags are counted even
// while the set is not TAG_QUEUE_SHARED (the kernel counts only while shared,
// so requests already in flight when a second queue arrives are not counted
// there until they are freed; this model counts them).
func (h *Hctx) ActiveRequests() int {
	if h.queue().set.cfg.SharedTags() {
		return int(h.q.nrActiveShared.Load())
	}
	return int(h.nrActive.Load())
}

// btWaitIndex models bt_wait_ptr: the hctx's wait_index, advanced by one.
func (h *Hctx) btWaitIndex() int {
	return int((h.waitIndex.Add(1) - 1) % sbitmap.WaitQueues)
}
