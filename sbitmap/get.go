package sbitmap

import (
	"math/bits"
	"sync/atomic"
)

// testHookWordFull, when non-nil, runs after a word search fails and before the
// deferred clear of that word is attempted. Tests use it to force the R08
// interleaving. It is only set by tests (export_test.go).
var testHookWordFull func()

// testHookMidFold, when non-nil, runs inside a fold of a word's cleared mask, after
// cleared was emptied and before its bits are back in the word (while the swap lock
// is held, in the fixed mode). Tests only (export_test.go).
var testHookMidFold func()

// HintUnset is a hint value that is always out of range, so the next Get replaces it
// with a pseudo-random hint (as the kernel re-randomises an alloc_hint >= depth).
const HintUnset = ^uint32(0)

// InitHint returns a starting allocation hint for one user of the bitmap (one
// goroutine, or one simulated CPU), derived deterministically from seed: a value in
// [0, depth) spread by seed, or 0 in round-robin mode. Models init_alloc_hint, which
// picks a random per-CPU value.
func (s *Sbitmap) InitHint(seed uint64) uint32 {
	if s.roundRobin {
		return 0
	}
	return uint32(mix64(seed) % uint64(s.depth.Load()))
}

// mix64 is the SplitMix64 finaliser: a cheap deterministic scrambler.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// hintBeforeGet reads the caller's hint and replaces it if it is out of range
// (update_alloc_hint_before_get). The replacement is a deterministic scramble of the
// old value, standing in for the kernel's random number.
func (s *Sbitmap) hintBeforeGet(hint *uint32, depth uint32) uint32 {
	h := *hint
	if h >= depth {
		h = 0
		if depth != 0 && !s.roundRobin {
			h = uint32(mix64(uint64(*hint)) % uint64(depth))
		}
		*hint = h
	}
	return h
}

// hintAfterGet updates the caller's hint after a search (update_alloc_hint_after_get):
// on failure the hint becomes 0; on success it moves past the allocated bit only if
// that bit was the hinted one (or in round-robin mode), wrapping to 0 at depth-1.
func (s *Sbitmap) hintAfterGet(hint *uint32, depth, h uint32, nr int) {
	switch {
	case nr < 0:
		*hint = 0
	case uint32(nr) == h || s.roundRobin:
		next := uint32(nr) + 1
		if next >= depth-1 {
			next = 0
		}
		*hint = next
	}
}

// Get allocates a free bit and returns its number, or -1 if no bit is free. hint is
// the caller's allocation hint (see InitHint); Get reads and updates it. Models
// sbitmap_get: the hint chooses the word; outside round-robin mode the search in that
// word starts at bit 0; the walk then visits every word once, wrapping. A bitmap of
// one word (Capacity() <= 2^Shift()) outside round-robin mode takes a shorter path
// with the same result.
//
// Get never allocates memory. It panics if hint is nil ("sbitmap: Get with nil
// hint"). Memory ordering: acquire (see Sbitmap).
func (s *Sbitmap) Get(hint *uint32) int {
	if hint == nil {
		panic("sbitmap: Get with nil hint")
	}
	depth := s.depth.Load()
	h := *hint
	if s.oneWord && h < depth {
		// One word (Capacity() <= 2^Shift()) outside round-robin mode: the hint
		// can only name word 0, whose depth is the bitmap's, so the first
		// __sbitmap_get_word needs no word index: take the first free bit below
		// depth (1..64) with one compare-and-swap, as the general path below
		// would; a full word is folded and taken from at once (foldTake), as that
		// path does next, and if that fails the walk runs (getSlow). A lost race
		// goes on to the general path, which reads the word again.
		w := s.word0
		v := w.word.Load()
		free := ^v & (^uint64(0) >> ((BitsPerWord - depth) & (BitsPerWord - 1)))
		nr := uint32(bits.TrailingZeros64(free)) & (BitsPerWord - 1)
		if free != 0 && w.word.CompareAndSwap(v, v|uint64(1)<<nr) {
			return s.gotHinted(hint, depth, h, nr)
		}
		if free == 0 && !s.unlocked {
			if nr, ok := s.foldTake(w, 0, depth); ok {
				return s.gotHinted(hint, depth, h, nr)
			}
			return s.getSlow(hint, depth, h)
		}
	}
	if h >= depth {
		h = s.hintBeforeGet(hint, depth)
	}
	sh := s.shift & 7 // always true; drops the compiler's shift guards
	index := h >> sh
	if mapNr := (depth + 1<<sh - 1) >> sh; !s.roundRobin && index < mapNr && index < uint32(len(s.words)) {
		// The common case of __sbitmap_get outside round-robin mode, inline: the
		// first __sbitmap_get_word on the hinted word, from bit 0, setting the
		// first free bit with one compare-and-swap against the value the search
		// read. If the word has no free bit in range or the compare-and-swap loses
		// a race, getSlow runs the full walk, which searches this word again with
		// a fresh read before folding its cleared bits (sbitmap_find_bit).
		wd := uint32(1) << sh // __map_depth
		if index == mapNr-1 {
			wd = depth - index<<sh
		}
		sw := &s.words[index]
		v := sw.word.Load()
		free := ^v & wordMask(wd)
		nr := uint32(bits.TrailingZeros64(free)) & (BitsPerWord - 1)
		if free != 0 && sw.word.CompareAndSwap(v, v|uint64(1)<<nr) {
			return s.gotHinted(hint, depth, h, nr|index<<sh)
		}
		if free == 0 && !s.unlocked {
			// The hinted word is full: fold its cleared bits and take the first
			// free one in one step (foldTake), which is what the walk would do
			// first.
			if nr, ok := s.foldTake(sw, index, wd); ok {
				return s.gotHinted(hint, depth, h, nr|index<<sh)
			}
		}
	}
	return s.getSlow(hint, depth, h)
}

// gotHinted updates the hint after Get's first search, on the hinted word, took bit
// nr (update_alloc_hint_after_get outside round-robin mode) and returns nr.
func (s *Sbitmap) gotHinted(hint *uint32, depth, h, nr uint32) int {
	if nr == h {
		next := nr + 1
		if next >= depth-1 {
			next = 0
		}
		*hint = next
	}
	return int(nr)
}

// foldTake is the first step of the walk on a full hinted word, for Get outside
// round-robin mode and the UnlockedDeferredClear model: sbitmap_deferred_clear
// followed by __sbitmap_get_word from bit 0, done as one step under the word's swap
// lock: the cleared bits are folded back into the word and its first free bit within
// wd is set, with one compare-and-swap. The bit chosen is the one the fold followed by
// a search would choose. It reports false if nothing was cleared or nothing within wd
// came free (bits folded but past the depth stay reserved, as in foldCleared); the
// caller's walk then continues as usual.
func (s *Sbitmap) foldTake(w *sbWord, index, wd uint32) (uint32, bool) {
	if testHookWordFull != nil {
		testHookWordFull()
	}
	if w.cleared.Load() == 0 && !w.swapLock.held() {
		return 0, false // checkWithoutLock: the walk re-checks the word
	}
	w.swapLock.lock()
	mask := w.cleared.Swap(0)
	if mask == 0 {
		w.swapLock.unlock()
		return 0, false
	}
	if testHookMidFold != nil {
		testHookMidFold()
	}
	if beyond := mask & s.beyondMask(index, s.depth.Load()); beyond != 0 {
		w.reserved.Or(beyond)
		mask &^= beyond
	}
	for {
		v := w.word.Load()
		folded := v &^ mask
		free := ^folded & wordMask(wd)
		if free == 0 {
			w.word.And(^mask)
			w.swapLock.unlock()
			return 0, false
		}
		nr := uint32(bits.TrailingZeros64(free)) & (BitsPerWord - 1)
		if w.word.CompareAndSwap(v, folded|uint64(1)<<nr) {
			w.swapLock.unlock()
			return nr, true
		}
	}
}

// getSlow is Get's full path: the search of getFrom and the hint update.
func (s *Sbitmap) getSlow(hint *uint32, depth, h uint32) int {
	var nr int
	if s.roundRobin {
		nr = s.getFrom(h)
	} else {
		nr = s.findBit(^uint32(0), h>>s.shift, 0, true)
	}
	s.hintAfterGet(hint, depth, h, nr)
	return nr
}

// getFrom models __sbitmap_get: split the hint into word index and in-word start.
// The first get_word on the hinted word is tried inline (the common case); on failure
// the full walk of sbitmap_find_bit runs, whose first step repeats that search
// before folding the word's cleared bits.
func (s *Sbitmap) getFrom(h uint32) int {
	index := h >> s.shift
	start := uint32(0)
	if s.roundRobin {
		start = h & (1<<s.shift - 1)
	}
	if depth := s.depth.Load(); index < s.wordsFor(depth) {
		mapNr := s.wordsFor(depth)
		wd := s.mapDepth(index, depth, mapNr)
		if nr := getWord(&s.words[index].word, wd, start, !s.roundRobin); nr >= 0 {
			return nr + int(index<<s.shift)
		}
	}
	return s.findBit(^uint32(0), index, start, !s.roundRobin)
}

// GetShallow allocates a free bit like Get but restricted to a shallow depth: by
// default only the first shallowDepth bits of each word are eligible (v4.18–~v6.16);
// with Options.ShallowWholeBitmap, shallowDepth bits of the whole bitmap, split across
// words. The in-word start always comes from the hint and the search wraps. Returns -1
// if no eligible bit is free (always, if shallowDepth <= 0). Models
// sbitmap_get_shallow. Never allocates; panics if hint is nil.
func (s *Sbitmap) GetShallow(hint *uint32, shallowDepth int) int {
	if hint == nil {
		panic("sbitmap: GetShallow with nil hint")
	}
	if shallowDepth <= 0 {
		return -1
	}
	depth := s.depth.Load()
	h := s.hintBeforeGet(hint, depth)
	index := h >> s.shift
	start := h & (1<<s.shift - 1)
	limit := uint32(min(shallowDepth, MaxDepth))
	var nr int
	if s.shallowAll {
		nr = s.findBitWhole(limit, index, start)
	} else {
		nr = s.findBit(limit, index, start, true)
	}
	s.hintAfterGet(hint, depth, h, nr)
	return nr
}

// findBit walks up to map_nr words from index, each limited to its first limit bits
// (sbitmap_find_bit). Only the first word uses the in-word start.
//
// Without a limit below a word's depth, the words from index on that are full with
// nothing to fold are passed over first by fullRun, at a few loads each; the walk goes
// on from the first other word, or returns -1 if there is none (a failed get on a full
// bitmap). findBitInWord on such a word would find no free bit, see nothing to fold,
// return -1 and change nothing (sbitmap_find_bit_in_word, sbitmap_deferred_clear), so
// every result is the same. The test hook that runs inside findBitInWord's full-word
// step turns the shortcut off.
func (s *Sbitmap) findBit(limit, index, start uint32, wrap bool) int {
	depth := s.depth.Load()
	mapNr := s.wordsFor(depth)
	if index >= mapNr {
		index = 0
	}
	n := mapNr
	if testHookWordFull == nil && limit >= 1<<s.shift && (wrap || start == 0) {
		k := s.fullRun(index, depth, mapNr)
		if k == mapNr {
			return -1
		}
		if k > 0 {
			if index += k; index >= mapNr {
				index -= mapNr
			}
			start, n = 0, mapNr-k
		}
	}
	for range n {
		wd := min(s.mapDepth(index, depth, mapNr), limit)
		if nr := s.findBitInWord(&s.words[index], wd, start, wrap); nr >= 0 {
			return nr + int(index<<s.shift)
		}
		start = 0
		if index++; index >= mapNr {
			index = 0
		}
	}
	return -1
}

// fullRun returns how many consecutive words from index (wrapping, at most mapNr) are
// full with nothing to fold: no deferred-cleared bit, no fold in progress and every bit
// below the word's depth set, read in the order of checkWithoutLock (cleared, the lock,
// then the word). A word in that state makes findBitInWord return -1 without a change,
// whatever its start when the search wraps or starts at 0. It returns 0 if mapNr
// exceeds the words allocated (never, outside a bug: findBit would index past them).
func (s *Sbitmap) fullRun(index, depth, mapNr uint32) uint32 {
	if mapNr == 0 || mapNr > uint32(len(s.words)) || index >= mapNr {
		return 0
	}
	sh := s.shift & 7 // always true; drops the compiler's shift guards
	words := s.words[:mapNr]
	whole := wordMask(1 << sh)                  // __map_depth of a word before the last
	lastMask := wordMask(depth - (mapNr-1)<<sh) // and of the last
	i := index
	for k := range mapNr {
		w := &words[i]
		m := whole
		if i == mapNr-1 {
			m = lastMask
		}
		if w.cleared.Load() != 0 || w.swapLock.held() || w.word.Load()&m != m {
			return k
		}
		if i++; i == mapNr {
			i = 0
		}
	}
	return mapNr
}

// findBitWhole is findBit with a whole-bitmap shallow depth (the 2025 semantics).
func (s *Sbitmap) findBitWhole(shallow, index, start uint32) int {
	depth := s.depth.Load()
	mapNr := s.wordsFor(depth)
	if index >= mapNr {
		index = 0
	}
	for range mapNr {
		wd := s.shallowWordDepth(index, depth, mapNr, shallow)
		if nr := s.findBitInWord(&s.words[index], wd, start, true); nr >= 0 {
			return nr + int(index<<s.shift)
		}
		start = 0
		if index++; index >= mapNr {
			index = 0
		}
	}
	return -1
}

// shallowWordDepth splits a whole-bitmap shallow depth across words: each word gets
// floor(wordDepth × shallow / depth) bits, and the remainder goes one bit each to the
// leading words. (Own formulation of the 2025 __map_depth_with_shallow; the sum over
// words equals min(shallow, depth).)
func (s *Sbitmap) shallowWordDepth(index, depth, mapNr, shallow uint32) uint32 {
	wd := s.mapDepth(index, depth, mapNr)
	if shallow >= depth {
		return wd
	}
	sh, d := uint64(shallow), uint64(depth)
	base := uint32(uint64(wd) * sh / d)
	// The floors fall short of shallow by r bits; give one each to the leading words.
	full := uint64(1) << s.shift
	last := uint64(s.mapDepth(mapNr-1, depth, mapNr))
	r := sh - (uint64(mapNr-1)*(full*sh/d) + last*sh/d)
	if uint64(index) < r && base < wd {
		base++
	}
	return base
}

// findBitInWord searches one word, folding its deferred-cleared bits and retrying as
// long as that makes progress (sbitmap_find_bit_in_word).
//
// Two shortcuts keep a search of full words cheap, without changing any result:
// getWord is skipped when one load shows no free bit in the searched range (getWord
// would find none), and deferredClear's check without the lock is done inline.
func (s *Sbitmap) findBitInWord(w *sbWord, depth, start uint32, wrap bool) int {
	for {
		if wordHasFree(w, depth, start, wrap) {
			if nr := getWord(&w.word, depth, start, wrap); nr >= 0 {
				return nr
			}
		}
		if testHookWordFull != nil {
			testHookWordFull()
		}
		if !s.unlocked && w.cleared.Load() == 0 && !w.swapLock.held() {
			if !wordHasFree(w, depth, start, wrap) { // deferredClear's checkWithoutLock
				return -1
			}
			continue
		}
		if !s.deferredClear(w, depth, start, wrap) {
			return -1
		}
	}
}

// getWord finds and atomically sets a zero bit among the low depth bits of word,
// starting at bit start (__sbitmap_get_word). With wrap (and start > 0) it retries
// from bit 0. When another allocator wins a bit, the search resumes just after it;
// a resume point at or past depth-1 restarts at 0.
func getWord(word *atomic.Uint64, depth, start uint32, wrap bool) int {
	if depth == 0 {
		return -1
	}
	mask := wordMask(depth)
	for {
		free := ^word.Load() & mask &^ wordMask(start)
		if free == 0 {
			if start != 0 && wrap {
				start = 0
				continue
			}
			return -1
		}
		nr := uint32(bits.TrailingZeros64(free))
		if testAndSet(word, uint64(1)<<nr) {
			return int(nr)
		}
		start = nr + 1
		if start >= depth-1 {
			start = 0
		}
	}
}

// testAndSet atomically sets bit in word and reports whether it was clear before
// (test_and_set_bit_lock), with a compare-and-swap loop that retries only while the
// bit stays clear.
func testAndSet(word *atomic.Uint64, bit uint64) bool {
	for {
		v := word.Load()
		if v&bit != 0 {
			return false
		}
		if word.CompareAndSwap(v, v|bit) {
			return true
		}
	}
}

// deferredClear folds a word's cleared mask back into the word
// (sbitmap_deferred_clear). It reports whether searching the word again can succeed:
// true if bits were folded, or (fixed behaviour, 72d04bdcf3f7) if the word itself
// still shows a free bit in the searched range. The check and the fold are atomic
// with respect to each other under the word's swap lock. With
// Options.UnlockedDeferredClear the pre-fix behaviour is modelled: no lock and no
// re-check.
//
// The check when nothing is cleared is done without taking the lock when the lock is
// free, with the same result: see checkWithoutLock.
func (s *Sbitmap) deferredClear(w *sbWord, depth, start uint32, wrap bool) bool {
	if s.unlocked {
		if w.cleared.Load() == 0 {
			return false
		}
		s.foldCleared(w)
		return true
	}
	if w.cleared.Load() == 0 && !w.swapLock.held() {
		return wordHasFree(w, depth, start, wrap)
	}
	w.swapLock.lock()
	defer w.swapLock.unlock()
	if w.cleared.Load() == 0 {
		return wordHasFree(w, depth, start, wrap)
	}
	s.foldCleared(w)
	return true
}

// foldCleared moves w's cleared bits back into the word: empty cleared, then clear
// those bits in the word (the xchg and andnot of sbitmap_deferred_clear). Bits at or
// past the current depth (held across a shrinking Resize and freed since) are not
// freed but moved to the reserved mask, so that a Get still working from the older,
// larger depth cannot take them; they become free when a Resize brings the depth
// back over them. The caller holds w's swap lock (except in the
// UnlockedDeferredClear model), so the depth cannot change meanwhile.
func (s *Sbitmap) foldCleared(w *sbWord) {
	mask := w.cleared.Swap(0)
	if testHookMidFold != nil {
		testHookMidFold()
	}
	if beyond := mask & s.beyondMask(s.index(w), s.depth.Load()); beyond != 0 {
		w.reserved.Or(beyond)
		mask &^= beyond
	}
	w.word.And(^mask)
}

// full reports whether a Get would fail now, without searching or touching a hint:
// every word in use had no free bit within its depth, nothing deferred-cleared and no
// fold in progress when it was read (each word read in the order of
// checkWithoutLock: cleared, the lock, then the word). A false result only means that
// a Get may succeed.
func (s *Sbitmap) full() bool {
	depth := s.depth.Load()
	mapNr := s.wordsFor(depth)
	for i := range min(mapNr, uint32(len(s.words))) {
		w := &s.words[i]
		if w.cleared.Load() != 0 || w.swapLock.held() ||
			wordHasFree(w, s.mapDepth(i, depth, mapNr), 0, true) {
			return false
		}
	}
	return true
}

// wordHasFree reports whether w.word has a free bit in the searched range: the low
// depth bits, from bit start unless the search wraps (the fixed sbitmap_deferred_clear's
// re-check, which excludes the bits below a non-wrapping search's start so that the
// caller cannot loop forever).
//
// checkWithoutLock: deferredClear skips the lock when it loads cleared == 0 and then
// the lock free; the word is loaded after both. Every bit freed before the load of
// cleared is then either in the loaded word or would have sent us to the lock: it was
// still in cleared (cleared != 0), or a fold emptied cleared before that load, having
// taken the lock before; that fold then either still held the lock when we loaded it
// (we take the lock) or had finished, its bits back in the word before we load the
// word. Bits freed after the load of cleared are no different from bits freed just
// after a locked check. So a half-done fold (cleared emptied, word not yet updated,
// the window of case R08) is never taken for a full word.
func wordHasFree(w *sbWord, depth, start uint32, wrap bool) bool {
	if depth == 0 {
		return false
	}
	mask := wordMask(depth)
	if !wrap && start != 0 {
		mask &^= wordMask(start)
	}
	return w.word.Load()&mask != mask
}
