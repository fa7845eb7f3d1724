package sbitmap

import "unsafe"

// SetTestHookWordFull installs fn to run after a word search fails and before the
// word's deferred clear; it returns a function restoring the previous hook. Not safe
// to call while other goroutines use any Sbitmap.
func SetTestHookWordFull(fn func()) (restore func()) {
	old := testHookWordFull
	testHookWordFull = fn
	return func() { testHookWordFull = old }
}

// SetTestHookMidFold installs fn to run inside a fold of a cleared mask, after cleared
// was emptied and before the bits are back in the word; and spin to run when a swap
// lock is found held. It returns a function restoring the previous hooks. Not safe to
// call while other goroutines use any Sbitmap.
func SetTestHookMidFold(fn, spin func()) (restore func()) {
	oldFold, oldSpin := testHookMidFold, testHookSpin
	testHookMidFold, testHookSpin = fn, spin
	return func() { testHookMidFold, testHookSpin = oldFold, oldSpin }
}

// Cleared returns the deferred-cleared mask of word i.
func (s *Sbitmap) Cleared(i int) uint64 { return s.words[i].cleared.Load() }

// Word returns the allocation mask of word i.
func (s *Sbitmap) Word(i int) uint64 { return s.words[i].word.Load() }

// WordSize is the size of one padded word in bytes.
const WordSize = unsafe.Sizeof(sbWord{})

// DisableOneWordFastPath makes Get of a one-word bitmap take the general path, so that
// tests can compare the two. Call it before s is shared.
func (s *Sbitmap) DisableOneWordFastPath() { s.oneWord = false }

// OneWordFastPath reports whether Get of s takes the one-word fast path.
func (s *Sbitmap) OneWordFastPath() bool { return s.oneWord }
