package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// WaitState names where a submitted bio is, or what keeps it there, for watchdog and
// hang reports. The kernel shows the same facts per hctx in debugfs
// (block/blk-mq-debugfs.c: "dispatch", "busy", "tags", "sched_tags", "state") and
// per device in sysfs (scsi device_busy, host_busy).
type WaitState uint8

const (
	// WaitNone: the bio is not in the block layer (not yet submitted, queued for an
	// io-wq worker, or completed).
	WaitNone WaitState = iota
	// WaitSchedTag: the submitting task sleeps in blk_mq_get_tag on the scheduler tags.
	WaitSchedTag
	// WaitDriverTag: the submitting task sleeps in blk_mq_get_tag on the driver tags (no
	// elevator), or a queued request cannot get a driver tag (blk_mq_get_driver_tag).
	WaitDriverTag
	// WaitBudget: the LUN's budget is all in use or the device is blocked
	// (scsi_mq_get_budget fails).
	WaitBudget
	// WaitHost: host_busy has reached can_queue, or the host is blocked
	// (scsi_host_queue_ready fails).
	WaitHost
	// WaitDevice: accepted by the device (queuecommand returned 0), not completed.
	WaitDevice
	// WaitDispatchList: parked on hctx->dispatch with budget, tags and host free.
	WaitDispatchList
	// WaitElevator: queued in the elevator.
	WaitElevator
	// WaitCtx: queued in a per-CPU software queue (blk_mq_ctx rq_list).
	WaitCtx
	// WaitPlug: held in the submitting task's plug (struct blk_plug).
	WaitPlug
)

// String returns the state's name: "none", "sched-tag", "driver-tag", "budget",
// "host", "device", "dispatch-list", "elevator", "ctx", "plug".
func (s WaitState) String() string {
	switch s {
	case WaitNone:
		return "none"
	case WaitSchedTag:
		return "sched-tag"
	case WaitDriverTag:
		return "driver-tag"
	case WaitBudget:
		return "budget"
	case WaitHost:
		return "host"
	case WaitDevice:
		return "device"
	case WaitDispatchList:
		return "dispatch-list"
	case WaitElevator:
		return "elevator"
	case WaitCtx:
		return "ctx"
	case WaitPlug:
		return "plug"
	}
	return fmt.Sprintf("WaitState(%d)", uint8(s))
}

// BioWait is a snapshot of where one bio waits and of the resources on its path.
type BioWait struct {
	// For is what the bio waits for: In, or the exhausted resource (budget, driver
	// tag, host) that keeps a queued request from being dispatched.
	For WaitState
	// In is where the bio is: asleep in blk_mq_get_tag (WaitSchedTag, WaitDriverTag),
	// WaitPlug, WaitCtx, WaitElevator, WaitDispatchList or WaitDevice; WaitNone when
	// it is not in the block layer.
	In WaitState
	// Since is the model time (ns) of the bio's last step in the block layer: its
	// request allocated or bio merged, first entry into hctx->dispatch, issue to the
	// device; 0 when it has none yet.
	Since sim.Time
	// Hctx is the hardware queue of the request (or of the tag sleep), CPU the
	// submitting CPU (its ctx); -1 when unknown.
	Hctx, CPU int
	// Tag and SchedTag are the request's driver and scheduler tags, -1 when none.
	Tag, SchedTag int
	// TagsBusy/NrTags are the driver tags held on the hctx and their number.
	TagsBusy, NrTags int
	// BudgetBusy/QueueDepth are the LUN's budget in use (scsi_device_busy) and its
	// queue_depth; DeviceBlocked is device_blocked (all 0 for a driver without
	// budget, such as null_blk).
	BudgetBusy, QueueDepth, DeviceBlocked int
	// HostBusy/CanQueue are host_busy and can_queue; HostBlocked is host_blocked (0
	// for a driver without a SCSI host).
	HostBusy, CanQueue, HostBlocked int
	// DeviceInFlight is the number of commands the device model holds.
	DeviceInFlight int
	// RunPending tells whether a run of the hctx (kblockd work) is scheduled.
	RunPending bool
}

// BioWait reports where b, submitted to q with SubmitBio and not yet completed, waits
// and for what. It scans q's lists (O(queued requests)): meant for hang reports, not
// for every event. A bio that q does not hold gives In == WaitNone.
func (q *Queue) BioWait(b *Bio) BioWait {
	b = splitWait(b) // a split I/O waits where its oldest part does
	w := BioWait{Hctx: -1, CPU: -1, Tag: noTag, SchedTag: noTag}
	if dw, ok := q.cfg.Ops.(DriverWaiter); ok {
		d := dw.DriverWait()
		w.BudgetBusy, w.QueueDepth, w.DeviceBlocked = d.BudgetBusy, d.QueueDepth, d.DeviceBlocked
		w.HostBusy, w.CanQueue, w.HostBlocked = d.HostBusy, d.CanQueue, d.HostBlocked
		w.DeviceInFlight = d.DeviceInFlight
	}
	rq := b.rq
	if rq == nil || rq.q != q {
		if tw := b.waiter; tw != nil && tw.sleeping && tw.bio == b && tw.q == q {
			w.In = WaitDriverTag
			if q.elevator != nil {
				w.In = WaitSchedTag
			}
			w.For, w.CPU, w.Since = w.In, tw.alloc.CPU, b.AllocatedAt
			w.fillHctx(q.hctxs[tw.alloc.Hctx.Index()])
		}
		return w
	}
	h := rq.hctx
	w.fillHctx(h)
	w.CPU, w.Tag, w.SchedTag = rq.ctx.cpu, rq.tag, rq.internalTag
	w.Since = max(rq.allocTime, rq.listTime, b.AllocatedAt)
	switch {
	case rq.dispatched:
		w.In, w.Since = WaitDevice, max(w.Since, b.IssuedAt)
	case rq.plugged:
		w.In = WaitPlug
	case h.dispatch.contains(rq):
		w.In = WaitDispatchList
	case q.elevator != nil:
		w.In = WaitElevator
	default:
		w.In = WaitCtx
	}
	w.For = w.In
	if w.In == WaitDevice || w.In == WaitPlug {
		return w
	}
	// the checks of the dispatch path, in its order: budget, driver tag, host
	switch {
	case w.QueueDepth > 0 && w.BudgetBusy >= w.QueueDepth || w.DeviceBlocked > 0:
		w.For = WaitBudget
	case rq.tag == noTag && w.TagsBusy >= w.NrTags:
		w.For = WaitDriverTag
	case w.CanQueue > 0 && w.HostBusy >= w.CanQueue || w.HostBlocked > 0:
		w.For = WaitHost
	}
	return w
}

// fillHctx records h's index, driver-tag use and run state.
func (w *BioWait) fillHctx(h *Hctx) {
	w.Hctx, w.RunPending = h.index, h.runWork.pending
	w.TagsBusy, w.NrTags = h.th.Tags().Busy(), h.th.Tags().NrTags()
}

// contains reports whether r is on l (O(len)).
func (l *rqList) contains(r *Request) bool {
	for x := l.head; x != nil; x = x.next {
		if x == r {
			return true
		}
	}
	return false
}
