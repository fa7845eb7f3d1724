package sbitmap

import "fmt"

// wordOf returns the word holding bit and the bit's mask in it, panicking if bit is
// outside [0, Capacity()).
func (s *Sbitmap) wordOf(op string, bit int) (*sbWord, uint64) {
	if bit < 0 || bit >= int(s.capacity) {
		panic(fmt.Sprintf("sbitmap: %s of bit %d out of range [0, %d) (depth %d)",
			op, bit, s.capacity, s.depth.Load()))
	}
	return &s.words[uint32(bit)>>s.shift], uint64(1) << (uint32(bit) & (1<<s.shift - 1))
}

// tryDeferredClearBit marks bit free in its word's cleared mask without touching the
// word itself (sbitmap_deferred_clear_bit): one atomic OR. It reports false, doing
// nothing, if bit is out of range or not held; callers then panic through panicFree.
// It ignores Options.DirectClear: callers that may see such a bitmap call tryFree.
// The check is exact for a single goroutine; two goroutines freeing the same bit at
// the same instant may escape it. Small enough to be inlined into Put and Clear.
func (s *Sbitmap) tryDeferredClearBit(bit int) bool {
	if uint(bit) >= uint(s.capacity) {
		return false
	}
	w := &s.words[uint32(bit)>>(s.shift&7)] // the masks drop the shift guards
	m := uint64(1) << (uint32(bit) & s.bitMask & 63)
	if w.word.Load()&^(w.cleared.Load()|w.reserved.Load())&m == 0 { // not held
		return false
	}
	w.cleared.Or(m)
	return true
}

// tryDirectClearBit is tryDeferredClearBit for Options.DirectClear: it clears bit in
// its word at once, with one atomic AND (there are no cleared bits, and no reserved
// ones, since such a bitmap refuses Resize). The held check is the same load-then-act
// check as tryDeferredClearBit's.
func (s *Sbitmap) tryDirectClearBit(bit int) bool {
	if uint(bit) >= uint(s.capacity) {
		return false
	}
	w := &s.words[uint32(bit)>>(s.shift&7)]
	m := uint64(1) << (uint32(bit) & s.bitMask & 63)
	if w.word.Load()&m == 0 { // not held
		return false
	}
	w.word.And(^m)
	return true
}

// tryFree frees bit the way the bitmap was built to (tryDirectClearBit with
// Options.DirectClear, else tryDeferredClearBit).
func (s *Sbitmap) tryFree(bit int) bool {
	if s.direct {
		return s.tryDirectClearBit(bit)
	}
	return s.tryDeferredClearBit(bit)
}

// held reports whether bit is in range and held: set in its word, neither
// deferred-cleared nor reserved. Exact for a single goroutine, like
// tryDeferredClearBit's check.
func (s *Sbitmap) held(bit int) bool {
	if uint(bit) >= uint(s.capacity) {
		return false
	}
	w := &s.words[uint32(bit)>>s.shift]
	m := uint64(1) << (uint32(bit) & (1<<s.shift - 1))
	return w.word.Load()&m != 0 && (w.cleared.Load()|w.reserved.Load())&m == 0
}

// panicFree panics for a free (op) of a bit that is out of range or not held.
func (s *Sbitmap) panicFree(op string, bit int) {
	w, m := s.wordOf(op, bit) // panics if out of range
	if w.word.Load()&m == 0 || w.reserved.Load()&m != 0 {
		panic(fmt.Sprintf("sbitmap: %s of bit %d which is not held (depth %d)", op, bit, s.depth.Load()))
	}
	panic(fmt.Sprintf("sbitmap: %s of bit %d which is already freed (depth %d)", op, bit, s.depth.Load()))
}

// updateHint records a freed bit as the caller's next hint (sbitmap_update_cpu_hint):
// only outside round-robin mode and only if the bit is below the current depth.
// A nil hint is ignored.
func (s *Sbitmap) updateHint(hint *uint32, bit int) {
	if hint != nil && !s.roundRobin && uint32(bit) < s.depth.Load() {
		*hint = uint32(bit)
	}
}

// Put frees bit, which the caller holds, and sets *hint to bit (outside round-robin
// mode, if bit < Depth()). Pass the hint of the user that allocated the bit, as the
// kernel passes the allocating CPU; hint may be nil. The bit is recorded in the word's
// cleared mask and becomes visible to searchers when that word is next found full
// (the deferred clear); Weight, AnySet and ForEachSet see it free at once. With
// Options.DirectClear it is cleared in the word at once instead. Models
// sbitmap_put.
//
// Put panics if bit is outside [0, Capacity()) or is not held (never allocated, or
// already freed). Never allocates. Memory ordering: release (see Sbitmap).
func (s *Sbitmap) Put(bit int, hint *uint32) {
	if s.direct {
		if !s.tryDirectClearBit(bit) {
			s.panicFree("Put", bit)
		}
		s.updateHint(hint, bit)
		return
	}
	if !s.tryDeferredClearBit(bit) {
		s.panicFree("Put", bit)
	}
	s.updateHint(hint, bit)
}

// ClearBatch frees several held bits at once by clearing them directly in their words
// (not deferred), one atomic operation per run of bits in the same word. Models the
// bitmap part of sbitmap_queue_clear_batch. It panics, before clearing anything, if a
// bit is out of range; and panics if a bit was not held (bits already cleared by then
// stay cleared). Never allocates.
func (s *Sbitmap) ClearBatch(bits []int) {
	for _, b := range bits {
		s.wordOf("ClearBatch", b)
	}
	var cur *sbWord
	var mask uint64
	for _, b := range bits {
		w, m := s.wordOf("ClearBatch", b)
		if w != cur && cur != nil {
			s.clearWordBits(cur, mask)
			mask = 0
		}
		cur = w
		if mask&m != 0 {
			panic(fmt.Sprintf("sbitmap: ClearBatch of bit %d twice (depth %d)", b, s.depth.Load()))
		}
		mask |= m
	}
	if cur != nil {
		s.clearWordBits(cur, mask)
	}
}

// clearWordBits clears mask from w.word, panicking if any of those bits was not held.
// It runs under w's swap lock, so that the depth cannot change meanwhile: bits at or
// past the depth are moved to the reserved mask instead of being freed (see Resize).
// The cleared and reserved masks are checked first: once the word bits are cleared,
// another user may allocate and free them at once.
func (s *Sbitmap) clearWordBits(w *sbWord, mask uint64) {
	w.swapLock.lock()
	if bad := mask & w.cleared.Load(); bad != 0 {
		w.swapLock.unlock()
		panic(fmt.Sprintf("sbitmap: ClearBatch of a bit which is already freed (word %d, mask %#x, depth %d)",
			s.wordIndex(w), bad, s.depth.Load()))
	}
	if bad := mask & w.reserved.Load(); bad != 0 {
		w.swapLock.unlock()
		panic(fmt.Sprintf("sbitmap: ClearBatch of a bit which is not held (word %d, mask %#x, depth %d)",
			s.wordIndex(w), bad, s.depth.Load()))
	}
	beyond := mask & s.beyondMask(s.index(w), s.depth.Load())
	old := w.word.And(^(mask &^ beyond))
	if beyond != 0 {
		w.reserved.Or(beyond & old)
	}
	w.swapLock.unlock()
	if bad := mask &^ old; bad != 0 {
		panic(fmt.Sprintf("sbitmap: ClearBatch of a bit which is not held (word %d, mask %#x, depth %d)",
			s.wordIndex(w), bad, s.depth.Load()))
	}
}

func (s *Sbitmap) wordIndex(w *sbWord) int {
	for i := range s.words {
		if &s.words[i] == w {
			return i
		}
	}
	return -1
}
