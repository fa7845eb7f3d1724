package dispatch

import "github.com/blkmq/blkmq/sbitmap"

// The wait side of a tag bitmap as lines and locks (CPUCosts.SbqWakeLines, opt-in).
// struct sbitmap_queue keeps ws_active and wake_index on its own line (after the
// struct sbitmap it embeds), separate from the bitmap words; the wait queues are an
// array of struct sbq_wait_state, each ____cacheline_aligned_in_smp with its wait_cnt
// and its wait_queue_head (lock and list).

// sbqLine names a sbitmap_queue's own line (ws_active, wake_index), distinct from
// its bitmap words' lines, which are keyed by the *sbitmap.Queue itself.
type sbqLine struct{ bt *sbitmap.Queue }

// sbqWaitState names one sbq_wait_state of a bitmap: its wait_cnt line and its wait
// queue's lock.
type sbqWaitState struct {
	bt *sbitmap.Queue
	ws int
}

const (
	atomSbq        = "sbitmap_queue ws_active / wake_index"
	atomSbqWaitCnt = "sbq_wait_state wait_cnt"
	lockSbqWait    = "sbq_wait_state wait.lock"
)

// sbqListHold is the hold (ns) of a wait-queue lock section that links or unlinks
// one entry (prepare_to_wait_exclusive: list_add_tail and set_current_state under
// spin_lock_irqsave). Assumed: a few loads and stores on lines the section moves with
// the lock, plus the irqsave/restore pair, ~20 ns.
const sbqListHold = 20

// chargeSbqPut is sbitmap_queue_clear's sbitmap_queue_wake_up on bt by the current
// CPU: atomic_read(&sbq->ws_active) and, while tasks wait, sbq_wake_ptr's read of
// wake_index and the cmpxchg of the woken wait state's wait_cnt (6.1 __sbq_wake_up).
func (h *Host) chargeSbqPut(bt *sbitmap.Queue) {
	if !h.cpu.c.SbqWakeLines || h.cpu.c.Uncontended {
		return
	}
	h.load(atomSbq, sbqLine{bt}, 0)
	if bt.WsActive() == 0 {
		return
	}
	h.rmw(atomSbqWaitCnt, sbqWaitState{bt, bt.WakeIndex()}, 0)
}

// chargeSbqSleep is sbitmap_prepare_to_wait by a task going to sleep on wait queue ws
// of bt: atomic_inc(&sbq->ws_active), then prepare_to_wait_exclusive under the wait
// queue's lock.
func (h *Host) chargeSbqSleep(bt *sbitmap.Queue, ws int) {
	if !h.cpu.c.SbqWakeLines || h.cpu.c.Uncontended || bt == nil {
		return
	}
	h.rmw(atomSbq, sbqLine{bt}, 0)
	h.spinLock(lockSbqWait, sbqWaitState{bt, ws}, sbqListHold, 0)
}

// chargeSbqFinish is sbitmap_finish_wait by a woken task: finish_wait finds its entry
// already unlinked by autoremove_wake_function (no lock), and atomic_dec of ws_active.
func (h *Host) chargeSbqFinish(bt *sbitmap.Queue) {
	if !h.cpu.c.SbqWakeLines || h.cpu.c.Uncontended || bt == nil {
		return
	}
	h.rmw(atomSbq, sbqLine{bt}, 0)
}

// chargeSbqWake charges the waker's try_to_wake_up of one task waiting on ws of bt:
// with SbqWakeLines it runs inside wake_up_nr's section under the wait queue's lock
// (__wake_up_common calls the wake function with the lock held), so Wakeup is that
// section's hold; otherwise it is Wakeup alone, as before.
func (h *Host) chargeSbqWake(bt *sbitmap.Queue, ws int) {
	if !h.cpu.c.SbqWakeLines || h.cpu.c.Uncontended || bt == nil {
		h.charge(h.cpu.c.Wakeup)
		return
	}
	h.spinLock(lockSbqWait, sbqWaitState{bt, ws}, h.cpu.c.Wakeup, 0)
}
