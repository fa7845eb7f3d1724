package dispatch

import "github.com/blkmq/blkmq/sim"

// timeoutWork is the request queue's timeout timer and blk_mq_timeout_work: armed by
// started requests (blk_add_timer, tagset.RequestQueue.RequestStarted), it is the only
// path that marks the queue's hctxs idle for fair sharing, and only when no started
// request is left (§3.6). With a single request queue on the host it changes nothing.
type timeoutWork struct {
	q   *Queue
	id  sim.EventID
	at  sim.Time
	set bool
}

// requestStarted is blk_mq_start_request's timer part.
func (w *timeoutWork) requestStarted(now sim.Time) {
	w.q.tq.RequestStarted(int64(now))
	w.arm()
}

// arm schedules the timer at the tag set's expiry unless already due no later.
func (w *timeoutWork) arm() {
	exp := w.q.tq.TimerExpiry()
	if exp < 0 {
		return
	}
	t := sim.Time(exp)
	if w.set && w.at <= t {
		return
	}
	if w.set {
		w.q.eng.Cancel(w.id)
	}
	w.set, w.at = true, t
	w.id = w.q.eng.At(t, w)
}

// Fire runs blk_mq_timeout_work: started requests still in flight re-arm the timer;
// none makes the queue idle (waking all tag waiters on a shared set).
func (w *timeoutWork) Fire(now sim.Time) {
	w.set = false
	w.q.host.onCPU(0)
	st := &w.q.stats
	pending := int(st.Dispatched - st.Completed)
	if !w.q.tq.TimeoutWork(int64(now), pending) {
		w.arm()
	}
}
