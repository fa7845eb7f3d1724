package sbitmap

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// WaitQueues is the number of wait queues of a Queue (SBQ_WAIT_QUEUES).
const WaitQueues = 8

// MaxWakeBatch is the largest wake batch (SBQ_WAKE_BATCH).
const MaxWakeBatch = 8

// WakeScheme selects how freed bits wake waiters.
type WakeScheme int

const (
	// WakeGlobal is the v6.2+ scheme (Gabriel Krisman Bertazi, "Use single per-bitmap
	// counting to wake up queued tags", with Jan Kara's follow-ups): completions are
	// counted in one queue-wide counter while anyone waits, and every wake_batch of
	// them wakes up to wake_batch exclusive waiters across the wait queues, starting
	// at wake_index (106397376c03, "sbitmap: fix batching wakeup"). The default.
	WakeGlobal WakeScheme = iota
	// WakeCountdown is the v4.10–v6.1 scheme: each wait queue has a countdown
	// (wait_cnt); a free decrements the countdown of the first wait queue with
	// waiters at or after wake_index, and when it reaches zero up to wake_batch
	// waiters of that queue are woken and wake_index advances (~v6.0 text).
	WakeCountdown
)

// String returns "global" or "countdown".
func (w WakeScheme) String() string {
	switch w {
	case WakeGlobal:
		return "global"
	case WakeCountdown:
		return "countdown"
	}
	return fmt.Sprintf("WakeScheme(%d)", int(w))
}

// RecalcEra selects the formula of RecalculateWakeBatch
// (sbitmap_queue_recalculate_wake_batch).
type RecalcEra int

const (
	// Recalc6_2 (default, ≥v6.2, Kemeng Shi): clamp(ceil(depth/users)/8, 1, 8).
	Recalc6_2 RecalcEra = iota
	// Recalc5_17 (v5.17-rc2 … v6.1, 10825410b956): clamp(ceil(depth/users)/8,
	// minBatch, 8) with minBatch 4 when depth >= 32, else 1.
	Recalc5_17
	// Recalc5_17rc1 models 180dccb0dba4 as first merged (v5.17-rc1):
	// clamp(ceil(depth/users), 4, 8). A depth below 4 can never reach the batch:
	// case R04's hang.
	Recalc5_17rc1
)

// QueueOptions configures a Queue: the bitmap's Options (including its
// KernelSwitches, which also select the wake-up era) plus the Go-facing wake-up
// settings. The zero value is the current kernel's behaviour on 64-bit words.
type QueueOptions struct {
	Options

	// WakeBatch overrides the wake batch: 0 (the default) computes it as the kernel
	// does (CalcWakeBatch, recomputed by Resize, SetMinShallowDepth and
	// RecalculateWakeBatch); 1..8 fixes it, and those calls leave it alone.
	// WakeEveryFree (1) wakes a waiter on every freed bit. Allowed: [0, 8].
	WakeBatch int

	// HandOff makes Clear hand a freed bit directly to a goroutine waiting in
	// GetWait, if one is waiting: the bit stays allocated and changes owner, so the
	// releaser (or any other Get) cannot take it back before the woken waiter runs,
	// and the waiter does not search the bitmap again. A GetWait that finds others
	// waiting waits behind them instead of taking a free bit first; waiters are
	// served in about the order they went to sleep (the runtime's channel receive
	// queue). Without a GetWait waiting, Clear frees the bit as usual. GetWait
	// calls in this mode do not use the wait queues (WsActive does not count them;
	// Waiting does), so WakeUp, WakeWaiters and WakeAll do not concern them:
	// ClearBatch and a growing Resize hand the freed bits on instead. With more
	// than 4096 handed-over bits in flight at once, a Clear waits until a receiver
	// takes one. Not in the kernel, whose waiters retry the allocation when woken.
	// Default false.
	HandOff bool

	// MinShallowDepth is the smallest shallow depth the caller will pass to
	// GetShallow (sbitmap_queue_min_shallow_depth); 0 means no shallow use. It
	// lowers wake_batch so that shallow allocators are woken. Allowed: [0, depth].
	MinShallowDepth int
}

// WakeEveryFree is the QueueOptions.WakeBatch that wakes one waiter per freed bit.
const WakeEveryFree = 1

// waitState is one wait queue (struct sbq_wait_state): a lock-protected intrusive
// list of waiters and, in the countdown scheme, its wait_cnt.
type waitState struct {
	// lk is the wait queue's spinlock (bit 0) and, above it, the number of
	// waiters on the list as of the last unlock, so that waitqueue_active needs
	// no lock and unlocking publishes the length with the same atomic store.
	lk      atomic.Uint32
	nr      uint32 // waiters on the list, guarded by the lock
	head    *Waiter
	tail    *Waiter
	waitCnt atomic.Int32 // countdown scheme only
	_       cpu.CacheLinePad
}

const wsLocked = 1

// lock takes the wait queue's lock (the spinlock of its wait_queue_head). The
// critical sections are a few list operations, so a waiter for the lock spins
// spinTries times and then yields the processor between tries, never parking.
func (ws *waitState) lock() {
	for i := 0; ; i++ {
		if v := ws.lk.Load(); v&wsLocked == 0 && ws.lk.CompareAndSwap(v, v|wsLocked) {
			return
		}
		if i >= spinTries {
			runtime.Gosched()
		}
	}
}

// unlock releases the lock and publishes the list length.
func (ws *waitState) unlock() { ws.lk.Store(ws.nr << 1) }

// length returns the number of waiters on the list without the lock
// (waitqueue_active): the length as of the last unlock.
func (ws *waitState) length() int { return int(ws.lk.Load() >> 1) }

// Queue is a bitmap allocator with wait queues (struct sbitmap_queue, lib/sbitmap.c):
// an Sbitmap plus eight wait queues on which users wait for a free bit, woken in
// batches of WakeBatch() freed bits.
//
// Waiting is expressed with Waiter values carrying a callback (PrepareWait,
// FinishWait, AddWaitHook), so a discrete-event simulator can wait without blocking a
// goroutine; GetWait builds a blocking, context-aware get for Go programs on the same
// mechanism. Wake callbacks run synchronously inside Clear, ClearBatch, WakeUp,
// WakeWaiters and WakeAll, with no lock of the Queue held: a callback may call any
// method of the Queue.
//
// All methods are safe for concurrent use; for a single goroutine every result is
// deterministic. Memory ordering is as for Sbitmap: Clear is a release, Get an acquire.
// A Queue must not be copied after first use. Make one with NewQueue: the zero Queue
// has no bits (Get returns -1), and GetWait on it panics rather than sleep for ever.
type Queue struct {
	sb Sbitmap

	wakeBatch       atomic.Uint32
	minShallowDepth atomic.Uint32 // math.MaxUint32 = unset (the kernel's UINT_MAX)
	wsActive        atomic.Int32
	wakeIndex       atomic.Int32
	completionCnt   atomic.Uint32 // global scheme
	wakeupCnt       atomic.Uint32 // global scheme
	waitIndex       atomic.Uint32 // GetWait's rotating choice of wait queue

	scheme        WakeScheme
	oneQueueBatch bool
	keepWaitCnt   bool
	recalcEra     RecalcEra
	fixedBatch    uint32 // QueueOptions.WakeBatch; 0 = computed
	handOff       bool
	clearOther    bool // handOff or Options.DirectClear: Clear takes clearSlow

	// Hand-over state (QueueOptions.HandOff; see getWaitHandOff).
	hoWait atomic.Int64 // GetWait calls registered for a hand-over minus bits promised to them
	hoCh   chan int32   // promised bits on their way to their new owners

	ws [WaitQueues]waitState
}

// NewQueue returns a Queue of depth bits (sbitmap_queue_init_node). depth is also the
// queue's capacity: the bitmap is allocated once, so Resize can shrink the queue and
// grow it back, but never past depth (as the kernel's sbitmap_queue_resize, which never
// reallocates). Errors: those of New; WakeScheme or RecalcEra unknown;
// MinShallowDepth outside [0, depth].
func NewQueue(depth int, opt QueueOptions) (*Queue, error) {
	q := new(Queue)
	if err := q.sb.init(depth, opt.Options); err != nil {
		return nil, err
	}
	k := opt.Kernel
	if k.WakeScheme != WakeGlobal && k.WakeScheme != WakeCountdown {
		return nil, fmt.Errorf("sbitmap: wake scheme %d out of range [%d, %d]", k.WakeScheme, WakeGlobal, WakeCountdown)
	}
	if k.RecalcEra < Recalc6_2 || k.RecalcEra > Recalc5_17rc1 {
		return nil, fmt.Errorf("sbitmap: recalc era %d out of range [%d, %d]", k.RecalcEra, Recalc6_2, Recalc5_17rc1)
	}
	if opt.WakeBatch < 0 || opt.WakeBatch > MaxWakeBatch {
		return nil, fmt.Errorf("sbitmap: wake batch %d out of range [0, %d] (0 = the kernel's rule)", opt.WakeBatch, MaxWakeBatch)
	}
	if opt.MinShallowDepth < 0 || opt.MinShallowDepth > depth {
		return nil, fmt.Errorf("sbitmap: min shallow depth %d out of range [0, %d] (0 = none)", opt.MinShallowDepth, depth)
	}
	q.scheme = k.WakeScheme
	q.oneQueueBatch = k.WakeOneQueuePerBatch
	q.keepWaitCnt = k.KeepWaitCntOnResize
	q.recalcEra = k.RecalcEra
	q.fixedBatch = uint32(opt.WakeBatch)
	q.handOff = opt.HandOff
	q.clearOther = opt.HandOff || opt.DirectClear
	if q.handOff {
		q.hoCh = make(chan int32, min(depth, hoChanCap))
	}
	q.minShallowDepth.Store(math.MaxUint32)
	if opt.MinShallowDepth > 0 {
		q.minShallowDepth.Store(uint32(opt.MinShallowDepth))
	}
	wb := q.calcWakeBatch(uint32(depth))
	if q.fixedBatch != 0 {
		wb = q.fixedBatch
	}
	q.wakeBatch.Store(wb)
	for i := range q.ws {
		q.ws[i].waitCnt.Store(int32(wb))
	}
	return q, nil
}

// Sbitmap returns the queue's bitmap, for read-only inspection (Weight, AnySet,
// ForEachSet). Allocating or freeing through it bypasses the wake-ups.
func (q *Queue) Sbitmap() *Sbitmap { return &q.sb }

// Depth returns the current depth in bits.
func (q *Queue) Depth() int { return q.sb.Depth() }

// Capacity returns the queue's construction depth in bits (the depth passed to
// NewQueue): the most Resize can grow the queue to. Same as Sbitmap().Capacity().
func (q *Queue) Capacity() int { return q.sb.Capacity() }

// WakeBatch returns the number of freed bits that make one wake-up batch
// (sbq->wake_batch), in [1, 8].
func (q *Queue) WakeBatch() int { return int(q.wakeBatch.Load()) }

// WsActive returns the number of registered waiters (sbq->ws_active).
func (q *Queue) WsActive() int { return int(q.wsActive.Load()) }

// WakeIndex returns the index of the next wait queue to wake (sbq->wake_index).
func (q *Queue) WakeIndex() int { return int(q.wakeIndex.Load()) }

// Scheme returns the queue's wake-up scheme.
func (q *Queue) Scheme() WakeScheme { return q.scheme }

// CalcWakeBatch returns the wake batch for a bitmap of depth bits and the given shift
// and minimum shallow depth (0 = none), as sbq_calc_wake_batch computes it: each word
// counts for at most minShallowDepth bits, and the result is clamp(usable/8, 1, 8).
func CalcWakeBatch(depth, shift, minShallowDepth int) int {
	msd := uint32(math.MaxUint32)
	if minShallowDepth > 0 {
		msd = uint32(minShallowDepth)
	}
	return int(calcWakeBatch(uint32(depth), uint32(shift), msd))
}

func calcWakeBatch(depth, shift, minShallow uint32) uint32 {
	s := min(uint32(1)<<shift, minShallow)
	eff := (depth>>shift)*s + min(depth&(1<<shift-1), s)
	return clampU32(eff/WaitQueues, 1, MaxWakeBatch)
}

func clampU32(v, lo, hi uint32) uint32 {
	return max(lo, min(v, hi))
}

func (q *Queue) calcWakeBatch(depth uint32) uint32 {
	if q.sb.shallowAll {
		// With a whole-bitmap shallow depth the per-word rounding goes away.
		return clampU32(min(depth, q.minShallowDepth.Load())/WaitQueues, 1, MaxWakeBatch)
	}
	return calcWakeBatch(depth, q.sb.shift, q.minShallowDepth.Load())
}

// RecalcWakeBatch returns the wake batch that sbitmap_queue_recalculate_wake_batch
// computes for a bitmap of depth bits shared by users active users, in the given era
// (users < 1 counts as 1). It ignores the minimum shallow depth, as the kernel does.
func RecalcWakeBatch(era RecalcEra, depth, users int) int {
	users = max(users, 1)
	d := uint32((depth + users - 1) / users)
	switch era {
	case Recalc5_17rc1:
		return int(clampU32(d, 4, MaxWakeBatch))
	case Recalc5_17:
		minBatch := uint32(1)
		if depth >= 4*WaitQueues {
			minBatch = 4
		}
		return int(clampU32(d/WaitQueues, minBatch, MaxWakeBatch))
	}
	return int(clampU32(d/WaitQueues, 1, MaxWakeBatch))
}

// updateWakeBatch stores a new wake batch; in the countdown scheme a change resets
// every countdown to 1 (6c0ca7ae292a) unless KeepWaitCntOnResize
// (sbitmap_queue_update_wake_batch).
func (q *Queue) updateWakeBatch(wb uint32) {
	if q.fixedBatch != 0 || q.wakeBatch.Load() == wb {
		return
	}
	q.wakeBatch.Store(wb)
	if q.scheme == WakeCountdown && !q.keepWaitCnt {
		for i := range q.ws {
			q.ws[i].waitCnt.Store(1)
		}
	}
}

// RecalculateWakeBatch sets the wake batch for users active users of a shared bitmap
// with the formula of the queue's RecalcEra (sbitmap_queue_recalculate_wake_batch,
// called by blk-mq when the number of active queues changes). users < 1 counts as 1.
func (q *Queue) RecalculateWakeBatch(users int) {
	if q.fixedBatch != 0 {
		return
	}
	wb := uint32(RecalcWakeBatch(q.recalcEra, q.sb.Depth(), users))
	if q.recalcEra == Recalc6_2 {
		q.wakeBatch.Store(wb) // the v6.2 text writes the batch directly
		return
	}
	q.updateWakeBatch(wb)
}

// SetMinShallowDepth records the smallest shallow depth the caller will use with
// GetShallow and recomputes the wake batch (sbitmap_queue_min_shallow_depth).
// Errors: d outside [1, Capacity()].
func (q *Queue) SetMinShallowDepth(d int) error {
	if d < 1 || d > q.sb.Capacity() {
		return fmt.Errorf("sbitmap: min shallow depth %d out of range [1, %d]", d, q.sb.Capacity())
	}
	q.minShallowDepth.Store(uint32(d))
	q.updateWakeBatch(q.calcWakeBatch(q.sb.depth.Load()))
	return nil
}

// Resize changes the depth (sbitmap_queue_resize): the wake batch is recomputed for the
// new depth (resetting countdowns, see KeepWaitCntOnResize), then the bitmap is resized
// without reallocation, with the concurrency contract of Sbitmap.Resize. When the
// depth grows by n bits and anyone waits, up to n exclusive waiters are then woken
// (WakeWaiters(n)), so that a GetWait asleep on the smaller depth retries; the kernel
// needs no such wake-up because it freezes the queue, so nobody waits, around a
// resize. A queue never grows past its construction depth (Capacity); to go
// deeper, build a new Queue. Errors: depth outside [1, Capacity()]; a queue built with
// Options.DirectClear.
func (q *Queue) Resize(depth int) error {
	if depth < 1 || depth > q.sb.Capacity() {
		return fmt.Errorf("sbitmap: resize depth %d out of range [1, %d]", depth, q.sb.Capacity())
	}
	if q.sb.direct {
		return q.sb.Resize(depth) // the error, before the wake batch changes
	}
	old := q.sb.Depth()
	q.updateWakeBatch(q.calcWakeBatch(uint32(depth)))
	if err := q.sb.Resize(depth); err != nil {
		return err
	}
	if depth > old {
		q.WakeWaiters(depth - old)
		if q.handOff && q.hoWait.Load() > 0 {
			q.feedHandOff()
		}
	}
	return nil
}

// Get allocates a bit; see Sbitmap.Get (__sbitmap_queue_get). Returns -1 if none is
// free. Never blocks or allocates; panics only on a nil hint (a programming error,
// as Sbitmap.Get). Memory ordering: acquire.
func (q *Queue) Get(hint *uint32) int { return q.sb.Get(hint) }

// GetShallow allocates a bit within a shallow depth; see Sbitmap.GetShallow
// (sbitmap_queue_get_shallow). shallowDepth should not be below the minimum set with
// SetMinShallowDepth, or waiters may not be woken.
func (q *Queue) GetShallow(hint *uint32, shallowDepth int) int {
	return q.sb.GetShallow(hint, shallowDepth)
}

// GetBatch allocates up to n contiguous bits; see Sbitmap.GetBatch
// (__sbitmap_queue_get_batch).
func (q *Queue) GetBatch(hint *uint32, n int) (offset int, mask uint64) {
	return q.sb.GetBatch(hint, n)
}

// Clear frees bit (deferred clear; in the word at once with Options.DirectClear),
// counts it toward a wake-up batch (which may run wake callbacks synchronously, with
// no lock held), then sets *hint = bit outside
// round-robin mode if bit < Depth(). hint should be the allocating user's hint (the
// kernel passes the CPU recorded at allocation); it may be nil. Models
// sbitmap_queue_clear. With QueueOptions.HandOff and a GetWait waiting, the bit is
// instead handed to that waiter. Panics as Sbitmap.Put does. Never allocates. Memory
// ordering: release, and the free is visible before waiters are checked; a
// handed-over bit's new owner sees everything the releaser did before Clear.
func (q *Queue) Clear(bit int, hint *uint32) {
	if q.clearOther {
		q.clearSlow(bit, hint)
		return
	}
	if !q.sb.tryDeferredClearBit(bit) {
		q.sb.panicFree("Clear", bit)
	}
	if q.wsActive.Load() != 0 {
		q.WakeUp(1)
	}
	q.sb.updateHint(hint, bit)
}

// clearSlow is Clear with QueueOptions.HandOff or Options.DirectClear (one test in
// Clear for both, so that the default path is as before, with its free inlined).
func (q *Queue) clearSlow(bit int, hint *uint32) {
	if q.handOff {
		q.clearHandOff(bit, hint)
		return
	}
	if !q.sb.tryDirectClearBit(bit) {
		q.sb.panicFree("Clear", bit)
	}
	if q.wsActive.Load() != 0 {
		q.WakeUp(1)
	}
	q.sb.updateHint(hint, bit)
}

// clearHandOff is Clear with QueueOptions.HandOff: hand the bit to a registered
// GetWait if there is one; otherwise free it, and then hand free bits to any GetWait
// that registered meanwhile.
func (q *Queue) clearHandOff(bit int, hint *uint32) {
	if q.hoWait.Load() > 0 && q.handOffBit(bit) {
		q.sb.updateHint(hint, bit)
		return
	}
	if !q.sb.tryFree(bit) {
		q.sb.panicFree("Clear", bit)
	}
	if q.wsActive.Load() != 0 {
		q.WakeUp(1)
	}
	if q.hoWait.Load() > 0 {
		q.feedHandOff()
	}
	q.sb.updateHint(hint, bit)
}

// ClearBatch frees several held bits directly (not deferred), counts len(bits) toward
// the wake-ups, and sets *hint to the last bit (sbitmap_queue_clear_batch). Panics as
// Sbitmap.ClearBatch does.
func (q *Queue) ClearBatch(bits []int, hint *uint32) {
	if len(bits) == 0 {
		return
	}
	q.sb.ClearBatch(bits)
	q.WakeUp(len(bits))
	if q.handOff && q.hoWait.Load() > 0 {
		q.feedHandOff()
	}
	q.sb.updateHint(hint, bits[len(bits)-1])
}
