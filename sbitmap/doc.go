// Package sbitmap is a lock-free bitmap allocator and wait queue modelled bit for bit
// on the Linux kernel's lib/sbitmap.c: Sbitmap (struct sbitmap) and Queue (struct
// sbitmap_queue). It serves two users: the blkmq simulator, which drives it from one
// goroutine and waits through callback Waiters, and Go programs, which use it as a
// fast tag/slot allocator from many goroutines with a blocking, context-aware
// GetWait.
//
// # Model
//
// The bitmap of Depth() bits is split into words of 2^Shift() bits, each padded to
// its own cache lines. A freed bit is first recorded in its word's cleared mask and
// folded back only when a search finds the word full (the deferred clear). Each user
// owns an allocation hint (the kernel's per-CPU alloc_hint), passed by pointer: the
// hint picks the word to search first; outside round-robin mode the search in that
// word starts at bit 0. Put/Clear set the allocating user's hint to the freed bit.
//
// A Queue adds eight wait queues and batched wake-ups: by default (v6.2+) every
// WakeBatch() freed bits, counted while anyone waits, wake up to WakeBatch() waiters
// across the wait queues; the v4.10–v6.1 per-queue countdown is a kernel switch.
//
// # Options
//
// Options and QueueOptions hold what a Go program chooses: Shift (0 = 64-bit words,
// so a depth up to 64 is one word), RoundRobin, DirectClear (not in the kernel: Put and
// Clear free the bit in its word at once, with no deferred clear and no folds; such a
// bitmap refuses Resize), WakeBatch (0 = the kernel's rule;
// WakeEveryFree wakes a waiter on every free), HandOff (Clear hands a freed bit to a
// queued GetWait) and MinShallowDepth. Options.Kernel (KernelSwitches) holds the
// switches that reproduce older kernels and their bugs, each named after the commit
// it models: CalculateShift (the kernel's shift rule, which blk-mq's tag bitmaps
// use), ShallowWholeBitmap, UnlockedDeferredClear, WakeScheme,
// WakeOneQueuePerBatch, KeepWaitCntOnResize, RecalcEra. A Go program leaves it
// zero.
//
// # Concurrency
//
// All methods are safe for concurrent use (a hint must not be shared by goroutines
// running at once). Get/GetShallow/GetBatch/GetWait are acquire operations and
// Put/Clear/ClearBatch release operations. Get and Clear never allocate. Wake
// callbacks run with no internal lock held and may call back into the Queue.
//
// Linearizable: a successful Get, GetShallow, GetBatch or GetWait (the bits returned
// were free and below the depth in effect at one instant of the call); Put, Clear and
// ClearBatch of one word; Resize (at the store of the new depth); Weight of a
// one-word bitmap, except with HandOff (a bit promised to a waiter counts as held
// until that waiter takes it, and a waiter that registers after Weight returned may
// take it first). Not linearizable, as in the kernel: a failed Get (-1 means each
// word in use was found full when it was searched, not that all were full at once),
// and Weight, AnySet and ForEachSet over several words (each word is read at its own
// instant; exact when the bitmap is quiescent). See Sbitmap.Resize for bits held past
// a shrunken depth. The kernel calls sbitmap_resize only with the queue frozen; this
// package defines the concurrent contract itself.
//
// # Panics
//
// Programming errors panic at the misusing call with a message naming the fault:
// Get, GetShallow, GetBatch and GetWait with a nil hint ("sbitmap: Get with nil
// hint"); Put, Clear and ClearBatch of a bit out of range or not held;
// PrepareWait/AddWaitHook of a nil Waiter or one without Wake, with a wait-queue
// index outside [0, 8), or of a waiter still waiting on another Queue; FinishWait of
// a waiter never registered on that Queue. Bad constructor or Resize arguments are
// returned as errors.
//
// # API summary
//
//	func New(depth int, opt Options) (*Sbitmap, error)
//	func ShiftOf(depth int) int
//	(*Sbitmap) Get(hint *uint32) int                     // -1: none free
//	(*Sbitmap) GetShallow(hint *uint32, shallowDepth int) int
//	(*Sbitmap) GetBatch(hint *uint32, n int) (offset int, mask uint64)
//	(*Sbitmap) Put(bit int, hint *uint32)
//	(*Sbitmap) ClearBatch(bits []int)
//	(*Sbitmap) Resize(depth int) error; Depth, Capacity, Shift, Weight() int
//	(*Sbitmap) AnySet() bool; ForEachSet(start int, fn func(bit int) bool)
//	(*Sbitmap) InitHint(seed uint64) uint32
//	func NewQueue(depth int, opt QueueOptions) (*Queue, error)
//	type Options{Shift; RoundRobin; DirectClear; Kernel KernelSwitches}
//	type QueueOptions{Options; WakeBatch; HandOff; MinShallowDepth}; WakeEveryFree
//	func CalcWakeBatch(depth, shift, minShallowDepth int) int
//	func RecalcWakeBatch(era RecalcEra, depth, users int) int
//	(*Queue) Get, GetShallow, GetBatch                   // as Sbitmap
//	(*Queue) Clear(bit int, hint *uint32); ClearBatch(bits []int, hint *uint32)
//	(*Queue) GetWait(ctx context.Context, hint *uint32) (int, error)
//	(*Queue) Resize(depth int) error; SetMinShallowDepth(d int) error
//	(*Queue) RecalculateWakeBatch(users int); WakeBatch() int
//	(*Queue) WakeUp(nr int); WakeWaiters(nr int) int; WakeAll()
//	(*Queue) PrepareWait(w *Waiter, wsIndex int); FinishWait(w *Waiter) bool
//	(*Queue) AddWaitHook(w *Waiter, wsIndex int) bool; RemoveWaitHook(w *Waiter) bool
//	(*Queue) NextWaitQueue() int; WsActive, WakeIndex, Waiting, WaitQueueLen, WaitCnt
//	type Waiter struct{ Wake func(w *Waiter); ... }; (*Waiter) Queued() bool
package sbitmap
