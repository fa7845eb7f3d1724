package sbitmap

import (
	"context"
	"sync"
)

// chanWaiter is the pooled waiter GetWait uses: a Waiter whose Wake signals a
// one-slot channel.
type chanWaiter struct {
	w  Waiter
	ch chan struct{}
}

var chanWaiterPool = sync.Pool{New: func() any {
	cw := &chanWaiter{ch: make(chan struct{}, 1)}
	cw.w.Wake = func(*Waiter) { cw.ch <- struct{}{} }
	return cw
}}

// GetWait allocates a bit, blocking until one is free or ctx is done. It returns the
// bit, or -1 and ctx.Err(). It follows blk_mq_get_tag's loop (§3.5): try; register as
// an exclusive waiter on a wait queue chosen by NextWaitQueue; try again; sleep until
// woken; unregister; retry, choosing the next wait queue. A bit found free after ctx
// is done is still returned (success wins).
//
// A waiter that was woken but gives up because ctx is done passes its wake-up on to
// another waiter (WakeWaiters(1)), so no other waiter is stranded by the abandoned
// wake-up (the bug fixed in golang.org/x/sync/semaphore by golang/sync PR #10). The
// scheme's batching still applies: with WakeGlobal, a sleeper is woken once enough
// bits were freed while it waited (see WakeUp).
//
// With QueueOptions.HandOff, a Clear finding this goroutine queued hands it the freed
// bit directly, so that neither the releaser nor a newcomer can take it back first.
//
// After warm-up GetWait allocates nothing: waiters and their channels are pooled.
// It panics if hint is nil.
// Memory ordering: acquire, as Get.
func (q *Queue) GetWait(ctx context.Context, hint *uint32) (int, error) {
	if hint == nil {
		panic("sbitmap: GetWait with nil hint")
	}
	if nr := q.sb.Get(hint); nr >= 0 {
		return nr, nil
	}
	return q.getWaitSlow(ctx, hint)
}

// getWaitSlow is GetWait once the first Get has failed.
func (q *Queue) getWaitSlow(ctx context.Context, hint *uint32) (int, error) {
	if err := ctx.Err(); err != nil {
		return -1, err
	}
	cw := chanWaiterPool.Get().(*chanWaiter)
	cw.w.q = nil
	cw.w.handOff = q.handOff
	cw.w.handed = 0
	defer chanWaiterPool.Put(cw)
	for {
		q.PrepareWait(&cw.w, q.NextWaitQueue())
		if nr := q.Get(hint); nr >= 0 {
			q.finishChanWait(cw, false)
			if b := cw.takeHanded(); b >= 0 {
				q.Clear(b, nil) // handed over too late: pass it on
			}
			return nr, nil
		}
		woken := false
		if done := ctx.Done(); done == nil {
			<-cw.ch // a context that is never done: a plain receive is cheaper
			woken = true
		} else {
			select {
			case <-cw.ch:
				woken = true
			case <-done:
			}
		}
		woken = q.finishChanWait(cw, woken)
		if b := cw.takeHanded(); b >= 0 {
			return b, nil // handed over by Clear (QueueOptions.HandOff); success wins
		}
		if nr := q.Get(hint); nr >= 0 {
			return nr, nil
		}
		if err := ctx.Err(); err != nil {
			if woken {
				q.WakeWaiters(1)
			}
			return -1, err
		}
	}
}

// finishChanWait ends a GetWait wait and leaves the channel empty. consumed says
// whether the caller already received the wake-up token. It reports whether the
// waiter was woken.
func (q *Queue) finishChanWait(cw *chanWaiter, consumed bool) bool {
	if q.FinishWait(&cw.w) {
		return false // still queued: not woken, and no token will come
	}
	if !consumed {
		// A wake-up removed the waiter; its Wake has sent or is about to send
		// (the waker is between unlinking and calling back, holding no lock).
		<-cw.ch
	}
	return true
}

// takeHanded returns the bit a Clear handed to the waiter, or -1, and resets it. Call
// only after finishChanWait: the wake-up that carried the bit happens before.
func (cw *chanWaiter) takeHanded() int {
	b := cw.w.handed - 1
	cw.w.handed = 0
	return b
}
