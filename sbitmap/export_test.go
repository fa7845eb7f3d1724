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

// Cleared returns the deferred-cleared mask of word i.
func (s *Sbitmap) Cleared(i int) uint64 { return s.words[i].cleared.Load() }

// Word returns the allocation mask of word i.
func (s *Sbitmap) Word(i int) uint64 { return s.words[i].word.Load() }

// WordSize is the size of one padded word in bytes.
const WordSize = unsafe.Sizeof(sbWord{})
