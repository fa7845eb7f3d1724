package sim

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

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

// slotBits is the number of low key bits that name a slot. A slot identifies one queued
// entry for Cancel and stays allocated until the entry leaves the queue: at most 2^24
// (16,777,216) entries may be queued at once, and 2^40 events may be scheduled over an
// Engine's life.
const (
	slotBits = 24
	slotMask = 1<<slotBits - 1
	maxSeq   = 1<<(64-slotBits) - 1
)

// entry is one queued event: the event time and key = seq<<slotBits | slot (seq is
// the insertion sequence, so ordering by (at, key) is ordering by (at, seq)). The
// handler is in the slot, so entries hold no pointers: the buckets move them without
// write barriers and the garbage collector does not scan them.
type entry struct {
	at  Time
	key uint64
}

// slot is one slot's event: its key while the event is live (0 when fired or
// cancelled) and its handler (nil then).
type slot struct {
	key uint64
	h   Handler
}

// nBuckets is the number of radix buckets: bucket 0 holds events at exactly the queue's
// base time, bucket b > 0 those whose time differs from it first in bit b−1 (times
// are non-negative int64, so bit 63 never differs).
const nBuckets = 64

// Engine is a discrete-event engine with a virtual clock. The zero value is not usable;
// call NewEngine.
//
// The event queue is a radix heap made for monotone virtual time: no event is ever
// scheduled before the earliest pending one's base, so an event's bucket is the
// highest bit in which its time differs from the base (the time of the last event
// taken out). Every bucket keeps insertion order, and bucket 0 (time == base) is
// the FIFO events fire from; when it is empty, the lowest non-empty bucket is spread
// over the lower ones around its earliest time. Each event moves down at most once
// per bit of its delay, so At is O(1), Step O(1) amortised, Cancel O(1)
// (cancelled entries are dropped lazily and the queue is compacted when more than
// half of it is stale). In steady state nothing is allocated per event. (The 4-ary
// heap this replaces did 4.3–5.5 M events/s with 10^5 pending; see BENCHMARKS.md.)
//
// An Engine must not be copied after first use and is not safe for concurrent use.
type Engine struct {
	now     Time
	seq     uint64
	base    Time              // every queued entry has at >= base
	buckets [nBuckets][]entry // bucket 0 from head0 on is live order
	bmin    [nBuckets]Time    // per bucket > 0: earliest time in it (valid when non-empty)
	head0   int               // first unread entry of bucket 0
	mask    uint64            // bit b set: bucket b > 0 is non-empty
	queued  int               // entries in buckets, stale ones included
	slots   []slot            // per slot: its live event's key and handler
	free    []uint32          // slots with no queued entry
	nlive   int
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
	e.slots[s] = slot{key: key, h: h}
	e.nlive++
	if t < e.base {
		// A peek (RunUntil) moved the base past Now to the earliest pending time and
		// this event comes before it: re-bucket around t (rare: once per RunUntil
		// limit at most).
		e.rebase(t)
	}
	e.push(entry{at: t, key: key})
	return EventID(key)
}

// push files x into its bucket (x.at >= base). Bucket 0 keeps insertion order
// because x has the largest sequence of all queued entries.
func (e *Engine) push(x entry) {
	b := bits.Len64(uint64(x.at ^ e.base))
	e.buckets[b] = append(e.buckets[b], x)
	if b > 0 {
		if e.mask&(1<<b) == 0 || x.at < e.bmin[b] {
			e.bmin[b] = x.at
		}
		e.mask |= 1 << b
	}
	e.queued++
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
	if int(s) >= len(e.slots) || e.slots[s].key != uint64(id) {
		return false
	}
	e.kill(s)
	if e.queued > 64 && e.queued > 2*e.nlive {
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
	e.pop0()
	s := uint32(top.key & slotMask)
	h := e.slots[s].h
	e.kill(s)
	e.free = append(e.free, s)
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

// peek drops stale entries from the front of bucket 0, refilling it from the lowest
// non-empty bucket when it runs dry, and returns the earliest live entry.
func (e *Engine) peek() (entry, bool) {
	for {
		b0 := e.buckets[0]
		for e.head0 < len(b0) {
			x := &b0[e.head0]
			if !e.stale(x) {
				return *x, true
			}
			e.free = append(e.free, uint32(x.key&slotMask))
			e.pop0()
			b0 = e.buckets[0]
		}
		if e.mask == 0 {
			return entry{}, false
		}
		e.refill()
	}
}

// pop0 removes the front entry of bucket 0.
func (e *Engine) pop0() {
	b0 := e.buckets[0]
	e.head0++
	e.queued--
	if e.head0 == len(b0) {
		e.buckets[0], e.head0 = b0[:0], 0
	}
}

// refill empties the lowest non-empty bucket b > 0 (buckets 0 … b−1 are empty): the
// base moves to its earliest time, and each of its entries goes to the bucket of its new
// bit difference, which is below b. Every bucket stays in insertion order: At appends
// the newest event, and refill copies a bucket in order into empty buckets.
func (e *Engine) refill() {
	b := bits.TrailingZeros64(e.mask)
	src := e.buckets[b]
	lo := e.bmin[b] // the earliest time in src (push keeps it)
	e.base = lo
	mask := e.mask &^ (1 << b)
	for i := range src {
		at := src[i].at
		c := bits.Len64(uint64(at ^ lo))
		e.buckets[c] = append(e.buckets[c], src[i])
		if c > 0 && (mask&(1<<c) == 0 || at < e.bmin[c]) {
			e.bmin[c] = at
		}
		mask |= 1 << c
	}
	e.mask = mask &^ 1 // bucket 0 has no mask bit
	e.buckets[b] = src[:0]
}

// rebase re-buckets every queued entry around t, which is not after any of them.
func (e *Engine) rebase(t Time) {
	var all []entry
	for b := range e.buckets {
		src := e.buckets[b]
		if b == 0 {
			src = src[e.head0:]
		}
		all = append(all, src...)
		clear(e.buckets[b])
		e.buckets[b] = e.buckets[b][:0]
	}
	e.head0, e.mask, e.queued, e.base = 0, 0, 0, t
	slices.SortFunc(all, func(x, y entry) int { return cmp.Compare(x.key, y.key) })
	for _, x := range all {
		e.push(x)
	}
}

// stale reports whether x's event was fired or cancelled: its slot no longer holds
// x's key (the slot is not reused while x is queued).
func (e *Engine) stale(x *entry) bool {
	return e.slots[x.key&slotMask].key != x.key
}

// kill marks slot s's event fired or cancelled; the slot is freed when its queued
// entry is dropped.
func (e *Engine) kill(s uint32) {
	e.slots[s] = slot{}
	e.nlive--
}

// compact drops every stale entry, keeping each bucket's order.
func (e *Engine) compact() {
	e.queued = 0
	for b := range e.buckets {
		src := e.buckets[b]
		start := 0
		if b == 0 {
			start = e.head0
		}
		dst := src[:0]
		for _, x := range src[start:] {
			if !e.stale(&x) {
				dst = append(dst, x)
			} else {
				e.free = append(e.free, uint32(x.key&slotMask))
			}
		}
		clear(src[len(dst):])
		e.buckets[b] = dst
		e.queued += len(dst)
		if b > 0 && len(dst) == 0 {
			e.mask &^= 1 << b
		}
	}
	e.head0 = 0
}

func (e *Engine) allocSlot() uint32 {
	if n := len(e.free); n > 0 {
		s := e.free[n-1]
		e.free = e.free[:n-1]
		return s
	}
	if len(e.slots) > slotMask {
		panic("sim: more than 2^24 events pending")
	}
	e.slots = append(e.slots, slot{})
	return uint32(len(e.slots) - 1)
}
