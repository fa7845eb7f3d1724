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
// event. An ID is never reused by the same Engine.
type EventID uint64

// heapArity is the branching factor of the event heap. A 4-ary heap halves the depth of a
// binary heap; with 32-byte entries and rootIndex 3 the four children of a node fill
// exactly two 64-byte cache lines. (Measured on the development machine, a binary heap
// with the same entries was ~15% faster; see BENCHMARKS.md.)
const (
	heapArity = 4
	rootIndex = 3 // heap[0:3] is padding so that sibling groups start at multiples of 4
)

// slotBits is the number of low key bits that name a slot. A slot identifies one heap
// entry for Cancel and holds its live bit until the entry leaves the heap: at most 2^24
// (16,777,216) entries may be in the heap at once, and 2^40 events may be scheduled over
// an Engine's life.
const (
	slotBits = 24
	slotMask = 1<<slotBits - 1
	maxSeq   = 1<<(64-slotBits) - 1
)

// entry is one heap element: the event time, key = seq<<slotBits | slot (seq is the
// insertion sequence, so ordering by (at, key) is ordering by (at, seq)), and the
// handler. Keeping the handler in the entry means firing touches only the heap root.
type entry struct {
	at  Time
	key uint64
	h   Handler
}

// Engine is a discrete-event engine with a virtual clock. The zero value is not usable;
// call NewEngine.
//
// Complexity: At is O(log4 n), Cancel O(1) amortised (cancelled entries are dropped
// lazily and the heap is compacted when more than half of it is stale), Step
// O(4·log4 n), where n is Pending(). In steady state (the number of pending events
// does not grow) nothing is allocated per event. A handler that schedules one event
// while it fires reuses the heap root in place (one sift instead of two).
//
// An Engine must not be copied after first use and is not safe for concurrent use.
type Engine struct {
	now     Time
	seq     uint64
	heap    []entry  // heap[rootIndex] is the root
	keys    []uint64 // per slot: key of its live event, 0 when fired or cancelled
	live    []uint64 // bitset per slot: its heap entry is live
	free    []uint32 // slots with no heap entry
	nlive   int
	stopped bool
	fired   uint64
}

// NewEngine returns an engine whose clock reads 0 with no pending events.
func NewEngine() *Engine {
	return &Engine{heap: make([]entry, rootIndex, 64)}
}

// Now returns the current virtual time: the time of the event being fired, or of the last
// fired event, or the limit of the last RunUntil, whichever is latest.
func (e *Engine) Now() Time { return e.now }

// Pending returns the number of scheduled, not yet fired or cancelled, events.
func (e *Engine) Pending() int { return e.nlive }

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
	if e.seq == maxSeq {
		panic("sim: event sequence exhausted (2^40 events scheduled)")
	}
	e.seq++
	s := e.allocSlot()
	key := e.seq<<slotBits | uint64(s)
	e.keys[s] = key
	e.live[s>>6] |= 1 << (s & 63)
	e.nlive++
	x := entry{at: t, key: key, h: h}
	if len(e.heap) > rootIndex && e.stale(&e.heap[rootIndex]) {
		// Usually the event that is firing: put the new one in its place.
		e.free = append(e.free, uint32(e.heap[rootIndex].key&slotMask))
		e.siftDown(rootIndex, x)
	} else {
		e.heap = append(e.heap, x)
		e.siftUp(len(e.heap) - 1)
	}
	return EventID(key)
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
	s := uint32(id & slotMask)
	if int(s) >= len(e.keys) || e.keys[s] != uint64(id) {
		return false
	}
	e.kill(s)
	if n := len(e.heap) - rootIndex; n > 64 && n > 2*e.nlive {
		e.compact()
	}
	return true
}

// Step fires the earliest pending event, advancing Now to its time. It reports whether
// an event was fired (false when none is pending).
func (e *Engine) Step() bool {
	top, ok := e.peek()
	if !ok {
		return false
	}
	e.kill(uint32(top.key & slotMask)) // the root is now stale; At or the next peek replaces it
	e.now = top.at
	e.fired++
	top.h.Fire(top.at)
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
	for !e.stopped {
		top, ok := e.peek()
		if !ok || top.at > t {
			break
		}
		e.Step()
	}
	if !e.stopped {
		e.now = t
	}
}

// Stop makes the current Run or RunUntil return after the event being fired. Calling
// it outside Run has no effect on the next Run.
func (e *Engine) Stop() { e.stopped = true }

// peek drops stale entries from the root and returns the earliest live entry.
func (e *Engine) peek() (entry, bool) {
	for len(e.heap) > rootIndex {
		if !e.stale(&e.heap[rootIndex]) {
			return e.heap[rootIndex], true
		}
		e.free = append(e.free, uint32(e.heap[rootIndex].key&slotMask))
		e.popRoot()
	}
	return entry{}, false
}

func (e *Engine) stale(x *entry) bool {
	s := x.key & slotMask
	return e.live[s>>6]&(1<<(s&63)) == 0
}

// kill marks slot s's event fired or cancelled; the slot is freed when its heap entry
// is dropped.
func (e *Engine) kill(s uint32) {
	e.keys[s] = 0
	e.live[s>>6] &^= 1 << (s & 63)
	e.nlive--
}

func (e *Engine) popRoot() {
	last := len(e.heap) - 1
	x := e.heap[last]
	e.heap[last] = entry{}
	e.heap = e.heap[:last]
	if last > rootIndex {
		e.siftDown(rootIndex, x)
	}
}

// compact drops every stale entry and rebuilds the heap (Floyd, O(n)).
func (e *Engine) compact() {
	h := e.heap[:rootIndex]
	for _, x := range e.heap[rootIndex:] {
		if !e.stale(&x) {
			h = append(h, x)
		} else {
			e.free = append(e.free, uint32(x.key&slotMask))
		}
	}
	clear(e.heap[len(h):]) // drop handler references
	e.heap = h
	for i := parent(len(h) - 1); i >= rootIndex; i-- {
		e.siftDown(i, h[i])
	}
}

func (e *Engine) allocSlot() uint32 {
	if n := len(e.free); n > 0 {
		s := e.free[n-1]
		e.free = e.free[:n-1]
		return s
	}
	if len(e.keys) > slotMask {
		panic("sim: more than 2^24 events pending")
	}
	e.keys = append(e.keys, 0)
	if len(e.keys) > 64*len(e.live) {
		e.live = append(e.live, 0)
	}
	return uint32(len(e.keys) - 1)
}

// less orders entries by time, then insertion sequence.
func less(a, b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// parent returns the heap index of the parent of i (i > rootIndex).
func parent(i int) int { return i/heapArity + 2 }

// firstChild returns the heap index of the first child of i.
func firstChild(i int) int { return heapArity*i - 8 }

// siftUp moves heap[i] towards the root until its parent is not greater.
func (e *Engine) siftUp(i int) {
	h := e.heap
	x := h[i]
	for i > rootIndex {
		p := parent(i)
		if !less(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// siftDown places x into the hole at i and moves it towards the leaves.
func (e *Engine) siftDown(i int, x entry) {
	h := e.heap
	n := len(h)
	for {
		c := firstChild(i)
		if c >= n {
			break
		}
		m := c
		end := min(c+heapArity, n)
		for j := c + 1; j < end; j++ {
			if less(&h[j], &h[m]) {
				m = j
			}
		}
		if !less(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
