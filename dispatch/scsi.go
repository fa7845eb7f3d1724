package dispatch

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// Blocked-counter defaults (drivers/scsi/scsi_lib.c, include/scsi/scsi_device.h):
// refused attempts after an LLD busy return.
const (
	maxDeviceBlocked = 3 // SCSI_DEFAULT_DEVICE_BLOCKED
	maxHostBlocked   = 7 // SCSI_DEFAULT_HOST_BLOCKED
)

// scsiDevice is the budget and restart state of one struct scsi_device. The budget is
// counted (scsi_device_busy = weight of the v5.13+ budget map, or device_busy before);
// the token value does not matter to dispatch.
type scsiDevice struct {
	queueDepth    int
	busy          int // budget held
	restarts      int // sdev->restarts (v5.10+)
	deviceBlocked int
}

func (s *scsiDevice) init(queueDepth int) { s.queueDepth = queueDepth }

// devQueueReady is scsi_dev_queue_ready: take a budget unit unless the LUN is full or
// counting down its blocked state.
func (s *scsiDevice) devQueueReady() bool {
	if s.busy >= s.queueDepth {
		return false
	}
	if s.deviceBlocked > 0 {
		if s.busy > 0 {
			return false
		}
		s.deviceBlocked--
		if s.deviceBlocked > 0 {
			return false
		}
	}
	s.busy++
	return true
}

// getBudget is scsi_mq_get_budget issued from cpu: on failure count a restart (v5.10+)
// and, if the LUN has nothing in flight and is not blocked, delay-run all hctxs 3 ms.
func (q *Queue) getBudget(cpu int) bool {
	if q.sdev.devQueueReady() {
		return true
	}
	q.stats.BudgetFailures++
	if q.opts.SCSIRestart == RestartCounter {
		q.sdev.restarts++
		if q.sdev.busy == 0 && q.sdev.deviceBlocked == 0 {
			q.delayRunHwQueues(cpu)
		}
	}
	return false
}

// putBudget is scsi_mq_put_budget (budget returned without a command sent).
func (q *Queue) putBudget() { q.sdev.busy-- }

// queueStatus is the blk_status_t answer of queue_rq.
type queueStatus uint8

const (
	stsOK queueStatus = iota
	stsResource
	stsDevResource
)

// queueRq is scsi_queue_rq with the budget already held: host readiness, then the LLD
// (the device model). A refusal sets the blocked counter, puts the budget and answers
// RESOURCE, or DEV_RESOURCE per Options.DevResource (case R16).
func (q *Queue) queueRq(rq *Request) queueStatus {
	h := q.host
	if h.hostBlocked > 0 {
		if h.hostBusy > 0 {
			return q.refuse(rq)
		}
		h.hostBlocked--
		if h.hostBlocked > 0 {
			return q.refuse(rq)
		}
	}
	cmd := &rq.cmd
	*cmd = device.Command{Op: rq.Op, Offset: rq.Offset, Length: rq.Length, Sync: rq.Sync, Done: q, Priv: rq}
	switch q.cfg.Device.Submit(cmd) {
	case device.Accepted:
		h.hostBusy++
		rq.dispatched = true
		for b := rq.bios; b != nil; b = b.next {
			b.IssuedAt = cmd.Submitted
		}
		q.stats.Dispatched++
		rq.hctx.stats.Dispatched++
		return stsOK
	case device.Busy:
		q.sdev.deviceBlocked = maxDeviceBlocked
	default:
		h.hostBlocked = maxHostBlocked
	}
	return q.refuse(rq)
}

// refuse undoes the budget of a command not sent and maps the status.
func (q *Queue) refuse(rq *Request) queueStatus {
	q.putBudget()
	if q.opts.DevResource == DevResourceIfBusy && q.sdev.busy > 0 {
		return stsDevResource
	}
	return stsResource
}

// Complete receives a command completion from the device (scsi_done →
// scsi_finish_command → scsi_end_request): unbusy the LUN and host and reset blocked
// counters, end the bios, free the request (tags, SCHED_RESTART), then
// scsi_run_queue_async.
func (q *Queue) Complete(cmd *device.Command, now sim.Time) {
	rq := cmd.Priv.(*Request)
	h := q.host
	q.sdev.busy--
	h.hostBusy--
	h.hostBlocked = 0
	q.sdev.deviceBlocked = 0
	cpu := rq.ctx.cpu
	q.endBios(rq, now)
	q.freeRequest(rq)
	q.runQueueAsync(cpu)
}

// runQueueAsync is scsi_run_queue_async: re-run the LUN's hctxs if a budget failure
// was recorded (v5.10+), or always (before).
func (q *Queue) runQueueAsync(cpu int) {
	if q.opts.SCSIRestart == RestartCounter {
		if q.sdev.restarts == 0 {
			return
		}
		q.sdev.restarts = 0
	}
	q.stats.CompletionRerun++
	q.runHwQueues(cpu, true)
}

// endBios completes every bio of rq (blk_update_request).
func (q *Queue) endBios(rq *Request, now sim.Time) {
	q.stats.Completed++
	for b := rq.bios; b != nil; {
		next := b.next
		b.next = nil
		b.End.EndBio(b, now, nil)
		b = next
	}
	rq.bios, rq.biosTail = nil, nil
}
