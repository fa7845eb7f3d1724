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
	// Queued returns the number of requests held.
	Queued() int
}

// Noop is the noop scheduler (block/noop-iosched.c): one FIFO list, no sorting, no
// front merges (back merges still happen through the queue's hash).
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
