package sbitmap

// WakeUp counts nr freed bits toward wake-ups and wakes waiters when a batch is due
// (sbitmap_queue_wake_up). It does nothing while no waiter is registered (WsActive
// is 0): such frees are not counted. Wake callbacks run synchronously with no lock
// held. Clear and ClearBatch call it; call it directly to pass a wake-up on, as
// blk_mq_get_tag does for the bitmap it left (case R02).
//
// WakeGlobal: the queue-wide completion count grows by nr; if it is at least
// wake_batch ahead of the wake-up count, the caller that advances the wake-up count by
// wake_batch wakes up to wake_batch exclusive waiters (see WakeWaiters). At most one
// batch is woken per call, as in the kernel.
//
// WakeCountdown: for each of the nr bits, the countdown of the first wait queue with
// waiters at or after wake_index is decremented; at zero it is reset to wake_batch,
// wake_index advances and up to wake_batch waiters of that queue are woken.
//
// Memory ordering: sequentially consistent; everything the caller did before WakeUp
// (such as freeing a bit) happens before the Wake callbacks it runs.
func (q *Queue) WakeUp(nr int) {
	if nr <= 0 || q.wsActive.Load() == 0 {
		return
	}
	if q.scheme == WakeCountdown {
		for range nr {
			for q.countdownWakeUp() {
			}
		}
		return
	}
	wb := q.wakeBatch.Load()
	q.completionCnt.Add(uint32(nr))
	wakeups := q.wakeupCnt.Load()
	for {
		if q.completionCnt.Load()-wakeups < wb {
			return
		}
		if q.wakeupCnt.CompareAndSwap(wakeups, wakeups+wb) {
			break
		}
		wakeups = q.wakeupCnt.Load()
	}
	q.WakeWaiters(int(wb))
}

// WakeWaiters wakes up to nr exclusive waiters now, without counting frees
// (__sbitmap_queue_wake_up): starting at wake_index, it advances the index before
// looking at each wait queue, wakes up to the remaining number there (plus every
// non-exclusive hook met), and moves on until nr are woken or all eight queues were
// visited; then it stores the advanced index. With WakeOneQueuePerBatch it stops at
// the first queue where anyone was woken (before 106397376c03). Returns the number of
// exclusive waiters woken. Does nothing if WsActive is 0. nr <= 0 wakes nothing.
func (q *Queue) WakeWaiters(nr int) int {
	if nr <= 0 || q.wsActive.Load() == 0 {
		return 0
	}
	start := q.wakeIndex.Load()
	idx := start
	total := 0
	for range WaitQueues {
		ws := &q.ws[idx]
		idx = (idx + 1) % WaitQueues
		if ws.length() == 0 {
			continue
		}
		woken := q.wakeUpNr(ws, nr)
		total += woken
		if q.oneQueueBatch {
			if woken > 0 {
				break
			}
			continue
		}
		if woken == nr {
			break
		}
		nr -= woken
	}
	if idx != q.wakeIndex.Load() {
		q.wakeIndex.Store(idx)
	}
	return total
}

// countdownWakeUp is one step of the countdown scheme (__sbq_wake_up, ~v5.x text). It
// reports whether the caller lost a race on the countdown and must retry.
func (q *Queue) countdownWakeUp() bool {
	ws := q.wakePtr()
	if ws == nil {
		return false
	}
	cnt := ws.waitCnt.Add(-1)
	if cnt > 0 {
		return false
	}
	wb := q.wakeBatch.Load()
	if !ws.waitCnt.CompareAndSwap(cnt, int32(wb)) {
		return true
	}
	q.advanceWakeIndex()
	q.wakeUpNr(ws, int(wb))
	return false
}

// wakePtr returns the first wait queue with waiters at or after wake_index and stores
// its index as wake_index (sbq_wake_ptr); nil if no queue has waiters.
func (q *Queue) wakePtr() *waitState {
	if q.wsActive.Load() == 0 {
		return nil
	}
	idx := q.wakeIndex.Load()
	for range WaitQueues {
		ws := &q.ws[idx]
		if ws.length() > 0 {
			if idx != q.wakeIndex.Load() {
				q.wakeIndex.Store(idx)
			}
			return ws
		}
		idx = (idx + 1) % WaitQueues
	}
	return nil
}

// advanceWakeIndex moves wake_index on by one unless someone else already moved it
// (sbq_index_atomic_inc).
func (q *Queue) advanceWakeIndex() {
	old := q.wakeIndex.Load()
	q.wakeIndex.CompareAndSwap(old, (old+1)%WaitQueues)
}

// WakeAll wakes, on each of the eight wait queues starting at wake_index, every
// non-exclusive hook and one exclusive waiter (sbitmap_queue_wake_all, which uses
// wake_up on each queue). Used on tag idle, depth change and teardown. Does nothing if
// WsActive is 0 (Chengming Zhou's check). Wake callbacks run with no lock held.
func (q *Queue) WakeAll() {
	if q.wsActive.Load() == 0 {
		return
	}
	idx := q.wakeIndex.Load()
	for range WaitQueues {
		ws := &q.ws[idx]
		if ws.length() > 0 {
			q.wakeUpNr(ws, 1)
		}
		idx = (idx + 1) % WaitQueues
	}
}

// WaitCnt returns wait queue wsIndex's countdown (ws->wait_cnt, countdown scheme
// only; meaningless under WakeGlobal). 0 if wsIndex is outside [0, 8).
func (q *Queue) WaitCnt(wsIndex int) int {
	if wsIndex < 0 || wsIndex >= WaitQueues {
		return 0
	}
	return int(q.ws[wsIndex].waitCnt.Load())
}
