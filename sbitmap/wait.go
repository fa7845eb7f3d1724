package sbitmap

import (
	"fmt"
	"sync/atomic"
)

// Waiter is an entry on one of a Queue's wait queues: the model of a task's
// wait_queue_entry (struct sbq_wait) or of blk-mq's hctx dispatch_wait hook. When a
// wake-up selects it, the Queue removes it from its wait queue and then calls Wake,
// synchronously and with no lock of the Queue held, so Wake may call back into the
// Queue (for example to retry Get, or to PrepareWait again). A simulator's Wake
// typically schedules an event; GetWait's Wake signals a channel.
//
// A Waiter is used either with PrepareWait/FinishWait (an exclusive waiter: each wakes
// up one per wake-up slot, and stays counted in WsActive until FinishWait) or with
// AddWaitHook/RemoveWaitHook (a non-exclusive hook: woken with every wake-up of its
// wait queue without using a slot, and no longer counted once woken or removed); not
// both. A Waiter may wait on one Queue at a time (it may move to another once
// FinishWait or RemoveWaitHook returned, or its hook fired), must not be copied while
// queued, and its zero value plus a Wake function is ready to use. Wake must not be nil when
// the waiter can be woken. Once a wake-up has removed the waiter (Queued false,
// FinishWait returned false), do not queue it again until its Wake has been called:
// the waker calls Wake after releasing its locks.
type Waiter struct {
	// Wake is called once each time the waiter is woken; w is the waiter itself.
	Wake func(w *Waiter)

	q          *Queue
	state      atomic.Int32 // wait-queue index | queuedFlag (written under that list's lock)
	hook       bool         // non-exclusive hook (AddWaitHook)
	counted    bool         // exclusive waiter counted in ws_active (owner-only)
	prev, next *Waiter      // list links, guarded by the wait queue's lock
	wakeNext   *Waiter      // chain of waiters selected by one wake-up
}

// Queued reports whether the waiter is still on a wait queue (it has not been woken
// or removed). A Waiter that is not queued may still have a Wake call in progress.
func (w *Waiter) Queued() bool { return w.state.Load()&queuedFlag != 0 }

// WaitQueue returns the index in [0, 8) of the wait queue the waiter was last added
// to.
func (w *Waiter) WaitQueue() int { return int(w.state.Load() &^ queuedFlag) }

// queuedFlag marks, in Waiter.state, a waiter that is on the wait list whose index is
// in the low bits. Index and flag share one atomic so that queueing is one store.
const queuedFlag = 1 << 3

func checkWS(op string, wsIndex int) {
	if wsIndex < 0 || wsIndex >= WaitQueues {
		panic(fmt.Sprintf("sbitmap: %s on wait queue %d out of range [0, %d)", op, wsIndex, WaitQueues))
	}
}

// checkWake rejects, at registration, a waiter that could not be woken: nil, or
// without a Wake function (which would otherwise panic later inside another
// goroutine's Clear).
func checkWake(op string, w *Waiter) {
	if w == nil {
		panic("sbitmap: " + op + " of a nil Waiter")
	}
	if w.Wake == nil {
		panic("sbitmap: " + op + " of a Waiter with nil Wake")
	}
}

// bind attaches w to q. A waiter may move to another Queue once it is neither queued
// nor counted there (after FinishWait or RemoveWaitHook, or once woken as a hook).
func (q *Queue) bind(op string, w *Waiter) {
	if w.q != nil && w.q != q && (w.Queued() || w.counted) {
		panic(fmt.Sprintf("sbitmap: %s of a waiter still waiting on another Queue", op))
	}
	w.q = q
}

// PrepareWait registers w as an exclusive waiter on wait queue wsIndex: it is counted
// in WsActive (once, until FinishWait) and appended to the wait queue unless it is
// already queued. The caller then retries its allocation and, if that fails, waits
// for w.Wake. Models sbitmap_prepare_to_wait (prepare_to_wait_exclusive). Panics, at
// this call, if wsIndex is outside [0, 8), w is nil or has no Wake function
// ("sbitmap: PrepareWait of a Waiter with nil Wake"), or w still waits on another
// Queue. Never allocates. Memory
// ordering: sequentially consistent (the kernel's full barrier of set_current_state):
// a retry after PrepareWait and a Clear's check for waiters cannot both miss each
// other, so no wake-up is lost between registering and retrying (case R07).
func (q *Queue) PrepareWait(w *Waiter, wsIndex int) {
	checkWS("PrepareWait", wsIndex)
	checkWake("PrepareWait", w)
	q.bind("PrepareWait", w)
	if w.hook {
		panic("sbitmap: PrepareWait of a waiter used as a wait hook")
	}
	if !w.counted {
		w.counted = true
		q.wsActive.Add(1)
	}
	ws := &q.ws[wsIndex]
	ws.lock()
	if !w.Queued() {
		ws.pushLocked(w, wsIndex)
	}
	ws.unlock()
}

// FinishWait ends a wait begun with PrepareWait: it removes w from its wait queue if
// it is still there and drops it from WsActive. It reports whether w was still queued
// (true: it had not been woken; false: a wake-up removed it, and its Wake has been or
// is being called). Models sbitmap_finish_wait. Calling it again is harmless (it
// reports false). It panics if w was never registered on q with PrepareWait ("sbitmap:
// FinishWait of a Waiter never registered with PrepareWait"), is registered on
// another Queue, or is a wait hook. Memory ordering: a Wake that removed w happens
// before FinishWait returns false.
func (q *Queue) FinishWait(w *Waiter) bool {
	if w.q != q {
		if w.q == nil {
			panic("sbitmap: FinishWait of a Waiter never registered with PrepareWait")
		}
		panic("sbitmap: FinishWait of a Waiter registered on another Queue")
	}
	if w.hook {
		panic("sbitmap: FinishWait of a waiter used as a wait hook (use RemoveWaitHook)")
	}
	removed := q.dequeue(w)
	if w.counted {
		w.counted = false
		q.wsActive.Add(-1)
	}
	return removed
}

// AddWaitHook adds w as a non-exclusive hook on wait queue wsIndex and counts it in
// WsActive while it stays queued. It reports false, doing nothing, if w is already
// queued (one hook per hctx at a time). The hook is removed and uncounted when a
// wake-up reaches it, before its Wake runs (as blk_mq_dispatch_wake does). Models
// blk-mq's dispatch_wait registration in blk_mq_mark_tag_wait (sbitmap_add_wait_queue
// plus ws_active). Panics as PrepareWait does.
func (q *Queue) AddWaitHook(w *Waiter, wsIndex int) bool {
	checkWS("AddWaitHook", wsIndex)
	checkWake("AddWaitHook", w)
	q.bind("AddWaitHook", w)
	if w.counted {
		panic("sbitmap: AddWaitHook of a waiter used with PrepareWait")
	}
	ws := &q.ws[wsIndex]
	ws.lock()
	defer ws.unlock()
	if w.Queued() {
		return false
	}
	w.hook = true
	q.wsActive.Add(1)
	ws.pushLocked(w, wsIndex)
	return true
}

// RemoveWaitHook removes a hook added with AddWaitHook if it is still queued, and
// reports whether it was (sbitmap_del_wait_queue).
func (q *Queue) RemoveWaitHook(w *Waiter) bool {
	return q.dequeue(w)
}

// dequeue removes w from whichever wait queue holds it; it reports whether it did.
func (q *Queue) dequeue(w *Waiter) bool {
	for {
		st := w.state.Load()
		if st&queuedFlag == 0 {
			return false
		}
		ws := &q.ws[st&^queuedFlag]
		ws.lock()
		if w.state.Load() == st {
			q.unlinkLocked(ws, w)
			ws.unlock()
			return true
		}
		ws.unlock()
	}
}

// pushLocked appends w to ws, whose index is idx.
func (ws *waitState) pushLocked(w *Waiter, idx int) {
	w.prev, w.next = ws.tail, nil
	if ws.tail != nil {
		ws.tail.next = w
	} else {
		ws.head = w
	}
	ws.tail = w
	w.state.Store(int32(idx) | queuedFlag)
	ws.nr++
}

// unlinkLocked removes w from ws; a hook is uncounted from ws_active.
func (q *Queue) unlinkLocked(ws *waitState, w *Waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		ws.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		ws.tail = w.prev
	}
	w.prev, w.next = nil, nil
	w.state.Store(w.state.Load() &^ queuedFlag)
	ws.nr--
	if w.hook {
		q.wsActive.Add(-1)
	}
}

// wakeUpNr wakes waiters of ws in order: every non-exclusive hook met, and exclusive
// waiters until nr of them are woken (nr <= 0: all). It returns the number of
// exclusive waiters woken (wake_up_nr). Waiters are unlinked under the lock and their
// Wake callbacks run after it is released.
func (q *Queue) wakeUpNr(ws *waitState, nr int) int {
	var chain, last *Waiter
	woken := 0
	ws.lock()
	for w := ws.head; w != nil; {
		next := w.next
		q.unlinkLocked(ws, w)
		if last == nil {
			chain = w
		} else {
			last.wakeNext = w
		}
		last = w
		if !w.hook {
			woken++
			if woken == nr {
				break
			}
		}
		w = next
	}
	ws.unlock()
	for w := chain; w != nil; {
		next := w.wakeNext
		w.wakeNext = nil
		w.Wake(w)
		w = next
	}
	return woken
}

// WaitQueueLen returns the number of waiters queued on wait queue wsIndex (0 if
// wsIndex is outside [0, 8)).
func (q *Queue) WaitQueueLen(wsIndex int) int {
	if wsIndex < 0 || wsIndex >= WaitQueues {
		return 0
	}
	return q.ws[wsIndex].length()
}

// Waiting returns the number of waiters queued on all wait queues plus, with
// QueueOptions.HandOff, the GetWait calls waiting for a bit that no Clear has
// promised them yet.
func (q *Queue) Waiting() int {
	n := int(max(q.hoWait.Load(), 0))
	for i := range q.ws {
		n += q.ws[i].length()
	}
	return n
}

// NextWaitQueue returns a wait queue index chosen round-robin per Queue, the way
// bt_wait_ptr advances an hctx's wait_index; callers without an hctx of their own can
// use it to spread waiters over the eight queues.
func (q *Queue) NextWaitQueue() int {
	return int((q.waitIndex.Add(1) - 1) % WaitQueues)
}
