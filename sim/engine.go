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

// The radix buckets work on digits of digitBits bits of the time: bucket
// level<<digitBits | d holds the events whose time differs from the queue's base first
// in digit level (bits digitBits×level … digitBits×level + digitBits − 1) and has
// digit d there (d is then above the base's digit, so d = 0 is never used). Bucket
// numbers order the buckets by time: every event of a bucket is earlier than every
// event of a higher one. A bucket spread around its earliest time files its events in
// lower levels, so an event moves about (bits of its delay)/digitBits times instead of
// once per bit (round 9: 490 instructions per event with 10^5 pending and single-bit
// buckets).
const (
	digitBits = 4
	nDigits   = 1 << digitBits
	nBuckets  = 64 / digitBits * nDigits
	maskWords = nBuckets / 64
)

// bucketOf is the bucket of an event at t > base.
func bucketOf(t, base Time) uint {
	shift := uint(bits.Len64(uint64(t^base))-1) &^ (digitBits - 1) // the level's first bit
	return shift/digitBits<<digitBits | uint(uint64(t)>>shift)&(nDigits-1)
}

// frontMax is the largest bucket refill sorts into the front run whole; a larger
// bucket is first spread over the lower buckets around its earliest time (the radix
// heap's step). Sorting a bucket of up to frontMax entries costs less than moving each
// of them down bucket by bucket.
const frontMax = 16

// compactMin is the number of queued entries, stale ones included, below which Cancel
// never compacts the queue. Stale entries are dropped anyway when refill or the front
// run meets them; compacting only bounds the memory they hold, and a compaction also
// re-reads every live entry, which a small floor made a large share of the cost when
// few events are live and many are cancelled (a queue of 20 live events was compacted
// every ~44 cancellations). 1024 entries are 16 KiB.
const compactMin = 1024

// Engine is a discrete-event engine with a virtual clock. The zero value is not usable;
// call NewEngine.
//
// The event queue is a radix heap made for monotone virtual time, with a sorted front
// run. The front run holds the earliest events, sorted by (time, insertion sequence);
// every event at or before the queue's base time is in it, and every other event is
// in the radix bucket of the highest digit in which its time differs from the base
// (digitBits).
// Events fire from the front run. When it is empty, the lowest non-empty bucket is
// either sorted into it whole (up to frontMax entries; the base moves to the latest
// of them) or spread over the lower buckets around its earliest time (the base moves
// there). At is O(1) for an event after the base and O(frontMax) before it, Step
// O(log frontMax) amortised per event and digit of its delay, Cancel O(1) (cancelled
// entries are dropped lazily, when refill or the front run meets them, and the queue is
// compacted when more than half of it is stale). In steady state nothing is allocated
// per event. (The 4-ary heap the radix queue replaced did 4.3–5.5 M events/s with
// 10^5 pending; see BENCHMARKS.md.)
//
// An Engine must not be copied after first use and is not safe for concurrent use.
type Engine struct {
	now     Time
	seq     uint64
	base    Time              // front entries have at <= base, bucket entries at > base
	front   []entry           // from head on: sorted by (at, key)
	head    int               // first unread entry of front
	buckets [nBuckets][]entry // see digitBits
	bmin    [nBuckets]Time    // per bucket: earliest time in it (valid when non-empty)
	mask    [maskWords]uint64 // bit b set: bucket b is non-empty
	queued  int               // entries in front and buckets, stale ones included
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
	if t < e.now || h == nil || e.seq == maxSeq {
		e.badAt(t, h)
	}
	e.seq++
	s := e.allocSlot()
	key := e.seq<<slotBits | uint64(s)
	e.slots[s] = slot{key: key, h: h}
	e.nlive++
	e.queued++
	if t > e.base { // push, written out: a call here cost as much as the filing
		b := bucketOf(t, e.base) % nBuckets
		e.buckets[b] = append(e.buckets[b], entry{at: t, key: key})
		if bit := uint64(1) << (b & 63); e.mask[b>>6]&bit == 0 || t < e.bmin[b] {
			e.bmin[b] = t
			e.mask[b>>6] |= bit
		}
	} else {
		e.insertFront(entry{at: t, key: key})
	}
	return EventID(key)
}

// badAt panics with the reason At refuses (t, h).
func (e *Engine) badAt(t Time, h Handler) {
	if t < e.now {
		panic(fmt.Sprintf("sim: At in the past: t=%v < now=%v", t, e.now))
	}
	if h == nil {
		panic("sim: At with nil Handler")
	}
	panic("sim: event sequence exhausted (2^40 events scheduled)")
}

// push files x into its bucket (x.at > base).
func (e *Engine) push(x entry) {
	b := bucketOf(x.at, e.base) % nBuckets // always true; drops the bounds checks
	e.buckets[b] = append(e.buckets[b], x)
	if bit := uint64(1) << (b & 63); e.mask[b>>6]&bit == 0 || x.at < e.bmin[b] {
		e.bmin[b] = x.at
		e.mask[b>>6] |= bit
	}
}

// lowest returns the lowest non-empty bucket, or -1 when every bucket is empty.
func (e *Engine) lowest() int {
	for w := range e.mask {
		if m := e.mask[w]; m != 0 {
			return w<<6 | bits.TrailingZeros64(m)
		}
	}
	return -1
}

// insertFront puts x (x.at <= base, the largest key queued) into the front run after
// every entry at or before its time.
func (e *Engine) insertFront(x entry) {
	if len(e.front) == cap(e.front) && 2*e.head >= len(e.front) && e.head > 0 {
		e.slideFront()
	}
	f := e.front
	n := len(f)
	if n == e.head || f[n-1].at <= x.at {
		e.front = append(f, x)
		return
	}
	lo, hi := e.head, n-1 // f[hi].at > x.at
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f[m].at <= x.at {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if n-lo > frontMax {
		// A front run longer than frontMax holds events at one time (refill spread a
		// bucket around it), and x comes before many of them: re-bucket everything
		// around x's time rather than move them all (rare: once per such burst).
		e.rebase(x)
		return
	}
	e.front = slices.Insert(f, lo, x)
}

// slideFront moves the unread part of a full front run to the start of its array
// (insertFront calls it when that frees at least half of the array), so that a front
// run that keeps receiving events before it drains (its read part is otherwise
// reclaimed only when it empties) reuses its array instead of growing it, copying the
// read part along. The order of the entries is kept.
func (e *Engine) slideFront() {
	n := copy(e.front, e.front[e.head:])
	e.front, e.head = e.front[:n], 0
}

// rebase re-files every queued entry and x (the newest, with x.at <= base) around the
// base x.at: the entries at or before it form the front run, the others go to their
// buckets in insertion order.
func (e *Engine) rebase(x entry) {
	all := slices.Clone(e.front[e.head:])
	for b := range e.buckets {
		all = append(all, e.buckets[b]...)
		e.buckets[b] = e.buckets[b][:0]
	}
	slices.SortFunc(all, func(p, q entry) int { return cmp.Compare(p.key, q.key) })
	all = append(all, x)
	e.front, e.head, e.mask, e.base = e.front[:0], 0, [maskWords]uint64{}, x.at
	for _, y := range all {
		if y.at <= e.base {
			e.front = append(e.front, y)
		} else {
			e.push(y)
		}
	}
	slices.SortFunc(e.front, func(p, q entry) int {
		return cmp.Or(cmp.Compare(p.at, q.at), cmp.Compare(p.key, q.key))
	})
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
	if e.queued > compactMin && e.queued > 2*e.nlive {
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
	e.fire(top)
	return true
}

// fire fires top, the entry peek returned (the first of the front run).
func (e *Engine) fire(top entry) {
	e.popFront()
	s := uint32(top.key & slotMask)
	h := e.slots[s].h
	e.kill(s)
	e.free = append(e.free, s)
	e.now = top.at
	e.fired++
	h.Fire(top.at)
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
		e.fire(top)
	}
	if !e.stopped {
		e.now = t
	}
}

// RunUntilCapped is RunUntil that also returns once it has fired n events (n >= 1)
// with more due by t: then it reports true and Now stays at the last event fired;
// a later RunUntil or RunUntilCapped to t carries on as the one RunUntil call would
// have (same events, same order). It reports false when it ran to t (Now = t) or a
// handler called Stop. A caller that must notice something outside the model (a
// signal) between events runs a long stretch in such slices.
func (e *Engine) RunUntilCapped(t Time, n uint64) (capped bool) {
	if t < e.now {
		panic(fmt.Sprintf("sim: RunUntilCapped in the past: t=%v < now=%v", t, e.now))
	}
	e.stopped = false
	stop := e.fired + max(n, 1)
	for !e.stopped {
		top, ok := e.peek()
		if !ok || top.at > t {
			break
		}
		if e.fired >= stop {
			return true
		}
		e.fire(top)
	}
	if !e.stopped {
		e.now = t
	}
	return false
}

// Stop makes the current Run or RunUntil return after the event being fired. Calling
// it outside Run has no effect on the next Run.
func (e *Engine) Stop() { e.stopped = true }

// peek drops stale entries from the front run, refilling it from the lowest non-empty
// bucket when it runs dry, and returns the earliest live entry.
func (e *Engine) peek() (entry, bool) {
	for {
		f := e.front
		for e.head < len(f) {
			x := &f[e.head]
			if !e.stale(x) {
				return *x, true
			}
			e.free = append(e.free, uint32(x.key&slotMask))
			e.popFront()
			f = e.front
		}
		b := e.lowest()
		if b < 0 {
			return entry{}, false
		}
		e.refill(b)
	}
}

// popFront removes the first entry of the front run.
func (e *Engine) popFront() {
	e.head++
	e.queued--
	if e.head == len(e.front) {
		e.front, e.head = e.front[:0], 0
	}
}

// refill empties the lowest non-empty bucket b (the front run is empty) and drops its
// stale entries. Up to frontMax entries are sorted into the front run and the base
// moves to the latest of them; the higher buckets keep their entries, whose first digit
// of difference from the new base is still their bucket's (the new base has b's
// digits). A larger bucket is spread around its earliest time instead: the base moves
// there, the entries at it go to the front run and each other one to the bucket of its
// new first digit of difference, at a level below b's (those buckets are all empty). Buckets keep insertion order (At appends the newest event, refill copies in order
// into empty buckets), so entries at equal times reach the front run in it.
func (e *Engine) refill(b int) {
	src := e.buckets[b]
	e.buckets[b] = src[:0]
	e.mask[b>>6] &^= 1 << (b & 63)
	if len(src) <= frontMax {
		f := e.front[:0]
		hi := e.base
		for i := range src {
			x := src[i]
			if e.stale(&x) {
				e.free = append(e.free, uint32(x.key&slotMask))
				e.queued--
				continue
			}
			f = append(f, x)
			hi = max(hi, x.at)
		}
		if len(f) > 1 {
			sortEntries(f)
		}
		e.front, e.head, e.base = f, 0, hi
		return
	}
	lo := e.bmin[b] // the earliest time in src (push keeps it)
	e.base = lo
	for i := range src {
		x := src[i]
		if e.stale(&x) {
			e.free = append(e.free, uint32(x.key&slotMask))
			e.queued--
			continue
		}
		if x.at == lo {
			e.front = append(e.front, x)
			continue
		}
		c := bucketOf(x.at, lo) % nBuckets
		e.buckets[c] = append(e.buckets[c], x)
		if bit := uint64(1) << (c & 63); e.mask[c>>6]&bit == 0 || x.at < e.bmin[c] {
			e.bmin[c] = x.at
			e.mask[c>>6] |= bit
		}
	}
}

// sortEntries sorts f by (at, key) with an insertion sort: f is short (frontMax) and
// partly ordered already.
func sortEntries(f []entry) {
	for i := 1; i < len(f); i++ {
		x := f[i]
		j := i
		for j > 0 && (f[j-1].at > x.at || f[j-1].at == x.at && f[j-1].key > x.key) {
			f[j] = f[j-1]
			j--
		}
		f[j] = x
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

// compact drops every stale entry, keeping the order of the front run and of each
// bucket.
func (e *Engine) compact() {
	e.queued = 0
	e.front = e.keepLive(e.front[e.head:], e.front[:0])
	e.head = 0
	e.queued += len(e.front)
	for b := range e.buckets {
		if e.mask[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		src := e.buckets[b]
		dst := e.keepLive(src, src[:0])
		e.buckets[b] = dst
		e.queued += len(dst)
		if len(dst) == 0 {
			e.mask[b>>6] &^= 1 << (b & 63)
		}
	}
}

// keepLive appends src's live entries to dst (which may share src's array, at or
// before it) and frees the slots of the stale ones.
func (e *Engine) keepLive(src, dst []entry) []entry {
	n := len(dst)
	for i := range src {
		x := src[i]
		if e.stale(&x) {
			e.free = append(e.free, uint32(x.key&slotMask))
			continue
		}
		dst = dst[:n+1]
		dst[n] = x
		n++
	}
	return dst
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
