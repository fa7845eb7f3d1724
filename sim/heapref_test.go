package sim_test

// The 4-ary event heap the engine used before its radix queue, kept as the reference
// the rapid test compares the engine with (same API, same determinism rule: time, then
// insertion sequence).

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// refArity is the branching factor of the event heap. A 4-ary heap halves the depth of a
// binary heap; with 32-byte entries and refRoot 3 the four children of a node fill
// exactly two 64-byte cache lines. (Measured on the development machine, a binary heap
// with the same entries was ~15% faster; see BENCHMARKS.md.)
const (
	refArity = 4
	refRoot  = 3 // heap[0:3] is padding so that sibling groups start at multiples of 4
)

// refSlotBits is the number of low key bits that name a slot. A slot identifies one heap
// hentry for Cancel and holds its live bit until the hentry leaves the heap: at most 2^24
// (16,777,216) entries may be in the heap at once, and 2^40 events may be scheduled over
// an heapEngine's life.
const (
	refSlotBits = 24
	refSlotMask = 1<<refSlotBits - 1
	refMaxSeq   = 1<<(64-refSlotBits) - 1
)

// hentry is one heap element: the event time, key = seq<<refSlotBits | slot (seq is the
// insertion sequence, so ordering by (at, key) is ordering by (at, seq)), and the
// handler. Keeping the handler in the hentry means firing touches only the heap root.
type hentry struct {
	at  sim.Time
	key uint64
	h   sim.Handler
}

// heapEngine is a discrete-event engine with a virtual clock. The zero value is not usable;
// call newHeapEngine.
//
// Complexity: At is O(log4 n), Cancel O(1) amortised (cancelled entries are dropped
// lazily and the heap is compacted when more than half of it is stale), Step
// O(4·log4 n), where n is Pending(). In steady state (the number of pending events
// does not grow) nothing is allocated per event. A handler that schedules one event
// while it fires reuses the heap root in place (one sift instead of two).
//
// An heapEngine must not be copied after first use and is not safe for concurrent use.
type heapEngine struct {
	now     sim.Time
	seq     uint64
	heap    []hentry // heap[refRoot] is the root
	keys    []uint64 // per slot: key of its live event, 0 when fired or cancelled
	live    []uint64 // bitset per slot: its heap hentry is live
	free    []uint32 // slots with no heap hentry
	nlive   int
	stopped bool
	fired   uint64
}

// newHeapEngine returns an engine whose clock reads 0 with no pending events.
func newHeapEngine() *heapEngine {
	return &heapEngine{heap: make([]hentry, refRoot, 64)}
}

// Now returns the current virtual time: the time of the event being fired, or of the last
// fired event, or the limit of the last RunUntil, whichever is latest.
func (e *heapEngine) Now() sim.Time { return e.now }

// Pending returns the number of scheduled, not yet fired or cancelled, events.
func (e *heapEngine) Pending() int { return e.nlive }

// Fired returns the number of events fired so far.
func (e *heapEngine) Fired() uint64 { return e.fired }

// At schedules h to fire at absolute time t and returns its ID. Events at equal times
// fire in the order of their At/After calls.
//
// At panics if t < Now() ("sim: At in the past") or h is nil: both are programming
// errors.
func (e *heapEngine) At(t sim.Time, h sim.Handler) sim.EventID {
	if t < e.now {
		panic(fmt.Sprintf("sim: At in the past: t=%v < now=%v", t, e.now))
	}
	if h == nil {
		panic("sim: At with nil sim.Handler")
	}
	if e.seq == refMaxSeq {
		panic("sim: event sequence exhausted (2^40 events scheduled)")
	}
	e.seq++
	s := e.allocSlot()
	key := e.seq<<refSlotBits | uint64(s)
	e.keys[s] = key
	e.live[s>>6] |= 1 << (s & 63)
	e.nlive++
	x := hentry{at: t, key: key, h: h}
	if len(e.heap) > refRoot && e.stale(&e.heap[refRoot]) {
		// Usually the event that is firing: put the new one in its place.
		e.free = append(e.free, uint32(e.heap[refRoot].key&refSlotMask))
		e.siftDown(refRoot, x)
	} else {
		e.heap = append(e.heap, x)
		e.siftUp(len(e.heap) - 1)
	}
	return sim.EventID(key)
}

// After schedules h to fire d after Now(). It panics if d < 0.
func (e *heapEngine) After(d sim.Time, h sim.Handler) sim.EventID {
	if d < 0 {
		panic(fmt.Sprintf("sim: After with negative delay %v", d))
	}
	return e.At(e.now+d, h)
}

// Cancel removes a scheduled event. It reports whether the event was still pending;
// cancelling a fired, cancelled or zero ID is a no-op that returns false.
func (e *heapEngine) Cancel(id sim.EventID) bool {
	if id == 0 {
		return false
	}
	s := uint32(id & refSlotMask)
	if int(s) >= len(e.keys) || e.keys[s] != uint64(id) {
		return false
	}
	e.kill(s)
	if n := len(e.heap) - refRoot; n > 64 && n > 2*e.nlive {
		e.compact()
	}
	return true
}

// Step fires the earliest pending event, advancing Now to its time. It reports whether
// an event was fired (false when none is pending).
func (e *heapEngine) Step() bool {
	top, ok := e.peek()
	if !ok {
		return false
	}
	e.kill(uint32(top.key & refSlotMask)) // the root is now stale; At or the next peek replaces it
	e.now = top.at
	e.fired++
	top.h.Fire(top.at)
	return true
}

// Run fires events until none is pending or Stop is called.
func (e *heapEngine) Run() {
	e.stopped = false
	for !e.stopped && e.Step() {
	}
}

// RunUntil fires every event with time <= t (including events they schedule at or
// before t), then sets Now to t, unless Stop was called first, in which case Now stays at
// the last fired event. It panics if t < Now().
func (e *heapEngine) RunUntil(t sim.Time) {
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
func (e *heapEngine) Stop() { e.stopped = true }

// peek drops stale entries from the root and returns the earliest live hentry.
func (e *heapEngine) peek() (hentry, bool) {
	for len(e.heap) > refRoot {
		if !e.stale(&e.heap[refRoot]) {
			return e.heap[refRoot], true
		}
		e.free = append(e.free, uint32(e.heap[refRoot].key&refSlotMask))
		e.popRoot()
	}
	return hentry{}, false
}

func (e *heapEngine) stale(x *hentry) bool {
	s := x.key & refSlotMask
	return e.live[s>>6]&(1<<(s&63)) == 0
}

// kill marks slot s's event fired or cancelled; the slot is freed when its heap hentry
// is dropped.
func (e *heapEngine) kill(s uint32) {
	e.keys[s] = 0
	e.live[s>>6] &^= 1 << (s & 63)
	e.nlive--
}

func (e *heapEngine) popRoot() {
	last := len(e.heap) - 1
	x := e.heap[last]
	e.heap[last] = hentry{}
	e.heap = e.heap[:last]
	if last > refRoot {
		e.siftDown(refRoot, x)
	}
}

// compact drops every stale hentry and rebuilds the heap (Floyd, O(n)).
func (e *heapEngine) compact() {
	h := e.heap[:refRoot]
	for _, x := range e.heap[refRoot:] {
		if !e.stale(&x) {
			h = append(h, x)
		} else {
			e.free = append(e.free, uint32(x.key&refSlotMask))
		}
	}
	clear(e.heap[len(h):]) // drop handler references
	e.heap = h
	for i := hparent(len(h) - 1); i >= refRoot; i-- {
		e.siftDown(i, h[i])
	}
}

func (e *heapEngine) allocSlot() uint32 {
	if n := len(e.free); n > 0 {
		s := e.free[n-1]
		e.free = e.free[:n-1]
		return s
	}
	if len(e.keys) > refSlotMask {
		panic("sim: more than 2^24 events pending")
	}
	e.keys = append(e.keys, 0)
	if len(e.keys) > 64*len(e.live) {
		e.live = append(e.live, 0)
	}
	return uint32(len(e.keys) - 1)
}

// hless orders entries by time, then insertion sequence.
func hless(a, b *hentry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// hparent returns the heap index of the hparent of i (i > refRoot).
func hparent(i int) int { return i/refArity + 2 }

// hfirstChild returns the heap index of the first child of i.
func hfirstChild(i int) int { return refArity*i - 8 }

// siftUp moves heap[i] towards the root until its hparent is not greater.
func (e *heapEngine) siftUp(i int) {
	h := e.heap
	x := h[i]
	for i > refRoot {
		p := hparent(i)
		if !hless(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// siftDown places x into the hole at i and moves it towards the leaves.
func (e *heapEngine) siftDown(i int, x hentry) {
	h := e.heap
	n := len(h)
	for {
		c := hfirstChild(i)
		if c >= n {
			break
		}
		m := c
		end := min(c+refArity, n)
		for j := c + 1; j < end; j++ {
			if hless(&h[j], &h[m]) {
				m = j
			}
		}
		if !hless(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
