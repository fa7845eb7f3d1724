package sbitmap

import (
	"context"
	"runtime"
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
// bit, or -1 and ctx.Err(). It follows blk_mq_get_tag's loop: try; register as an
// exclusive waiter on a wait queue chosen by NextWaitQueue; try again; sleep until
// woken; unregister; retry, choosing the next wait queue. A bit found free after ctx
// is done is still returned (success wins).
//
// A waiter that was woken but gives up because ctx is done passes its wake-up on to
// another waiter (WakeWaiters(1)), so no other waiter is stranded by the abandoned
// wake-up (the bug fixed in golang.org/x/sync/semaphore by golang/sync PR #10). The
// scheme's batching still applies: with WakeGlobal, a sleeper is woken once enough
// bits were freed while it waited (see WakeUp).
//
// With QueueOptions.HandOff, GetWait does not use the wait queues: a call that finds
// no free bit (or finds other GetWait calls already waiting, which it does not
// overtake) registers for a hand-over and sleeps until a Clear passes it a bit
// directly, without searching the bitmap again; see QueueOptions.HandOff.
//
// After warm-up GetWait allocates nothing: waiters and their channels are pooled.
// It panics if hint is nil, or on a Queue not made by NewQueue (the zero Queue has no
// bit to wait for: it slept until ctx was done, for ever with context.Background).
// Memory ordering: acquire, as Get.
func (q *Queue) GetWait(ctx context.Context, hint *uint32) (int, error) {
	if hint == nil {
		panic("sbitmap: GetWait with nil hint")
	}
	if q.handOff {
		if q.hoWait.Load() <= 0 {
			if nr := q.sb.Get(hint); nr >= 0 {
				return nr, nil
			}
		}
		return q.getWaitHandOff(ctx, hint)
	}
	if nr := q.sb.Get(hint); nr >= 0 {
		return nr, nil
	}
	if q.sb.Capacity() == 0 {
		panic("sbitmap: GetWait on a Queue not made by NewQueue (no bits: it would sleep for ever)")
	}
	return q.getWaitSlow(ctx, hint)
}

// getWaitSlow is GetWait once the first Get has failed (kernel wake-ups).
func (q *Queue) getWaitSlow(ctx context.Context, hint *uint32) (int, error) {
	if err := ctx.Err(); err != nil {
		return -1, err
	}
	cw := chanWaiterPool.Get().(*chanWaiter)
	cw.w.q = nil
	defer chanWaiterPool.Put(cw)
	for {
		q.PrepareWait(&cw.w, q.NextWaitQueue())
		if nr := q.Get(hint); nr >= 0 {
			q.finishChanWait(cw, false)
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

// The hand-over (QueueOptions.HandOff). Not in the kernel; the protocol:
//
//   - q.hoWait counts the GetWait calls registered for a hand-over minus the bits
//     promised to them. A GetWait registers (hoWait+1) and then retries Get, so that
//     a bit freed before it registered is not missed; a Clear that frees a bit
//     normally checks hoWait afterwards (feedHandOff). Sequentially consistent
//     atomics make at least one of the two see the other (as PrepareWait and Clear
//     do, case R07).
//   - A Clear promises its bit by decrementing hoWait while it is positive, and then
//     sends the bit on q.hoCh. The bit stays set in the bitmap throughout: it changes
//     owner without ever being free.
//   - A registered GetWait receives one bit from q.hoCh, or leaves by decrementing
//     hoWait while it is positive. If hoWait is 0 when it wants to leave, every
//     registered call, itself included, has a bit promised and on its way, so it
//     takes one (success wins; see leaveHandOff).
//   - A received bit at or past the depth (a shrinking Resize came between the promise
//     and the receipt) is freed, not returned, and the call registers again: the
//     receiver may not be the call the bit was promised to, and may have begun after
//     the Resize.
//
// hoCh's buffer holds the promised bits that no receiver took yet; a receiver asleep
// in the channel gets a bit directly from the Clear, with one wake-up and no search.

// hoChanCap bounds the hand-over channel's buffer (the number of promised bits in
// flight before a Clear waits for a receiver to take one); it is min(Capacity(),
// hoChanCap).
const hoChanCap = 4096

// getWaitHandOff is GetWait in hand-off mode once it has to wait.
func (q *Queue) getWaitHandOff(ctx context.Context, hint *uint32) (int, error) {
	for {
		q.hoWait.Add(1)
		if !q.sb.full() {
			if nr := q.sb.Get(hint); nr >= 0 {
				if b, ok := q.leaveHandOff(); ok {
					q.Clear(b, nil) // promised to us as well: pass it on
				}
				return nr, nil
			}
		}
		var b int32
		if done := ctx.Done(); done == nil {
			b = <-q.hoCh
		} else {
			select {
			case b = <-q.hoCh:
			case <-done:
				if b, ok := q.leaveHandOff(); ok {
					if q.belowDepth(b) {
						return b, nil // a bit was promised before we could leave: success wins
					}
					q.Clear(b, nil)
				}
				if nr := q.sb.Get(hint); nr >= 0 {
					return nr, nil
				}
				return -1, ctx.Err()
			}
		}
		if q.belowDepth(int(b)) {
			return int(b), nil
		}
		// The bit was promised before a shrinking Resize left it at or past the depth,
		// and this call may have begun after that Resize: returning it would hand out a
		// bit the depth excludes. Free it (a bit past the depth is not handed on) and
		// wait again.
		q.Clear(int(b), nil)
	}
}

// belowDepth reports whether bit lies below the depth in effect now (the instant a
// received hand-over takes effect).
func (q *Queue) belowDepth(bit int) bool { return uint32(bit) < q.sb.depth.Load() }

// leaveHandOff unregisters a GetWait from the hand-over. It returns (-1, false) if
// it left; or a bit and true if it could not leave because a bit is promised to each
// registered call: it then waits for one (the promising Clear is between its
// decrement and its send, or the bit is already in the channel's buffer) and
// returns it.
func (q *Queue) leaveHandOff() (int, bool) {
	for {
		if n := q.hoWait.Load(); n > 0 && q.hoWait.CompareAndSwap(n, n-1) {
			return -1, false
		}
		select {
		case b := <-q.hoCh:
			return int(b), true
		default:
			runtime.Gosched()
		}
	}
}

// handOffBit promises bit, which the caller holds, to a registered GetWait and sends
// it on. It reports false, changing nothing, if none is registered or bit lies at or
// past the depth (a bit held across a shrinking Resize is freed, not handed on); it
// panics as Clear does if bit is not held.
func (q *Queue) handOffBit(bit int) bool {
	if !q.sb.held(bit) {
		q.sb.panicFree("Clear", bit)
	}
	if uint32(bit) >= q.sb.depth.Load() {
		return false
	}
	for {
		n := q.hoWait.Load()
		if n <= 0 {
			return false
		}
		if q.hoWait.CompareAndSwap(n, n-1) {
			break
		}
	}
	q.hoCh <- int32(bit)
	return true
}

// feedHandOff hands free bits to registered GetWait calls until none is registered
// or no bit is free. It runs after bits were freed in hand-off mode (Clear's normal
// free, ClearBatch, a growing Resize) and found a GetWait registered: one that
// registered after the free and whose retry Get ran before it would otherwise sleep
// with a bit free.
func (q *Queue) feedHandOff() {
	var h uint32
	for q.hoWait.Load() > 0 {
		b := q.sb.Get(&h)
		if b < 0 {
			return
		}
		if !q.handOffBit(b) {
			// Nobody left to take it: free it again.
			if !q.sb.tryFree(b) {
				q.sb.panicFree("Clear", b)
			}
			q.WakeUp(1)
		}
	}
}
