package sbitmap

import (
	"fmt"
	"math/bits"
)

// GetBatch allocates up to n contiguous bits (1 <= n <= 64) in one word and returns
// the first bit's number and a mask of the bits obtained relative to it (bit i of mask
// set = bit offset+i is now held by the caller). It returns (0, 0) if nothing was
// obtained, if n is out of range, or in round-robin mode. Models
// __sbitmap_queue_get_batch: from the hinted word, each word has its cleared bits
// folded, and the first zero bit nr is taken as the start if nr+n fits the word; the
// bits are set with one compare-and-swap and only those newly obtained are returned
// (possibly fewer than n). The hint then moves as if bit offset+n-1 had been allocated.
// Never allocates, never panics. Memory ordering: acquire.
func (s *Sbitmap) GetBatch(hint *uint32, n int) (offset int, mask uint64) {
	if s.roundRobin || n < 1 || n > BitsPerWord {
		return 0, 0
	}
	depth, mapNr := s.depth.Load(), s.mapNr.Load()
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
		foldCleared(w)
		return
	}
	w.swapLock.lock()
	foldCleared(w)
	w.swapLock.unlock()
}

// Resize changes the depth to depth bits without reallocating or changing the shift
// (sbitmap_resize): every word's cleared mask is folded first, then the depth and word
// count are set. Bits held at or beyond the new depth stay held and may still be freed
// with Put. Errors: depth outside [1, Capacity()]. Memory ordering: sequentially
// consistent; concurrent Gets see either the old or the new depth.
func (s *Sbitmap) Resize(depth int) error {
	if depth < 1 || depth > int(s.capacity) {
		return fmt.Errorf("sbitmap: resize depth %d out of range [1, %d]", depth, s.capacity)
	}
	s.foldAll()
	s.depth.Store(uint32(depth))
	s.mapNr.Store(s.wordsFor(uint32(depth)))
	return nil
}

// Weight returns the number of bits held below the current depth: for every word in
// use, its set bits minus its deferred-cleared bits, each counted within the word's
// depth (sbitmap_weight). Bits still held beyond the depth after a shrinking Resize
// are not counted. Memory ordering: relaxed snapshot; under concurrent use the result
// may be stale and need not match any single instant.
func (s *Sbitmap) Weight() int {
	depth, mapNr := s.depth.Load(), s.mapNr.Load()
	n := 0
	for i := range mapNr {
		w := &s.words[i]
		m := wordMask(s.mapDepth(i, depth, mapNr))
		n += bits.OnesCount64(w.word.Load()&m) - bits.OnesCount64(w.cleared.Load()&m)
	}
	return n
}

// AnySet reports whether any bit is held in the words in use, ignoring
// deferred-cleared bits (sbitmap_any_bit_set). Unlike Weight it does not mask the
// last word to the depth, as in the kernel. Memory ordering: relaxed snapshot.
func (s *Sbitmap) AnySet() bool {
	for i := range s.mapNr.Load() {
		w := &s.words[i]
		if w.word.Load()&^w.cleared.Load() != 0 {
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
	depth, mapNr := s.depth.Load(), s.mapNr.Load()
	if start < 0 || start >= int(depth) {
		start = 0
	}
	index := uint32(start) >> s.shift
	nr := uint32(start) & (1<<s.shift - 1)
	for scanned := uint32(0); scanned < depth; {
		wd := s.mapDepth(index, depth, mapNr)
		depthLeft := min(wd-nr, depth-scanned)
		w := &s.words[index]
		held := (w.word.Load() &^ w.cleared.Load()) & wordMask(nr+depthLeft) &^ wordMask(nr)
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
