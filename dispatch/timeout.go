package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

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
	t := max(sim.Time(exp), w.q.eng.Now()) // a setup request's timer may be overdue
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

// SetRqTimeout models blk_queue_rq_timeout: d is the queue's rq_timeout, the time
// from a request's start to its deadline and so to the timeout work that may make
// the queue idle (tagset.RequestQueue.SetRqTimeout). 0 restores the tag set's
// default (tagset.Options.IdleDelay, 30 s). It returns an error for d outside
// [0, tagset.MaxRqTimeout].
func (q *Queue) SetRqTimeout(d sim.Time) error {
	if err := q.tq.SetRqTimeout(int64(d)); err != nil {
		return fmt.Errorf("dispatch: lun %d: %w", q.id, err)
	}
	return nil
}

// SetupRequest models the state a request of the machine's setup leaves behind: one
// issued from cpu at time at (ns, at most the engine's now, and negative for I/O
// before the run started) and completed before the run, such as add_disk's partition
// scan of a new disk. Allocating it on cpu's hctx made that hctx an active user of
// its tag set (blk_mq_tag_busy, a no-op unless the set is shared by several queues
// at that moment), and starting it armed the queue's timeout timer (blk_add_timer)
// at at + rq_timeout, rounded up to a whole second of the machine's clock
// (round_jiffies_up), which read clock0 at the engine's time 0 (the guest's uptime;
// negative = do not round). The request itself is gone: nothing is counted in
// QueueStats. The hctx stays active until the timeout work finds none of the queue's
// requests in flight (timeoutWork.Fire). It returns an error for a cpu outside [0,
// NrCPUs) or an at after now.
func (q *Queue) SetupRequest(cpu int, at, clock0 sim.Time) error {
	if cpu < 0 || cpu >= len(q.ctxs) {
		return fmt.Errorf("dispatch: lun %d: setup request cpu %d out of range [0, %d)", q.id, cpu, len(q.ctxs))
	}
	if now := q.eng.Now(); at > now {
		return fmt.Errorf("dispatch: lun %d: setup request at %v after now %v", q.id, at, now)
	}
	q.HctxOf(cpu).th.TagBusy()
	exp := at + sim.Time(q.tq.RqTimeout())
	if clock0 >= 0 {
		c := exp + clock0
		if r := c % sim.Second; r != 0 {
			c += sim.Second - r
		}
		exp = c - clock0
	}
	q.tq.ArmTimer(int64(exp))
	q.timeout.arm()
	return nil
}
