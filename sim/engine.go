package sim

import "fmt"

// Handler is anything that can be scheduled on an Engine. Implement it on your own
// structs (usually a pointer receiver on a struct you reuse) so that scheduling
// allocates nothing.
type Handler interface {
	// Fire runs the event. now is the event's time, equal to Engine.Now().
	Fire(now Time)
}

// HandlerFunc adapts a function to Handler. Converting a closure to a HandlerFunc
// allocates once; reuse the value to schedule it repeatedly without allocating.
type HandlerFunc func(now Time)

// Fire calls f(now).
func (f HandlerFunc) Fire(now Time) { f(now) }

// EventID names a scheduled event so that it can be cancelled. The zero EventID names no
// event. IDs are never reused within the lifetime of an Engine for practical purposes
// (a slot's generation wraps after 2^32 reuses).
type EventID uint64

// heapArity is the branching factor of the event heap. A 4-ary heap halves the depth of a
// binary heap and keeps the children of one node in one or two cache lines.
const heapArity = 4

// entry is one heap element: the ordering key (time, then insertion sequence) and the
// slot that holds the handler. Keys live in the heap itself so that comparisons do not
// chase pointers.
type entry struct {
	at   Time
	seq  uint64
	slot uint32
}

// slot holds a scheduled handler and its current heap position (for Cancel).
type slot struct {
	h   Handler
	pos int32  // index in Engine.heap, -1 when free
	gen uint32 // incremented each time the slot is released
}

// Engine is a discrete-event engine with a virtual clock. The zero value is not usable;
// call NewEngine.
//
// Complexity: At, After and Cancel are O(log4 n) and Step is O(4·log4 n) where n is
// Pending(). In steady state (the number of pending events does not grow) nothing is
// allocated per event.
//
// An Engine must not be copied after first use and is not safe for concurrent use.
type Engine struct {
	now     Time
	seq     uint64
	heap    []entry
	slots   []slot
	free    []uint32
	stopped bool
	fired   uint64
}

// NewEngine returns an engine whose clock reads 0 with no pending events.
func NewEngine() *Engine {
	return &Engine{}
}

// Now returns the current virtual time: the time of the event being fired, or of the last
// fired event, or the limit of the last RunUntil, whichever is latest.
func (e *Engine) Now() Time { return e.now }

// Pending returns the number of scheduled, not yet fired or cancelled, events.
func (e *Engine) Pending() int { return len(e.heap) }

// Fired returns the number of events fired so far.
func (e *Engine) Fired() uint64 { return e.fired }

// At schedules h to fire at absolute time t and returns its ID. Events at equal times
// fire in the order of their At/After calls.
//
// At panics if t < Now() ("sim: At in the past") or h is nil: both are programming
// errors.
func (e *Engine) At(t Time, h Handler) EventID {
	if t < e.now {
		panic(fmt.Sprintf("sim: At in the past: t=%v < now=%v", t, e.now))
	}
	if h == nil {
		panic("sim: At with nil Handler")
	}
	s := e.allocSlot()
	e.slots[s].h = h
	e.seq++
	i := len(e.heap)
	e.heap = append(e.heap, entry{at: t, seq: e.seq, slot: s})
	e.siftUp(i)
	return EventID(uint64(e.slots[s].gen)<<32 | uint64(s+1))
}

// After schedules h to fire d after Now(). It panics if d < 0.
func (e *Engine) After(d Time, h Handler) EventID {
	if d < 0 {
		panic(fmt.Sprintf("sim: After with negative delay %v", d))
	}
	return e.At(e.now+d, h)
}

// Cancel removes a scheduled event. It reports whether the event was still pending;
// cancelling a fired, cancelled or zero ID is a no-op that returns false.
func (e *Engine) Cancel(id EventID) bool {
	if id == 0 {
		return false
	}
	s := uint32(id&0xffffffff) - 1
	if int(s) >= len(e.slots) {
		return false
	}
	sl := &e.slots[s]
	if sl.pos < 0 || sl.gen != uint32(id>>32) {
		return false
	}
	e.removeAt(int(sl.pos))
	e.releaseSlot(s)
	return true
}

// Step fires the earliest pending event, advancing Now to its time. It reports whether
// an event was fired (false when none is pending).
func (e *Engine) Step() bool {
	if len(e.heap) == 0 {
		return false
	}
	top := e.heap[0]
	e.removeAt(0)
	h := e.slots[top.slot].h
	e.releaseSlot(top.slot)
	e.now = top.at
	e.fired++
	h.Fire(top.at)
	return true
}

// Run fires events until none is pending or Stop is called.
func (e *Engine) Run() {
	e.stopped = false
	for !e.stopped && e.Step() {
	}
}

// RunUntil fires every event with time <= t (including events they schedule at or
// before t), then sets Now to t, unless Stop was called first, in which case Now stays at
// the last fired event. It panics if t < Now().
func (e *Engine) RunUntil(t Time) {
	if t < e.now {
		panic(fmt.Sprintf("sim: RunUntil in the past: t=%v < now=%v", t, e.now))
	}
	e.stopped = false
	for !e.stopped && len(e.heap) > 0 && e.heap[0].at <= t {
		e.Step()
	}
	if !e.stopped {
		e.now = t
	}
}

// Stop makes the current Run or RunUntil return after the event being fired. Calling
// it outside Run has no effect on the next Run.
func (e *Engine) Stop() { e.stopped = true }

func (e *Engine) allocSlot() uint32 {
	if n := len(e.free); n > 0 {
		s := e.free[n-1]
		e.free = e.free[:n-1]
		return s
	}
	e.slots = append(e.slots, slot{pos: -1})
	return uint32(len(e.slots) - 1)
}

func (e *Engine) releaseSlot(s uint32) {
	sl := &e.slots[s]
	sl.h = nil
	sl.pos = -1
	sl.gen++
	e.free = append(e.free, s)
}

// less orders entries by time, then insertion sequence.
func less(a, b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// removeAt deletes heap[i], keeping the heap property.
func (e *Engine) removeAt(i int) {
	last := len(e.heap) - 1
	if i != last {
		moved := e.heap[last]
		e.heap = e.heap[:last]
		if i > 0 && less(&moved, &e.heap[(i-1)/heapArity]) {
			e.heap[i] = moved
			e.siftUp(i)
		} else {
			e.siftDownFrom(i, moved)
		}
	} else {
		e.heap = e.heap[:last]
	}
}

// siftUp moves heap[i] towards the root until its parent is not greater.
func (e *Engine) siftUp(i int) {
	h := e.heap
	x := h[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if !less(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		e.slots[h[i].slot].pos = int32(i)
		i = p
	}
	h[i] = x
	e.slots[x.slot].pos = int32(i)
}

// siftDownFrom places x into the hole at i and moves it towards the leaves.
func (e *Engine) siftDownFrom(i int, x entry) {
	h := e.heap
	n := len(h)
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m := c
		end := c + heapArity
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if less(&h[j], &h[m]) {
				m = j
			}
		}
		if !less(&h[m], &x) {
			break
		}
		h[i] = h[m]
		e.slots[h[i].slot].pos = int32(i)
		i = m
	}
	h[i] = x
	e.slots[x.slot].pos = int32(i)
}
