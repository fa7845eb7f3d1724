package tagset

import (
	"fmt"

	"github.com/blkmq/blkmq/sbitmap"
)

// AllocStatus is the state of a TagAlloc after Start or Resume.
type AllocStatus int

const (
	// AllocGot: a tag was allocated; see TagAlloc.Tag and TagAlloc.Hctx.
	AllocGot AllocStatus = iota
	// AllocFailed: NoWait was set and no tag could be had (BLK_MQ_NO_TAG).
	AllocFailed
	// AllocSleeping: the allocation is registered as an exclusive waiter; when
	// Woken is called the caller must call Resume (typically from an event).
	AllocSleeping
)

// String returns "got", "failed" or "sleeping".
func (s AllocStatus) String() string {
	switch s {
	case AllocGot:
		return "got"
	case AllocFailed:
		return "failed"
	case AllocSleeping:
		return "sleeping"
	}
	return fmt.Sprintf("AllocStatus(%d)", int(s))
}

// TagAlloc models one call of blk_mq_get_tag for a request allocation, as a
// state machine the caller drives. Without an elevator it allocates a driver
// tag (TagBusy, fair share unless reserved, counted as an active request; free
// it with Hctx.PutDriverTag); with one, a scheduler tag (free it with
// Hctx.PutSchedTag).
//
// The wait loop (§3.5): try; if NoWait, fail; otherwise pick a wait queue
// (bt_wait_ptr) and repeat { RunHctx; try; register as exclusive waiter; try;
// sleep } — Start returns AllocSleeping at "sleep". When the waiter is woken,
// Woken is called (possibly synchronously inside some Put); the caller then
// calls Resume, which unregisters, asks CurrentHctx which hctx and CPU the task
// now runs on (without marking that hctx active: see Resume), re-picks the bitmap, passes one wake-up to the bitmap it left
// if it changed (unless Options.NoMigrationWakeup), re-picks a wait queue and
// continues the loop.
//
// Fill the exported fields, then call Start once. A TagAlloc may be reused after
// it returned AllocGot or AllocFailed. It is not safe for concurrent use.
type TagAlloc struct {
	// Hctx is the hardware queue to allocate for; on AllocGot it is the hctx
	// whose tags hold Tag (it may differ after migration).
	Hctx *Hctx
	// CPU is the allocating CPU index (its hint is used); updated on migration.
	CPU int
	// Reserved asks for a reserved tag (BLK_MQ_REQ_RESERVED).
	Reserved bool
	// NoWait fails instead of sleeping (BLK_MQ_REQ_NOWAIT).
	NoWait bool
	// ShallowDepth > 0 limits the search (sbitmap_queue_get_shallow), as an
	// elevator's limit_depth does.
	ShallowDepth int
	// RunHctx runs a hardware queue synchronously (blk_mq_run_hw_queue(hctx,
	// false)) before each wait; nil skips it.
	RunHctx func(h *Hctx)
	// CurrentHctx returns the hctx and CPU the task runs on after waking; nil
	// means no migration.
	CurrentHctx func() (*Hctx, int)
	// Woken is called when the sleeping allocation is woken; required unless
	// NoWait. It must not call Resume re-entrantly if it can be called from
	// inside the caller's own tag Put; scheduling an event is the usual form.
	Woken func(a *TagAlloc)

	// Tag is the allocated tag after AllocGot, else -1.
	Tag int

	waiter  sbitmap.Waiter
	bt      *sbitmap.Queue
	ws      int
	waiting bool
}

func (a *TagAlloc) tags() *Tags {
	if a.Hctx.schedTags != nil {
		return a.Hctx.schedTags
	}
	return a.Hctx.tags
}

// try is __blk_mq_get_tag on the current bitmap.
func (a *TagAlloc) try() bool {
	h := a.Hctx
	if h.schedTags != nil {
		a.Tag = h.schedTags.get(a.CPU, a.Reserved, a.ShallowDepth)
	} else {
		a.Tag = h.getDriverTagLimited(a.CPU, a.Reserved, a.ShallowDepth)
	}
	return a.Tag >= 0
}

// Start begins the allocation. It panics if Hctx is nil, or if Woken is nil
// and NoWait is false, or if the TagAlloc is sleeping.
func (a *TagAlloc) Start() AllocStatus {
	if a.Hctx == nil {
		panic("tagset: TagAlloc.Start with nil Hctx")
	}
	a.Hctx.queue()
	if a.waiting {
		panic("tagset: TagAlloc.Start while sleeping; call Resume")
	}
	if !a.NoWait && a.Woken == nil {
		panic("tagset: TagAlloc.Start without Woken callback")
	}
	if a.Hctx.schedTags == nil {
		a.Hctx.TagBusy() // blk_mq_limit_depth without an elevator
	}
	a.bt = a.tags().bt(a.Reserved)
	if a.bt == nil { // reserved asked without reserved tags
		a.Tag = -1
		return AllocFailed
	}
	if a.try() {
		return AllocGot
	}
	if a.NoWait {
		return AllocFailed
	}
	if a.waiter.Wake == nil {
		a.waiter.Wake = a.wake
	}
	a.ws = a.Hctx.btWaitIndex()
	return a.loop()
}

// loop is one pass of blk_mq_get_tag's wait loop up to the sleep.
func (a *TagAlloc) loop() AllocStatus {
	if a.RunHctx != nil {
		a.RunHctx(a.Hctx)
	}
	if a.try() {
		return AllocGot
	}
	a.bt.PrepareWait(&a.waiter, a.ws)
	if a.try() {
		a.bt.FinishWait(&a.waiter)
		return AllocGot
	}
	a.waiting = true
	return AllocSleeping
}

func (a *TagAlloc) wake(*sbitmap.Waiter) {
	if a.Woken != nil {
		a.Woken(a)
	}
}

// Resume continues a sleeping allocation after Woken. It panics if the
// allocation is not sleeping.
func (a *TagAlloc) Resume() AllocStatus {
	if !a.waiting {
		panic("tagset: TagAlloc.Resume while not sleeping")
	}
	a.waiting = false
	a.bt.FinishWait(&a.waiter)
	prev := a.bt
	if a.CurrentHctx != nil {
		// No TagBusy here: blk_mq_get_tag re-maps ctx and hctx after io_schedule
		// but only __blk_mq_alloc_requests (blk_mq_tag_busy before the first try)
		// marks an hctx active, so a task that moved allocates on an hctx where its
		// queue may not be active yet — hctx_may_queue lets it through — and the
		// queue becomes active there at its next allocation (5.11 and 6.1 alike).
		a.Hctx, a.CPU = a.CurrentHctx()
	}
	a.bt = a.tags().bt(a.Reserved)
	if a.bt != prev && !a.Hctx.q.set.cfg.Options.NoMigrationWakeup {
		prev.WakeUp(1)
	}
	// may now wait on another Queue; the bound a.wake is kept (binding it again would
	// allocate a method value on every retry)
	a.waiter = sbitmap.Waiter{Wake: a.waiter.Wake}
	a.ws = a.Hctx.btWaitIndex()
	return a.loop()
}

// Waiting reports whether the allocation is sleeping.
func (a *TagAlloc) Waiting() bool { return a.waiting }

// WaitQueue returns the bitmap and wait-queue index (struct sbq_wait_state of
// sbitmap_queue.ws) the allocation waits on, or last waited on: the ones its
// sbitmap_prepare_to_wait and sbitmap_finish_wait touch. nil before the first wait.
func (a *TagAlloc) WaitQueue() (*sbitmap.Queue, int) { return a.bt, a.ws }
