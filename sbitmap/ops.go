package sbitmap

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
)

// GetBatch allocates up to n contiguous bits (1 <= n <= 64) in one word and returns
// the first bit's number and a mask of the bits obtained relative to it (bit i of mask
// set = bit offset+i is now held by the caller). It returns (0, 0) if nothing was
// obtained, if n is out of range, or in round-robin mode. Models
// __sbitmap_queue_get_batch: from the hinted word, each word has its cleared bits
// folded, and the first zero bit nr is taken as the start if nr+n fits the word; the
// bits are set with one compare-and-swap and only those newly obtained are returned
// (possibly fewer than n). The hint then moves as if bit offset+n-1 had been allocated.
// Never allocates; panics if hint is nil. Memory ordering: acquire.
func (s *Sbitmap) GetBatch(hint *uint32, n int) (offset int, mask uint64) {
	if hint == nil {
		panic("sbitmap: GetBatch with nil hint")
	}
	if s.roundRobin || n < 1 || n > BitsPerWord {
		return 0, 0
	}
	depth := s.depth.Load()
	mapNr := s.wordsFor(depth)
	h := s.hintBeforeGet(hint, depth)
	index := h >> s.shift
	if index >= mapNr {
		index = 0
	}
	for range mapNr {
		w := &s.words[index]
		wd := s.mapDepth(index, depth, mapNr)
		s.foldWord(w)
		if got := takeRun(w, wd, uint32(n)); got.mask != 0 {
			offset = int(got.nr + index<<s.shift)
			s.hintAfterGet(hint, depth, h, offset+n-1)
			return offset, got.mask
		}
		if index++; index >= mapNr {
			index = 0
		}
	}
	return 0, 0
}

type run struct {
	nr   uint32
	mask uint64
}

// takeRun claims bits [nr, nr+n) of w where nr is the word's first zero bit, if the
// run fits in wd bits; it returns the newly obtained bits shifted down to nr.
func takeRun(w *sbWord, wd, n uint32) run {
	val := w.word.Load()
	free := ^val & wordMask(wd)
	if free == 0 {
		return run{}
	}
	nr := uint32(bits.TrailingZeros64(free))
	if nr+n > wd {
		return run{}
	}
	get := wordMask(n) << nr
	for !w.word.CompareAndSwap(val, val|get) {
		val = w.word.Load()
	}
	return run{nr: nr, mask: (get &^ val) >> nr}
}

// foldWord folds w's cleared bits into its word unconditionally (the batch path's
// sbitmap_deferred_clear call, which has no range to re-check).
func (s *Sbitmap) foldWord(w *sbWord) {
	if w.cleared.Load() == 0 {
		return
	}
	if s.unlocked {
		s.foldCleared(w)
		return
	}
	w.swapLock.lock()
	s.foldCleared(w)
	w.swapLock.unlock()
}

// Resize changes the depth to depth bits without reallocating or changing the shift
// (sbitmap_resize, which folds every word's cleared mask and then sets depth and
// map_nr). Errors: depth outside [1, Capacity()]; a bitmap built with
// Options.DirectClear.
//
// In the kernel the queue is frozen around a resize, so no allocation runs
// concurrently. Here Resize may run concurrently with every other method, with this
// contract:
//
//   - Resize is linearizable: it takes effect at one instant during the call, the
//     store of the new depth. Concurrent Resizes are serialised.
//   - Every bit a Get, GetShallow, GetBatch or GetWait returns was free and below the
//     depth in effect at the instant it was taken, even if that Get had read an older
//     depth before a Resize ran: a shrinking Resize first reserves (sets, under every
//     word's swap lock) each free bit at or past the new depth, and a growing one
//     frees the bits it adds only after the new depth is stored.
//   - Bits held at or past the new depth stay held by their owners. Put, Clear and
//     ClearBatch of them work as for any held bit; a freed one is kept reserved, not
//     made allocatable, until a Resize brings the depth back over it.
//   - Weight counts held bits below the depth only; see Weight, AnySet and
//     ForEachSet for what they observe during a Resize.
//
// With Options.UnlockedDeferredClear (a model of a kernel bug, in which the fold
// takes no lock) the guarantees above do not hold for Gets concurrent with Resize.
// Memory ordering: sequentially consistent.
func (s *Sbitmap) Resize(depth int) error {
	if depth < 1 || depth > int(s.capacity) {
		return fmt.Errorf("sbitmap: resize depth %d out of range [1, %d]", depth, s.capacity)
	}
	if s.direct {
		return errors.New("sbitmap: Resize of a bitmap built with Options.DirectClear (not supported)")
	}
	s.resizeMu.Lock()
	defer s.resizeMu.Unlock()
	d := uint32(depth)
	for i := range s.words {
		w := &s.words[i]
		w.swapLock.lock()
	}
	// Bits to free: the cleared bits and earlier reservations below the new depth.
	// They are freed only after the new depth is stored, so that no Get working
	// from an older, smaller depth takes one.
	for i := range s.words {
		w := &s.words[i]
		beyond := s.beyondMask(uint32(i), d)
		back := w.cleared.Swap(0) | w.reserved.Load()
		// Every bit past the new depth that is free in the word is reserved
		// before the depth is stored; held ones stay held.
		taken := w.word.Or(beyond)
		w.reserved.Store(back&beyond | beyond&^taken)
		w.pending = back &^ beyond
	}
	s.depth.Store(d)
	for i := range s.words {
		w := &s.words[i]
		if w.pending != 0 {
			w.word.And(^w.pending)
			w.pending = 0
		}
		w.swapLock.unlock()
	}
	return nil
}

// Weight returns the number of bits held below the current depth: for every word in
// use, its set bits minus its deferred-cleared bits, each counted within the word's
// depth (sbitmap_weight). Bits still held at or past the depth after a shrinking
// Resize are not counted.
//
// Each word is counted from a consistent snapshot of that word (its bits, its
// deferred-cleared bits and the depth, as of one instant, retried if a fold or a
// Resize overlapped the reads), so for a one-word bitmap Weight is linearizable. For
// several words the words are read at different instants: the sum is exact when the
// bitmap is quiescent, and under concurrent use it need not match any single instant.
// Never allocates.
func (s *Sbitmap) Weight() int {
	n := 0
	for i := uint32(0); i < uint32(len(s.words)); i++ {
		c, inUse := s.wordWeight(i)
		if !inUse {
			break
		}
		n += c
	}
	return n
}

// wordWeight returns the number of bits held below the depth in word i, and whether
// word i is in use, from one consistent snapshot: the word's swap lock was free and
// not taken meanwhile (its lock word counts acquisitions; folds, Resize and ClearBatch
// run under it), and cleared did not grow between the reads. Since cleared only grows
// outside the lock, it then held the same value at the instant word was loaded.
func (s *Sbitmap) wordWeight(i uint32) (int, bool) {
	w := &s.words[i]
	for try := 0; ; try++ {
		seq := w.swapLock.v.Load()
		if seq&1 == 0 {
			depth := s.depth.Load()
			c1 := w.cleared.Load()
			v := w.word.Load()
			c2 := w.cleared.Load()
			if c1 == c2 && w.swapLock.v.Load() == seq {
				mapNr := s.wordsFor(depth)
				if i >= mapNr {
					return 0, false
				}
				m := wordMask(s.mapDepth(i, depth, mapNr))
				return bits.OnesCount64(v&m) - bits.OnesCount64(c1&m), true
			}
		}
		if try >= spinTries {
			runtime.Gosched()
		}
	}
}

// AnySet reports whether any bit is held in the words in use, ignoring
// deferred-cleared bits (sbitmap_any_bit_set). Unlike Weight it does not mask the
// last word to the depth, as in the kernel: a bit held past the depth in the last
// word counts. Memory ordering: relaxed snapshot, word by word.
func (s *Sbitmap) AnySet() bool {
	for i := range s.wordsFor(s.depth.Load()) {
		w := &s.words[i]
		if w.word.Load()&^w.cleared.Load()&^w.reserved.Load() != 0 {
			return true
		}
	}
	return false
}

// ForEachSet calls fn for each held (set and not deferred-cleared) bit, beginning at
// bit start and wrapping once through all words in use, in increasing order from
// start; it stops early when fn returns false. A start outside [0, Depth()) means 0.
// Models __sbitmap_for_each_set. fn may call any method of s; bits changed during the
// walk may or may not be visited. Memory ordering: each word is read atomically; a
// visited bit's holder wrote before it was allocated, not necessarily since.
func (s *Sbitmap) ForEachSet(start int, fn func(bit int) bool) {
	depth := s.depth.Load()
	mapNr := s.wordsFor(depth)
	if start < 0 || start >= int(depth) {
		start = 0
	}
	index := uint32(start) >> s.shift
	nr := uint32(start) & (1<<s.shift - 1)
	for scanned := uint32(0); scanned < depth; {
		wd := s.mapDepth(index, depth, mapNr)
		depthLeft := min(wd-nr, depth-scanned)
		w := &s.words[index]
		held := (w.word.Load() &^ w.cleared.Load() &^ w.reserved.Load()) & wordMask(nr+depthLeft) &^ wordMask(nr)
		for held != 0 {
			b := uint32(bits.TrailingZeros64(held))
			held &= held - 1
			if !fn(int(b + index<<s.shift)) {
				return
			}
		}
		scanned += depthLeft
		nr = 0
		if index++; index >= mapNr {
			index = 0
		}
	}
}
