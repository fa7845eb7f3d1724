package tagset

import "fmt"

// TagBusy models blk_mq_tag_busy / __blk_mq_tag_busy: on a TAG_QUEUE_SHARED set,
// the hctx (or, with shared tags, its request queue) becomes an active user the
// first time it allocates a driver tag: active_queues is incremented and both
// bitmaps' wake batch recalculated for the new user count (unless
// Options.NoWakeBatchRecalc), under the tags lock. It is a no-op otherwise. The
// allocation functions of this package call it; callers rarely need to.
func (h *Hctx) TagBusy() {
	s := h.queue().set
	if !s.queueShared.Load() {
		return
	}
	flag := &h.active
	if s.cfg.SharedTags() {
		flag = &h.q.active
	}
	if flag.Load() || !flag.CompareAndSwap(false, true) {
		return
	}
	h.tags.changeUsers(+1, s.cfg.Options)
}

// raceWindow, when set (tests only), runs between the user-count change and
// the wake-batch store of the unlocked (pre-fix) transition.
var raceWindow func()

// changeUsers adds delta to active_queues and recalculates the wake batch for
// the new count: under the tags lock (current), or unlocked
// (Options.UnlockedWakeBatchUpdate).
func (t *Tags) changeUsers(delta int32, opt Options) {
	if opt.UnlockedWakeBatchUpdate {
		users := t.activeQueues.Add(delta)
		if raceWindow != nil {
			raceWindow()
		}
		if !opt.NoWakeBatchRecalc {
			t.updateWakeBatch(int(users))
		}
		return
	}
	t.mu.Lock()
	users := t.activeQueues.Add(delta)
	if !opt.NoWakeBatchRecalc {
		t.updateWakeBatch(int(users))
	}
	t.mu.Unlock()
}

// tagIdle models __blk_mq_tag_idle: the user stops counting, the wake batch is
// recalculated, and every waiter of the tags is woken.
func (h *Hctx) tagIdle() {
	s := h.q.set
	flag := &h.active
	if s.cfg.SharedTags() {
		flag = &h.q.active
	}
	if !flag.CompareAndSwap(true, false) {
		return
	}
	h.tags.changeUsers(-1, s.cfg.Options)
	h.tags.WakeAll()
}

// MaxRqTimeout is the largest request timeout SetRqTimeout accepts (ns): 1000 s.
const MaxRqTimeout int64 = 1e12

// SetRqTimeout models blk_queue_rq_timeout: ns becomes q->rq_timeout, the time
// from a request's start to its deadline (blk_add_timer), and so to the timeout
// work that may make the queue idle (TimeoutWork). 0 restores the tag set's
// Options.IdleDelay. Drivers set it at probe: null_blk's tag set has 5 s
// (null_init_tag_set), sd 30 s (SD_TIMEOUT, sd_probe). It returns an error for ns
// outside [0, MaxRqTimeout].
func (q *RequestQueue) SetRqTimeout(ns int64) error {
	if ns < 0 || ns > MaxRqTimeout {
		return fmt.Errorf("tagset: rq_timeout %d ns out of range [0, %d]", ns, MaxRqTimeout)
	}
	q.timerMu.Lock()
	q.rqTimeout = ns
	q.timerMu.Unlock()
	return nil
}

// timeoutLocked is q->rq_timeout (ns); q.timerMu held, q.set checked (tagSet)
// before the lock was taken, so a zero queue's panic does not leave it held.
func (q *RequestQueue) timeoutLocked() int64 {
	if q.rqTimeout > 0 {
		return q.rqTimeout
	}
	return q.set.cfg.Options.IdleDelay
}

// RqTimeout returns q->rq_timeout (ns): SetRqTimeout's value, else the tag set's
// Options.IdleDelay.
func (q *RequestQueue) RqTimeout() int64 {
	q.tagSet()
	q.timerMu.Lock()
	defer q.timerMu.Unlock()
	return q.timeoutLocked()
}

// ArmTimer arms the queue's timeout timer at exp (ns) unless it is already armed
// earlier (mod_timer as blk_add_timer uses it, for a caller that computed the
// expiry itself, e.g. rounded to the machine's clock).
func (q *RequestQueue) ArmTimer(exp int64) {
	q.timerMu.Lock()
	if q.timerAt < 0 || exp < q.timerAt {
		q.timerAt = exp
	}
	q.timerMu.Unlock()
}

// RequestStarted models blk_add_timer for a request started at now (ns): the
// queue's timeout timer is armed at now + rq_timeout (SetRqTimeout, else
// IdleDelay) unless it is already armed earlier. now may lie before the run's
// start (a request of the guest's setup, see dispatch.Queue.SetupRequest). (The
// kernel also rounds up to a whole second; not modelled.)
func (q *RequestQueue) RequestStarted(now int64) {
	q.tagSet()
	q.timerMu.Lock()
	exp := now + q.timeoutLocked()
	if q.timerAt < 0 || exp < q.timerAt {
		q.timerAt = exp
	}
	q.timerMu.Unlock()
}

// TimerExpiry returns when (ns) the caller should call TimeoutWork next, or −1
// if the timer is not armed.
func (q *RequestQueue) TimerExpiry() int64 {
	q.timerMu.Lock()
	defer q.timerMu.Unlock()
	return q.timerAt
}

// TimeoutWork models blk_mq_timeout_work run at now (ns), the only path (besides
// queue removal) that makes a queue idle for fair sharing. pending is the number
// of the queue's requests still in flight. If pending > 0 the timer is re-armed
// at now + rq_timeout (the kernel re-arms at the earliest pending deadline,
// which this approximates) and false is returned; otherwise true is returned
// and, on a TAG_QUEUE_SHARED set, every hctx goes idle (__blk_mq_tag_idle:
// active_queues decremented, wake batch recalculated, all tag waiters woken —
// their callbacks may run synchronously).
func (q *RequestQueue) TimeoutWork(now int64, pending int) (idled bool) {
	s := q.tagSet()
	q.timerMu.Lock()
	q.timerAt = -1
	if pending > 0 {
		q.timerAt = now + q.timeoutLocked()
	}
	q.timerMu.Unlock()
	if pending > 0 {
		return false
	}
	if !s.queueShared.Load() {
		return true
	}
	for _, h := range q.hctxs {
		h.tagIdle()
	}
	return true
}
