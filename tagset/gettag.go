package tagset

import (
	"context"
	"errors"
)

// ErrNoTag is returned by Hctx.GetTag when no tag can ever be had for the
// request (a reserved tag asked of a set without reserved tags).
var ErrNoTag = errors.New("tagset: no tag available")

// Cancel abandons a sleeping allocation (for callers that stop waiting, e.g.
// on context cancellation; the kernel's wait is uninterruptible). The waiter
// is unregistered; if a wake-up had already selected it, that wake-up is passed
// on to another waiter so none is stranded. No-op unless sleeping.
func (a *TagAlloc) Cancel() {
	if !a.waiting {
		return
	}
	a.waiting = false
	if !a.bt.FinishWait(&a.waiter) {
		a.bt.WakeWaiters(1)
	}
}

// GetTag is a blocking request-tag allocation for Go programs, built on
// TagAlloc (blk_mq_get_tag without NOWAIT): a driver tag with fair sharing
// without an elevator, else a scheduler tag. It blocks until a tag is free or
// ctx is done, and returns the tag or −1 with ctx.Err() (or ErrNoTag). Free it
// with PutDriverTag or PutSchedTag using the same cpu. Each call that has to
// wait allocates a channel and a TagAlloc.
func (h *Hctx) GetTag(ctx context.Context, cpu int, reserved bool) (int, error) {
	a := TagAlloc{Hctx: h, CPU: cpu, Reserved: reserved, NoWait: true}
	if a.Start() == AllocGot {
		return a.Tag, nil
	}
	if a.bt == nil {
		return -1, ErrNoTag
	}
	wake := make(chan struct{}, 1)
	w := &TagAlloc{Hctx: h, CPU: cpu, Reserved: reserved, Woken: func(*TagAlloc) {
		select {
		case wake <- struct{}{}:
		default:
		}
	}}
	st := w.Start()
	for st == AllocSleeping {
		select {
		case <-wake:
			st = w.Resume()
		case <-ctx.Done():
			w.Cancel()
			return -1, ctx.Err()
		}
	}
	if st != AllocGot {
		return -1, ErrNoTag
	}
	return w.Tag, nil
}
