package legacy

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// Elevator is an I/O scheduler of the legacy queue (struct elevator_type ops of
// block/elevator.c). The queue owns the generic back-merge hash and the dispatch
// list; an Elevator only orders the requests it holds. All methods run on the
// engine goroutine.
type Elevator interface {
	// Name returns the scheduler's sysfs name ("deadline", "noop").
	Name() string
	// Add takes a new request at virtual time now (elevator_add_req_fn).
	Add(rq *Request, now sim.Time)
	// Dispatch removes and returns the request to move to the dispatch list next,
	// or nil when it has nothing to give (elevator_dispatch_fn).
	Dispatch(now sim.Time) *Request
	// FrontMerge returns a held request of direction op starting at byte off, into
	// which a bio ending at off may be front-merged, or nil (elevator_merge_fn).
	FrontMerge(op device.Op, off int64) *Request
	// Merged tells the scheduler that rq grew at its front (elevator_merged_fn).
	Merged(rq *Request)
	// Former and Latter return the held request before / after rq in the
	// scheduler's order, or nil (elevator_former_req_fn, elevator_latter_req_fn);
	// the queue tries to merge rq with them after a bio merge.
	Former(rq *Request) *Request
	Latter(rq *Request) *Request
	// MergeRequests removes next, which the queue has just appended to rq
	// (elevator_merge_req_fn); rq keeps the earlier of the two deadlines.
	MergeRequests(rq, next *Request)
	// Queued returns the number of requests held.
	Queued() int
}

// Noop is the noop scheduler (block/noop-iosched.c): one FIFO list, no sorting and
// no elevator_merge_fn. Bios still merge at the queue level: back merges through
// the hash, and back or front merges into q->last_merge.
type Noop struct{ fifo []*Request }

// NewNoop returns an empty noop scheduler.
func NewNoop() *Noop { return &Noop{} }

// Name returns "noop".
func (n *Noop) Name() string { return "noop" }

// Add appends rq (noop_add_request).
func (n *Noop) Add(rq *Request, _ sim.Time) { n.fifo = append(n.fifo, rq) }

// Dispatch returns the oldest request (noop_dispatch).
func (n *Noop) Dispatch(_ sim.Time) *Request {
	if len(n.fifo) == 0 {
		return nil
	}
	rq := n.fifo[0]
	n.fifo[0] = nil
	n.fifo = n.fifo[1:]
	return rq
}

// FrontMerge returns nil: noop has no elevator_merge_fn.
func (n *Noop) FrontMerge(device.Op, int64) *Request { return nil }

// Merged does nothing.
func (n *Noop) Merged(*Request) {}

// Queued returns the number of requests held.
func (n *Noop) Queued() int { return len(n.fifo) }

func (n *Noop) index(rq *Request) int {
	for i, x := range n.fifo {
		if x == rq {
			return i
		}
	}
	return -1
}

// Former returns the request queued just before rq (noop_former_request).
func (n *Noop) Former(rq *Request) *Request {
	if i := n.index(rq); i > 0 {
		return n.fifo[i-1]
	}
	return nil
}

// Latter returns the request queued just after rq (noop_latter_request).
func (n *Noop) Latter(rq *Request) *Request {
	if i := n.index(rq); i >= 0 && i+1 < len(n.fifo) {
		return n.fifo[i+1]
	}
	return nil
}

// MergeRequests removes next from the list (noop_merged_requests).
func (n *Noop) MergeRequests(_, next *Request) {
	if i := n.index(next); i >= 0 {
		n.fifo = append(n.fifo[:i], n.fifo[i+1:]...)
	}
}
