package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// FreezeStats are the counters of a request queue's freezes (blk_mq_freeze_queue)
// made by sysfs stores during a run (Queue.StoreScheduler, Queue.StoreNrRequests).
// Times are model nanoseconds.
type FreezeStats struct {
	// Stores is the number of stores accepted (including the no-op ones).
	Stores uint64
	// Freezes is the number of stores that froze the queue (a store that changes
	// nothing returns before blk_mq_freeze_queue, as the kernel's do).
	Freezes uint64
	// ElevatorSwitches counts elevator_switch calls that completed, and
	// NrRequestsUpdates blk_mq_update_nr_requests calls that changed the depth.
	ElevatorSwitches, NrRequestsUpdates uint64
	// InFlightAtFreeze is the sum over freezes of the queue's usage when the freeze
	// began: requests allocated (in a plug's cache, queued, dispatched) and tasks
	// asleep in blk_mq_get_tag, the holders of q_usage_counter in this model.
	InFlightAtFreeze uint64
	// DrainTime is the total time from blk_mq_freeze_queue's start to the last
	// holder's exit (blk_mq_freeze_queue_wait returning); FrozenTime the total time
	// from the freeze's start to blk_mq_unfreeze_queue; MaxFrozen the longest one.
	DrainTime, FrozenTime, MaxFrozen sim.Time
	// EnterWaits counts submissions that slept in blk_queue_enter on a frozen queue
	// (woken at the unfreeze), and EnterNowait REQ_NOWAIT submissions refused with
	// -EAGAIN there instead (io_uring then punts them to io-wq).
	EnterWaits, EnterNowait uint64
}

// StoreOutcome is the result of one sysfs store, given to its callback when the
// store has returned.
type StoreOutcome struct {
	// Attr is "scheduler" or "nr_requests"; Value the value stored (nr_requests
	// after the raise to BLKDEV_MIN_RQ).
	Attr, Value string
	// Start is when the store began, End when it returned (after the unfreeze).
	Start, End sim.Time
	// Froze reports whether the queue was frozen; Drain is the time the freeze
	// waited for the requests in flight (0 without a freeze).
	Froze bool
	Drain sim.Time
	// Note says why a store changed nothing ("" when it did something).
	Note string
}

// freezeState is q_usage_counter and mq_freeze_depth of one request queue, with
// the queue's sysfs_lock (one store at a time, in arrival order).
type freezeState struct {
	usage   int // requests allocated + tasks asleep in blk_mq_get_tag
	frozen  bool
	since   sim.Time
	cur     *sysfsStore
	pending []*sysfsStore
	waiters []*enterWaiter
	drainEv bool // a drained event is scheduled
	stats   FreezeStats
}

// sysfsStore is one store waiting for or holding the queue's sysfs_lock.
type sysfsStore struct {
	q      *Queue
	attr   string
	name   string // scheduler: "none" or "mq-deadline"
	nr     int    // nr_requests
	done   func(StoreOutcome)
	start  sim.Time
	frozen sim.Time // when the freeze drained
}

// enterWaiter is a task asleep in blk_queue_enter (wait_event on mq_freeze_wq).
type enterWaiter struct {
	q    *Queue
	b    *Bio
	cpu  int
	tw   *TagWaiter
	plug *Plug
}

// FreezeStats returns the queue's freeze counters.
func (q *Queue) FreezeStats() FreezeStats { return q.frz.stats }

// Frozen reports whether the queue is frozen (mq_freeze_depth > 0): new
// submitters wait in blk_queue_enter.
func (q *Queue) Frozen() bool { return q.frz.frozen }

// StoreScheduler models writing name to /sys/block/X/queue/scheduler at the
// current model time (elv_iosched_store → elevator_change, 6.1): "none" detaches
// the elevator, "mq-deadline" attaches one (elevator_switch: freeze the queue —
// new submitters wait in blk_queue_enter until every request in flight has been
// freed —, quiesce, elevator_exit, blk_mq_init_sched, which resets nr_requests
// to 2·min(queue_depth, 128), or to queue_depth for none; unquiesce,
// unfreeze). Naming the current elevator returns at once without a freeze, as
// elevator_change does; on a tag set with BLK_MQ_F_NO_SCHED the store is
// accepted and ignored (elv_iosched_store returns count). Quiescing has no
// effect of its own here: once the freeze has drained nothing is left to
// dispatch. The writer's own CPU time is not charged.
//
// Stores on one queue run one after another (q->sysfs_lock). done, if non-nil,
// is called when the store returns. The error, returned at once, is the
// kernel's -EINVAL for a name other than "none" and "mq-deadline".
func (q *Queue) StoreScheduler(name string, done func(StoreOutcome)) error {
	if name != "none" && name != "mq-deadline" {
		return fmt.Errorf("dispatch: lun %d: scheduler %q: -EINVAL (elevator_change: no such elevator; allowed: \"none\", \"mq-deadline\")", q.id, name)
	}
	q.queueStore(&sysfsStore{q: q, attr: "scheduler", name: name, done: done})
	return nil
}

// StoreNrRequests models writing nr to /sys/block/X/queue/nr_requests at the
// current model time (queue_requests_store → blk_mq_update_nr_requests, 6.1):
// a value below BLKDEV_MIN_RQ (4) is raised to it; an unchanged value returns at
// once; otherwise the queue is frozen (the requests in flight drain first) and
// the scheduler tags are resized (with an elevator, up to MAX_SCHED_RQ) or the
// driver tags (without, up to the tag set's queue_depth; with host-wide tags the
// one bitmap every queue shares), the elevator told (depth_updated), then the
// queue unfrozen.
//
// The error, returned at once, is the kernel's -EINVAL for a value outside those
// bounds given the queue's elevator (blk_mq_tag_update_depth); a store queued
// behind another one is checked when it runs instead, and its refusal is then
// reported in its StoreOutcome.Note.
func (q *Queue) StoreNrRequests(nr int, done func(StoreOutcome)) error {
	nr = max(nr, tagset.BlkdevMinRQ)
	if q.frz.cur == nil { // else checked when it runs, after the stores before it
		if err := q.checkNrRequests(nr, q.elevator != nil); err != nil {
			return err
		}
	}
	q.queueStore(&sysfsStore{q: q, attr: "nr_requests", nr: nr, done: done})
	return nil
}

// NrRequestsBounds returns the range blk_mq_update_nr_requests accepts for
// nr_requests on this queue with or without an elevator: (reserved_tags,
// MAX_SCHED_RQ] with one, (reserved_tags, queue_depth] without, and never below
// BLKDEV_MIN_RQ (the sysfs store raises smaller values).
func (q *Queue) NrRequestsBounds(elevator bool) (lo, hi int) {
	hi = q.host.cfg.CanQueue
	if elevator {
		hi = tagset.MaxSchedRQ
	}
	return max(tagset.BlkdevMinRQ, q.host.ts.Config().ReservedTags+1), hi
}

func (q *Queue) checkNrRequests(nr int, elevator bool) error {
	lo, hi := q.NrRequestsBounds(elevator)
	if nr < lo || nr > hi {
		with := "without an elevator (driver tags, up to the tag set's queue_depth)"
		if elevator {
			with = "with an elevator (scheduler tags, up to MAX_SCHED_RQ)"
		}
		return fmt.Errorf("dispatch: lun %d: nr_requests %d: -EINVAL (blk_mq_tag_update_depth: out of range [%d, %d] %s)", q.id, nr, lo, hi, with)
	}
	return nil
}

// queueStore takes sysfs_lock for s, or queues s behind the store holding it.
func (q *Queue) queueStore(s *sysfsStore) {
	q.frz.stats.Stores++
	s.start = q.eng.Now()
	if q.frz.cur != nil {
		q.frz.pending = append(q.frz.pending, s)
		return
	}
	q.runStore(s)
}

// runStore runs s under sysfs_lock: the no-op checks, then the freeze.
func (q *Queue) runStore(s *sysfsStore) {
	q.frz.cur = s
	note := ""
	switch s.attr {
	case "scheduler":
		cur := q.ElevatorName()
		switch {
		case q.host.cfg.Flags&BlkMqFNoSched != 0:
			note = "ignored: the tag set has BLK_MQ_F_NO_SCHED (elv_iosched_store accepts the write and does nothing)"
		case cur == s.name:
			note = "no change: the queue already runs " + cur + " (elevator_change returns 0)"
		}
	case "nr_requests":
		if err := q.checkNrRequests(s.nr, q.elevator != nil); err != nil {
			note = "refused: " + err.Error()
		} else if s.nr == q.nrReq {
			note = "no change: nr_requests already " + fmt.Sprint(s.nr)
		}
	}
	if note != "" {
		q.endStore(s, false, note)
		return
	}
	q.freezeQueue()
}

// freezeQueue is blk_mq_freeze_queue: mark the queue frozen (blk_freeze_queue_start)
// and wait for its usage to drop to zero (blk_mq_freeze_queue_wait).
func (q *Queue) freezeQueue() {
	f := &q.frz
	f.frozen, f.since = true, q.eng.Now()
	f.stats.Freezes++
	f.stats.InFlightAtFreeze += uint64(f.usage)
	q.checkDrained()
}

// queueExit is blk_queue_exit: one holder of the queue's usage left.
func (q *Queue) queueExit() {
	q.frz.usage--
	if q.frz.frozen {
		q.checkDrained()
	}
}

// checkDrained schedules the frozen store's work once the usage is zero (an event
// at the current time: the last holder's exit runs inside a completion).
func (q *Queue) checkDrained() {
	f := &q.frz
	if !f.frozen || f.usage != 0 || f.drainEv || f.cur == nil {
		return
	}
	f.drainEv = true
	q.eng.At(q.eng.Now(), f.cur)
}

// Fire runs the store's work on the drained queue, then unfreezes it.
func (s *sysfsStore) Fire(now sim.Time) {
	q := s.q
	f := &q.frz
	f.drainEv = false
	if f.usage != 0 { // a holder came back before the event (cannot, while frozen)
		return
	}
	s.frozen = now
	f.stats.DrainTime += now - f.since
	note := ""
	switch s.attr {
	case "scheduler":
		if err := q.switchElevator(s.name); err != nil {
			note = "failed: " + err.Error()
		} else {
			f.stats.ElevatorSwitches++
		}
	case "nr_requests":
		if err := q.updateNrRequests(s.nr); err != nil {
			note = "failed: " + err.Error()
		} else {
			f.stats.NrRequestsUpdates++
		}
	}
	q.unfreezeQueue()
	q.endStore(s, true, note)
}

// switchElevator is elevator_switch on the drained queue: elevator_exit, then
// blk_mq_init_sched (or none).
func (q *Queue) switchElevator(name string) error {
	elv := name == "mq-deadline"
	if err := q.tq.SwitchElevator(elv); err != nil {
		return err
	}
	q.elevator = nil
	q.nrReq = q.tq.NrRequests()
	if elv {
		if q.cfg.NewElevator != nil {
			q.elevator = q.cfg.NewElevator(q)
		} else {
			q.elevator = NewMQDeadline(q)
		}
	}
	return nil
}

// updateNrRequests is blk_mq_update_nr_requests' work on the drained queue.
func (q *Queue) updateNrRequests(nr int) error {
	if err := q.tq.UpdateNrRequests(nr); err != nil {
		return err
	}
	q.nrReq = nr
	if q.elevator != nil {
		q.elevator.DepthUpdated(nr)
	}
	return nil
}

// unfreezeQueue is blk_mq_unfreeze_queue: the freeze ends and every task asleep in
// blk_queue_enter is woken (wake_up_all on mq_freeze_wq) and retries its
// submission after the wake-up latency.
func (q *Queue) unfreezeQueue() {
	f := &q.frz
	now := q.eng.Now()
	d := now - f.since
	f.stats.FrozenTime += d
	f.stats.MaxFrozen = max(f.stats.MaxFrozen, d)
	f.frozen = false
	ws := f.waiters
	f.waiters = nil
	for _, w := range ws {
		w.tw.wakerCPU = w.cpu
		if p, ok := w.tw.S.(WakePlacer); ok {
			p.Woken(w.cpu)
		}
		q.host.wakeTask(w.cpu, now+q.host.wakeupDelay(), w)
	}
}

// endStore releases sysfs_lock, reports s and starts the next store.
func (q *Queue) endStore(s *sysfsStore, froze bool, note string) {
	f := &q.frz
	out := StoreOutcome{Attr: s.attr, Value: s.name, Start: s.start, End: q.eng.Now(), Froze: froze, Note: note}
	if s.attr == "nr_requests" {
		out.Value = fmt.Sprint(s.nr)
	}
	if froze {
		out.Drain = s.frozen - s.start
	}
	f.cur = nil
	if s.done != nil {
		s.done(out)
	}
	if f.cur == nil && len(f.pending) > 0 {
		next := f.pending[0]
		f.pending = f.pending[1:]
		q.runStore(next)
	}
}

// enterFrozen is blk_queue_enter on a frozen queue: a REQ_NOWAIT bio gets
// -EAGAIN (WouldBlock); any other submitter flushes its plug (schedule) and sleeps
// until the unfreeze, then submits b again (Sleeping: its Sleeper is told
// Unblocked once b is merged or queued).
func (q *Queue) enterFrozen(b *Bio, cpu int, nowait bool, tw *TagWaiter, plug *Plug) SubmitResult {
	if nowait {
		q.frz.stats.EnterNowait++
		return WouldBlock
	}
	if tw == nil {
		panic("dispatch: blocking SubmitBio without a TagWaiter")
	}
	q.frz.stats.EnterWaits++
	if plug.Active() {
		q.host.onCPU(cpu)
		plug.flush(cpu, true) // io_schedule → blk_flush_plug(from_schedule)
		plug.releaseCached(cpu)
	}
	q.frz.waiters = append(q.frz.waiters, &enterWaiter{q: q, b: b, cpu: cpu, tw: tw, plug: plug})
	return Sleeping
}

// Fire runs the woken task: it submits its bio again (it may find the queue frozen
// again, or sleep for a tag) and, once the bio is merged or queued, returns from
// submit_bio.
func (w *enterWaiter) Fire(now sim.Time) {
	cpu := w.tw.S.WakeCPU(now)
	switch w.q.SubmitBioPlug(w.b, cpu, false, w.tw, w.plug) {
	case Sleeping, Deferred:
		return // told later (tag wait, another freeze, or the deferred submission)
	}
	w.tw.S.Unblocked(w.b, now)
}
