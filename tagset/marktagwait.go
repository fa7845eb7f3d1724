package tagset

import "github.com/blkmq/blkmq/sbitmap"

// TagWaitResult is the outcome of Hctx.MarkTagWait.
type TagWaitResult int

const (
	// TagWaitGot: the retry obtained a driver tag (returned with it).
	TagWaitGot TagWaitResult = iota
	// TagWaitRestart: tags are not shared; the caller must mark the hctx
	// SCHED_RESTART (any completion on it reruns it). The retry failed.
	TagWaitRestart
	// TagWaitHooked: the hctx's dispatch_wait hook is queued on the tag bitmap;
	// a freed tag removes it and calls OnTagWake. The retry failed.
	TagWaitHooked
	// TagWaitAlreadyHooked: the hook was already queued by an earlier failure;
	// nothing was done (the kernel returns false without retrying).
	TagWaitAlreadyHooked
)

// MarkTagWait models blk_mq_mark_tag_wait after a failed driver-tag allocation
// at dispatch. Without queue-shared or host-wide tags it asks the caller to set
// SCHED_RESTART (the kernel sets it before retrying; in a single-threaded caller
// the order is immaterial) and retries once. Otherwise it hooks the hctx's
// non-exclusive dispatch_wait entry onto the wait queue chosen by bt_wait_ptr
// of the normal (or, for a reserved request, reserved) driver bitmap — one hook
// per hctx — then retries once; if that succeeds the hook is removed again.
// It returns the tag (−1 unless TagWaitGot) and the outcome.
func (h *Hctx) MarkTagWait(cpu int, reserved bool) (tag int, res TagWaitResult) {
	s := h.queue().set
	if !s.queueShared.Load() && !s.cfg.SharedTags() {
		if tag = h.GetDriverTag(cpu, reserved); tag >= 0 {
			return tag, TagWaitGot
		}
		return -1, TagWaitRestart
	}
	bt := h.tags.bt(reserved)
	if bt == nil {
		return -1, TagWaitRestart
	}
	// hctx->dispatch_wait_lock: one registration at a time per hctx.
	h.hookMu.Lock()
	defer h.hookMu.Unlock()
	if h.dispatchWait.Queued() {
		return -1, TagWaitAlreadyHooked
	}
	if h.hookedOn != nil && h.hookedOn != bt {
		h.dispatchWait = sbitmap.Waiter{Wake: h.dispatchWake}
	}
	h.hookedOn = bt
	if !bt.AddWaitHook(&h.dispatchWait, h.btWaitIndex()) {
		return -1, TagWaitAlreadyHooked
	}
	if tag = h.GetDriverTag(cpu, reserved); tag >= 0 {
		bt.RemoveWaitHook(&h.dispatchWait)
		return tag, TagWaitGot
	}
	return -1, TagWaitHooked
}

// DispatchWaitQueued reports whether the hctx's dispatch_wait hook is still
// queued (list_empty_careful(&hctx->dispatch_wait.entry) is false). Dispatch
// uses it after putting requests back on the dispatch list: a hook that is no
// longer queued fired in the meantime, so the hctx must be rerun now
// (eb619fdb2d4c, case R09).
func (h *Hctx) DispatchWaitQueued() bool { return h.dispatchWait.Queued() }

// dispatchWake models blk_mq_dispatch_wake (the hook was already removed by the
// Queue): ask for an asynchronous run of the hctx.
func (h *Hctx) dispatchWake(*sbitmap.Waiter) {
	if f := h.OnTagWake; f != nil {
		f(h)
	}
}
