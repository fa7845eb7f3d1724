package legacy

import (
	"fmt"
	"sort"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// DeadlineParams are the tunables of the deadline scheduler
// (/sys/block/*/queue/iosched/*). Start from DefaultDeadlineParams.
type DeadlineParams struct {
	ReadExpire    sim.Time // read FIFO expiry (ns), >= 0; default 500 ms (HZ/2)
	WriteExpire   sim.Time // write FIFO expiry (ns), >= 0; default 5 s
	WritesStarved int      // read batches that may pass waiting writes, >= 0; default 2
	FifoBatch     int      // requests per sector-ordered batch, >= 1; default 16
	// NoFrontMerges disables front merges (front_merges=0); default enabled.
	NoFrontMerges bool
}

// DefaultDeadlineParams returns the v3.10 defaults: read_expire 500 ms,
// write_expire 5 s, writes_starved 2, fifo_batch 16, front_merges 1.
func DefaultDeadlineParams() DeadlineParams {
	return DeadlineParams{ReadExpire: 500 * sim.Millisecond, WriteExpire: 5 * sim.Second,
		WritesStarved: 2, FifoBatch: 16}
}

// Deadline is the legacy deadline scheduler (block/deadline-iosched.c): per
// direction a sector-sorted list and a FIFO of expiry times; batches of up to
// FifoBatch requests in ascending sector order; reads preferred, writes served
// after reads were chosen WritesStarved times while writes waited; an expired FIFO
// head (or the end of the sorted list) starts a batch at the oldest request.
type Deadline struct {
	p        DeadlineParams
	sorted   [2][]*Request // by offset, then allocation order
	fifo     [2][]*Request // insertion order
	next     [2]*Request   // next_rq: sort successor of the last dispatched request
	batching int
	starved  int
}

// NewDeadline returns a deadline scheduler with parameters p (used as given:
// start from DefaultDeadlineParams). Out-of-range values are an error naming the
// field.
func NewDeadline(p DeadlineParams) (*Deadline, error) {
	switch {
	case p.ReadExpire < 0:
		return nil, fmt.Errorf("legacy: deadline read_expire %v out of range [0, inf)", p.ReadExpire)
	case p.WriteExpire < 0:
		return nil, fmt.Errorf("legacy: deadline write_expire %v out of range [0, inf)", p.WriteExpire)
	case p.WritesStarved < 0:
		return nil, fmt.Errorf("legacy: deadline writes_starved %d out of range [0, inf)", p.WritesStarved)
	case p.FifoBatch < 1:
		return nil, fmt.Errorf("legacy: deadline fifo_batch %d out of range [1, inf)", p.FifoBatch)
	}
	return &Deadline{p: p}, nil
}

// Name returns "deadline".
func (d *Deadline) Name() string { return "deadline" }

// Queued returns the number of requests held.
func (d *Deadline) Queued() int { return len(d.fifo[0]) + len(d.fifo[1]) }

// Add models deadline_add_request: insert into the sort list and append to the
// FIFO with expiry now + read_expire or write_expire.
func (d *Deadline) Add(rq *Request, now sim.Time) {
	dir := rq.op
	d.addSorted(rq)
	if dir == device.OpRead {
		rq.fifoTime = now + d.p.ReadExpire
	} else {
		rq.fifoTime = now + d.p.WriteExpire
	}
	d.fifo[dir] = append(d.fifo[dir], rq)
}

func less(a, b *Request) bool {
	if a.offset != b.offset {
		return a.offset < b.offset
	}
	return a.seq < b.seq
}

func (d *Deadline) addSorted(rq *Request) {
	s := d.sorted[rq.op]
	i := sort.Search(len(s), func(i int) bool { return less(rq, s[i]) })
	s = append(s, nil)
	copy(s[i+1:], s[i:])
	s[i] = rq
	d.sorted[rq.op] = s
}

func (d *Deadline) sortIndex(rq *Request) int {
	s := d.sorted[rq.op]
	i := sort.Search(len(s), func(i int) bool { return !less(s[i], rq) })
	if i < len(s) && s[i] == rq {
		return i
	}
	// A request whose start just moved (front merge not yet repositioned) is out
	// of key order: find it by identity, as the kernel's rb_prev/rb_next do.
	for i, x := range s {
		if x == rq {
			return i
		}
	}
	panic(fmt.Sprintf("legacy: deadline: request %v not in its sort list", rq))
}

// removeSorted models deadline_del_rq_rb, returning the sort successor
// (deadline_latter_request) or nil.
func (d *Deadline) removeSorted(rq *Request) *Request {
	s := d.sorted[rq.op]
	i := d.sortIndex(rq)
	copy(s[i:], s[i+1:])
	s[len(s)-1] = nil
	d.sorted[rq.op] = s[:len(s)-1]
	if i < len(d.sorted[rq.op]) {
		return d.sorted[rq.op][i]
	}
	return nil
}

func (d *Deadline) removeFifo(rq *Request) {
	f := d.fifo[rq.op]
	for i, x := range f {
		if x == rq {
			copy(f[i:], f[i+1:])
			f[len(f)-1] = nil
			d.fifo[rq.op] = f[:len(f)-1]
			return
		}
	}
	panic(fmt.Sprintf("legacy: deadline: request %v not in its FIFO", rq))
}

// FrontMerge models deadline_merge: the held request of direction op that starts
// exactly at off (the bio's end), unless front merges are disabled.
func (d *Deadline) FrontMerge(op device.Op, off int64) *Request {
	if d.p.NoFrontMerges {
		return nil
	}
	s := d.sorted[op]
	i := sort.Search(len(s), func(i int) bool { return s[i].offset >= off })
	if i < len(s) && s[i].offset == off {
		return s[i]
	}
	return nil
}

// Merged models deadline_merged_request: after a front merge the request moves
// in the sort list (its start changed).
func (d *Deadline) Merged(rq *Request) {
	s := d.sorted[rq.op]
	for i, x := range s {
		if x == rq {
			copy(s[i:], s[i+1:])
			d.sorted[rq.op] = s[:len(s)-1]
			break
		}
	}
	d.addSorted(rq)
}

// fifoExpired models deadline_check_fifo.
func (d *Deadline) fifoExpired(dir device.Op, now sim.Time) bool {
	f := d.fifo[dir]
	return len(f) > 0 && now >= f[0].fifoTime
}

// Dispatch models deadline_dispatch_requests (without force): continue the
// current batch while it is shorter than fifo_batch; otherwise choose a direction
// (reads unless writes have been starved writes_starved times) and start a batch
// at the FIFO head if it expired or the sort successor is missing, else at the
// sort successor.
func (d *Deadline) Dispatch(now sim.Time) *Request {
	rq := d.next[device.OpWrite]
	if rq == nil {
		rq = d.next[device.OpRead]
	}
	if rq != nil && d.batching < d.p.FifoBatch {
		return d.move(rq)
	}
	reads, writes := len(d.fifo[device.OpRead]) > 0, len(d.fifo[device.OpWrite]) > 0
	var dir device.Op
	switch {
	case reads && !(writes && d.starvedWrites()):
		dir = device.OpRead
	case writes:
		d.starved = 0
		dir = device.OpWrite
	default:
		return nil
	}
	if d.fifoExpired(dir, now) || d.next[dir] == nil {
		rq = d.fifo[dir][0]
	} else {
		rq = d.next[dir]
	}
	d.batching = 0
	return d.move(rq)
}

// starvedWrites is the "starved++ >= writes_starved" test, with its side effect.
func (d *Deadline) starvedWrites() bool {
	s := d.starved
	d.starved++
	return s >= d.p.WritesStarved
}

// move models deadline_move_request: remember the sort successor as next_rq
// (clearing the other direction), remove rq, count it in the batch.
func (d *Deadline) move(rq *Request) *Request {
	d.next = [2]*Request{}
	d.next[rq.op] = d.removeSorted(rq)
	d.removeFifo(rq)
	d.batching++
	return rq
}

// Former returns the sort predecessor of rq (elv_rb_former_request).
func (d *Deadline) Former(rq *Request) *Request {
	if i := d.sortIndex(rq); i > 0 {
		return d.sorted[rq.op][i-1]
	}
	return nil
}

// Latter returns the sort successor of rq (elv_rb_latter_request).
func (d *Deadline) Latter(rq *Request) *Request {
	s := d.sorted[rq.op]
	if i := d.sortIndex(rq); i+1 < len(s) {
		return s[i+1]
	}
	return nil
}

// MergeRequests models deadline_merged_requests: if next expires earlier, rq
// takes next's place in the FIFO and its expiry; then next is removed
// (deadline_remove_request: a next_rq pointing at it moves to its successor).
func (d *Deadline) MergeRequests(rq, next *Request) {
	if next.fifoTime < rq.fifoTime {
		d.removeFifo(rq)
		f := d.fifo[rq.op]
		for i, x := range f {
			if x == next {
				f = append(f, nil)
				copy(f[i+1:], f[i:])
				f[i] = rq
				d.fifo[rq.op] = f
				break
			}
		}
		rq.fifoTime = next.fifoTime
	}
	succ := d.removeSorted(next)
	if d.next[next.op] == next {
		d.next[next.op] = succ
	}
	d.removeFifo(next)
}
