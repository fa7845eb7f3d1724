package sbitmap

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// BitsPerWord is the number of bits in one bitmap word (the kernel's BITS_PER_LONG on
// a 64-bit machine).
const BitsPerWord = 64

// MaxShift is the largest word shift: log2(BitsPerWord).
const MaxShift = 6

// MaxDepth is the largest depth (in bits) accepted by New and NewQueue. The kernel has
// no such limit; it exists so that a bad argument fails with an error rather than a
// huge allocation. Memory use is 128 bytes (two cache lines) per word.
const MaxDepth = 1 << 24

// ShiftZero requests one-bit words (a literal shift of 0) in Options.Shift, whose zero
// value selects the kernel's default rule.
const ShiftZero = -1

// Options configures an Sbitmap: the settings a Go program chooses. The zero value
// is a bitmap of 64-bit words in the default (hinted, not round-robin) order, with the
// current kernel's behaviour. The switches that reproduce the behaviour of older
// kernels, including their bugs, are in Kernel, which Go programs leave zero.
//
// Models the arguments of sbitmap_init_node (lib/sbitmap.c): shift and round_robin.
type Options struct {
	// Shift is log2 of the bits per word: 1..6, or ShiftZero for one bit per word.
	// 0 selects the default: 64-bit words (shift 6), so a depth up to 64 is one
	// word; with Kernel.CalculateShift, the kernel's rule instead (ShiftOf(depth),
	// which aims for at least four words). Allowed range: [-1, 6].
	Shift int

	// RoundRobin forces strictly increasing allocation order (the kernel's
	// round_robin / BLK_MQ_F_TAG_RR): the in-word part of the hint is used as the
	// search start, and the search does not wrap inside a word.
	RoundRobin bool

	// DirectClear makes Put and Clear free a bit in its word at once, with one
	// atomic AND, instead of recording it in the word's cleared mask for a later
	// fold (the deferred clear of sbitmap_deferred_clear_bit and
	// sbitmap_deferred_clear). Not in the kernel: a Go-program option. A freed bit
	// can then be taken by the next Get, and no Get ever folds a word, so a
	// one-word bitmap's uncontended get+put is one compare-and-swap and one AND
	// whatever the depth (without it, a word of d bits is folded, under its swap
	// lock, once every d pairs). The cost is that every free writes the word's
	// line, which Gets read and write, rather than the cleared line. Measured
	// (BENCHMARKS.md, round 10): it pays at small depths (about 26 % less CPU per
	// uncontended pair at depth 4, 7 % at depth 8) and costs more at depth 64 to
	// 1024 (8-15 %), where folds are rare. The allocation order differs from
	// the kernel's (a freed bit is reused at once); the simulator never sets it.
	// Resize is refused with an error on a bitmap built with DirectClear (its
	// contract for bits freed concurrently with a shrink rests on the deferred
	// clear).
	DirectClear bool

	// Kernel holds the kernel-history switches; the zero value is the current
	// kernel. See KernelSwitches.
	Kernel KernelSwitches
}

// KernelSwitches select the behaviour of a particular kernel release where lib/sbitmap.c
// changed, so that the simulator can reproduce a kernel as it was, including bugs since
// fixed. Each switch is named after, and documents, the kernel commit it models. The
// zero value is the current (fixed) behaviour; a Go program using the allocator has no
// reason to set any of them. The wake-up switches (WakeScheme, WakeOneQueuePerBatch,
// KeepWaitCntOnResize, RecalcEra) apply to a Queue only and are ignored by New.
type KernelSwitches struct {
	// CalculateShift makes Options.Shift 0 select the kernel's shift rule
	// (sbitmap_calculate_shift, see ShiftOf) rather than 64-bit words, as
	// sbitmap_init_node(..., shift = -1, ...) does for blk-mq's tag bitmaps.
	CalculateShift bool

	// ShallowWholeBitmap makes GetShallow's shallowDepth a limit over the whole
	// bitmap (the 2025 Yu Kuai series "convert shallow_depth from one word to the
	// whole sbitmap"), split across words in proportion to their depth. When false
	// (the default, v4.18 to ~v6.16) shallowDepth limits each word. The exact
	// per-word split of the 2025 text was not verified; see shallowWordDepth.
	ShallowWholeBitmap bool

	// UnlockedDeferredClear models the deferred clear between commit 661d4f55a794
	// ("sbitmap: remove swap_lock") and its fix 72d04bdcf3f7 ("sbitmap: fix io hung
	// due to race on sbitmap_word::cleared", 2024): the fold of the cleared mask is
	// not atomic with respect to another searcher's check, and a searcher that finds
	// cleared empty gives up on the word without re-checking it (case R08, bad).
	// Default false: the fixed behaviour. Resize's concurrency contract does not
	// hold in this mode.
	UnlockedDeferredClear bool

	// WakeScheme selects the wake-up scheme of a Queue by era; default WakeGlobal
	// (v6.2+, 4f8126bb2308 "sbitmap: Use single per-bitmap counting to wake up
	// queued tags"); WakeCountdown is the v4.10–v6.1 per-queue wait_cnt.
	WakeScheme WakeScheme

	// WakeOneQueuePerBatch models WakeGlobal before 106397376c03 ("sbitmap: fix
	// batching wakeup", v6.5-rc3): a batch stops after the first wait queue where
	// anyone was woken, so with one sleeper per queue a batch of wake_batch frees
	// wakes a single waiter (case R06, bad). Default false.
	WakeOneQueuePerBatch bool

	// KeepWaitCntOnResize models WakeCountdown before 6c0ca7ae292a ("sbitmap: fix
	// wakeup hang after sbq resize", v4.10): changing wake_batch leaves every wait
	// queue's countdown at its old value (case R01, bad). Default false: every
	// countdown is reset to 1 when wake_batch changes.
	KeepWaitCntOnResize bool

	// RecalcEra selects the formula of RecalculateWakeBatch by era
	// (180dccb0dba4 as merged in v5.17-rc1, its fix 10825410b956, and the v6.2
	// text); default Recalc6_2.
	RecalcEra RecalcEra
}

// cacheLine is the cache-line size in bytes (the size of cpu.CacheLinePad).
const cacheLine = unsafe.Sizeof(cpu.CacheLinePad{})

// sbWord is one word of the bitmap (struct sbitmap_word). The allocated bits and the
// deferred-cleared bits sit on separate cache lines, as in the kernel. The struct is
// exactly two cache lines, so that with the allocator's size-class alignment words
// rarely share a 128-byte prefetch pair with their neighbours.
type sbWord struct {
	// word holds the allocated bits.
	word atomic.Uint64
	_    [cacheLine - unsafe.Sizeof(atomic.Uint64{})]byte
	// cleared holds bits freed but not yet folded back into word.
	cleared atomic.Uint64
	// reserved holds the bits at or past the depth that are set in word only so
	// that no Get working from an older, larger depth can take them (see
	// Resize). Written under swapLock. Not part of the kernel's struct: there the
	// queue is frozen around a resize.
	reserved atomic.Uint64
	// pending holds, during a Resize, the bits it will free once the new depth
	// is stored. Guarded by swapLock.
	pending uint64
	// swapLock makes the fold of cleared atomic with the "is the word really
	// full" check (the per-word lock of 72d04bdcf3f7). Resize holds every word's
	// lock while it changes the depth.
	swapLock spinLock
	_        [cacheLine - 3*unsafe.Sizeof(atomic.Uint64{}) - unsafe.Sizeof(spinLock{})]byte
}

// Sbitmap is a scalable bitmap allocator: a fixed set of bits, each of which is either
// free or held, allocated without locks. It models struct sbitmap (lib/sbitmap.c,
// include/linux/sbitmap.h) bit for bit: the word layout, the deferred clear, the search
// order and the hint rules. The allocation hint (the kernel's per-CPU alloc_hint) is
// owned by the caller and passed by pointer; give each goroutine or simulated CPU its
// own hint (see InitHint).
//
// All methods are safe for concurrent use, except that a given hint must not be used
// by two goroutines at once. For a single goroutine every result is deterministic.
//
// Memory ordering: all state is kept in sync/atomic values, which are sequentially
// consistent. A Put (or ClearBatch) of a bit happens before any Get that later returns
// that bit, so writes the previous holder made before freeing are visible to the next
// holder (release on free, acquire on get).
//
// An Sbitmap must not be copied after first use.
type Sbitmap struct {
	// depth is the current depth in bits (sb->depth). The number of words in use
	// (sb->map_nr) is derived from it, so one load gives a consistent pair.
	depth      atomic.Uint32
	resizeMu   sync.Mutex // serialises Resize
	shift      uint32
	bitMask    uint32 // 1<<shift - 1: a bit's offset in its word
	capacity   uint32 // depth allocated at construction; Resize may not exceed it
	roundRobin bool
	shallowAll bool
	unlocked   bool
	direct     bool // Options.DirectClear
	// oneWord is true for a bitmap of one word outside round-robin mode, whose
	// Get takes the fast path; word0 is then &words[0].
	oneWord bool
	word0   *sbWord
	words   []sbWord
}

// ShiftOf returns the kernel's default shift for a bitmap of depth bits
// (sbitmap_calculate_shift): start at 6 (64-bit words) and, if depth >= 4, decrease
// while 4 words of that size would exceed depth, so that there are at least 4 words.
// Examples: 256 → 6, 64 → 4, 56 → 3, 15 → 1, 3 → 6.
func ShiftOf(depth int) int {
	shift := MaxShift
	if depth >= 4 {
		for shift > 0 && (4<<shift) > depth {
			shift--
		}
	}
	return shift
}

// New returns an Sbitmap of depth bits with every bit free. It models
// sbitmap_init_node. Errors: depth outside [1, MaxDepth]; Options.Shift outside
// [-1, 6].
func New(depth int, opt Options) (*Sbitmap, error) {
	s := new(Sbitmap)
	if err := s.init(depth, opt); err != nil {
		return nil, err
	}
	return s, nil
}

func checkDepth(depth int) error {
	if depth < 1 || depth > MaxDepth {
		return fmt.Errorf("sbitmap: depth %d out of range [1, %d]", depth, MaxDepth)
	}
	return nil
}

func resolveShift(depth, shift int, kernelRule bool) (uint32, error) {
	switch {
	case shift == 0 && kernelRule:
		return uint32(ShiftOf(depth)), nil
	case shift == 0:
		return MaxShift, nil
	case shift == ShiftZero:
		return 0, nil
	case shift < ShiftZero || shift > MaxShift:
		return 0, fmt.Errorf("sbitmap: shift %d out of range [1, %d] (0 = default rule, %d = one-bit words)",
			shift, MaxShift, ShiftZero)
	}
	return uint32(shift), nil
}

func (s *Sbitmap) init(depth int, opt Options) error {
	if err := checkDepth(depth); err != nil {
		return err
	}
	shift, err := resolveShift(depth, opt.Shift, opt.Kernel.CalculateShift)
	if err != nil {
		return err
	}
	s.shift = shift
	s.bitMask = 1<<shift - 1
	s.capacity = uint32(depth)
	s.roundRobin = opt.RoundRobin
	s.shallowAll = opt.Kernel.ShallowWholeBitmap
	s.unlocked = opt.Kernel.UnlockedDeferredClear
	s.direct = opt.DirectClear
	nr := s.wordsFor(uint32(depth))
	s.words = make([]sbWord, nr)
	s.word0 = &s.words[0]
	s.oneWord = nr == 1 && !s.roundRobin
	s.depth.Store(uint32(depth))
	return nil
}

// wordsFor returns ceil(depth / 2^shift) (the kernel's map_nr).
func (s *Sbitmap) wordsFor(depth uint32) uint32 {
	return (depth + (1 << s.shift) - 1) >> s.shift
}

// beyondMask returns the bits of word index that lie at or past depth: all of them
// for a word past the last one in use, none for a word wholly below depth.
func (s *Sbitmap) beyondMask(index, depth uint32) uint64 {
	base := index << s.shift
	usable := uint32(0)
	if depth > base {
		usable = min(depth-base, 1<<s.shift)
	}
	return wordMask(1<<s.shift) &^ wordMask(usable)
}

// index returns the index of w in s.words.
func (s *Sbitmap) index(w *sbWord) uint32 {
	return uint32((uintptr(unsafe.Pointer(w)) - uintptr(unsafe.Pointer(&s.words[0]))) / unsafe.Sizeof(sbWord{}))
}

// Depth returns the current depth in bits (sb->depth).
func (s *Sbitmap) Depth() int { return int(s.depth.Load()) }

// Capacity returns the depth allocated at construction: the largest depth Resize
// accepts, and the bound for bit numbers passed to Put.
func (s *Sbitmap) Capacity() int { return int(s.capacity) }

// Shift returns log2 of the bits per word (sb->shift).
func (s *Sbitmap) Shift() int { return int(s.shift) }

// RoundRobin reports whether the bitmap allocates in strictly increasing order.
func (s *Sbitmap) RoundRobin() bool { return s.roundRobin }

// mapDepth returns the usable bits of word index for a bitmap of depth bits in mapNr
// words (__map_depth): a full word except the last, which holds the remainder.
func (s *Sbitmap) mapDepth(index, depth, mapNr uint32) uint32 {
	if index == mapNr-1 {
		return depth - index<<s.shift
	}
	return 1 << s.shift
}

// wordMask returns a mask of the low depth bits, depth in [0, 64].
func wordMask(depth uint32) uint64 {
	if depth >= BitsPerWord {
		return ^uint64(0)
	}
	return uint64(1)<<depth - 1
}

// spinLock is the word's swap_lock: a test-and-set lock whose state a reader can
// load, standing in for the kernel's raw spinlock. The lock word counts: it is odd
// while held and grows by two with every acquisition, so a reader that loads the same
// even value before and after some reads knows that no critical section ran in
// between (Weight's snapshot). The critical sections it guards are a few atomic
// instructions long, so a waiter spins briefly and then yields the processor (rather
// than parking) until the holder is done.
type spinLock struct{ v atomic.Uint32 }

func (l *spinLock) lock() {
	for {
		if v := l.v.Load(); v&1 == 0 && l.v.CompareAndSwap(v, v+1) {
			return
		}
		if testHookSpin != nil {
			testHookSpin()
		}
		for i := 0; l.v.Load()&1 != 0; i++ {
			if i >= spinTries {
				runtime.Gosched()
			}
		}
	}
}

// spinTries is how many times a waiter for a spin lock re-reads it before it starts
// yielding the processor between reads: about the length of the critical sections,
// so that a holder running on another processor is waited for without a yield.
const spinTries = 64

// testHookSpin, when non-nil, runs each time lock finds the lock held. Tests only
// (export_test.go).
var testHookSpin func()

// unlock releases the lock (only its holder writes the lock word meanwhile).
func (l *spinLock) unlock() { l.v.Store(l.v.Load() + 1) }

// held reports whether the lock is held at the instant of the load.
func (l *spinLock) held() bool { return l.v.Load()&1 != 0 }
