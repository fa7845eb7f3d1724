package budget

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Action is a queue-run decision that the kernel would carry out inside the
// modelled function; the caller (dispatch) acts on it. The zero value means
// "nothing to do".
type Action struct {
	// RunQueues asks for blk_mq_run_hw_queues(q, async=true) on the device's
	// request queue.
	RunQueues bool
	// Delay > 0 asks for blk_mq_delay_run_hw_queues(q, Delay) on the device's
	// request queue (hctxs whose delayed run is already pending are skipped).
	Delay time.Duration
	// Requeue asks for the device's requeue_work (scsi_requeue_run_queue):
	// later, from a worker, call Host.RunQueue(device) and run each device it
	// yields.
	Requeue bool
}

// Status is the subset of blk_status_t that scsi_queue_rq returns.
type Status int

const (
	// StatusOK is BLK_STS_OK: the command was handed to the driver.
	StatusOK Status = iota
	// StatusResource is BLK_STS_RESOURCE: no guarantee that anything reruns the
	// queue; blk-mq delay-runs it after 3 ms.
	StatusResource
	// StatusDevResource is BLK_STS_DEV_RESOURCE: a completion of this LUN is
	// expected to rerun the queue.
	StatusDevResource
)

// String returns the kernel name: "OK", "RESOURCE" or "DEV_RESOURCE".
func (s Status) String() string {
	switch s {
	case StatusOK:
		return "OK"
	case StatusResource:
		return "RESOURCE"
	case StatusDevResource:
		return "DEV_RESOURCE"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Reject is the low-level driver's queuecommand refusal (SCSI_MLQUEUE_*).
type Reject int

const (
	// HostBusy is SCSI_MLQUEUE_HOST_BUSY (also any unknown non-zero return):
	// host_blocked = max_host_blocked.
	HostBusy Reject = iota
	// DeviceBusy is SCSI_MLQUEUE_DEVICE_BUSY: device_blocked = max_device_blocked.
	DeviceBusy
	// EHRetry is SCSI_MLQUEUE_EH_RETRY: treated like DeviceBusy.
	EHRetry
	// TargetBusy is SCSI_MLQUEUE_TARGET_BUSY: target_blocked = max_target_blocked.
	TargetBusy
)

// GetBudget models scsi_mq_get_budget / scsi_dev_queue_ready. It returns a
// budget token ≥ 0 on success (a budget-map bit, or NoMapToken without a map)
// and -1 on failure.
//
// Success needs a free budget slot (map bit, or device_busy < queue_depth) and,
// while device_blocked > 0, no other command of the LUN in flight and the
// countdown reaching 0 with this attempt. With a skipped map (BudgetMapSkip) it
// always succeeds. On failure (v5.10+) restarts is incremented and, if the LUN
// has nothing in flight and is not blocked, the returned Action asks for a
// delayed run after QueueDelay (3 ms). With RestartEveryCompletion the failure
// returns no Action.
//
// hint is the caller's per-CPU allocation hint; it must not be shared between
// concurrent callers.
func (d *Device) GetBudget(hint *uint32) (token int, act Action) {
	d.made()
	token = d.devQueueReady(hint)
	if token >= 0 {
		return token, Action{}
	}
	if d.host.cfg.Options.RestartEveryCompletion {
		return -1, Action{}
	}
	d.restarts.Add(1)
	if d.Busy() == 0 && !d.blockedState.Load() {
		act.Delay = QueueDelay
	}
	return -1, act
}

// devQueueReady models scsi_dev_queue_ready in both eras.
func (d *Device) devQueueReady(hint *uint32) int {
	if d.budgetMap == nil && !d.host.cfg.Options.DeviceBusyCounter {
		return NoMapToken
	}
	if d.budgetMap == nil {
		return d.counterQueueReady()
	}
	if d.mapBusy() >= d.queueDepth.Load() {
		// Every bit below queue_depth is held: sbitmap_get's walk would visit every
		// word, find nothing (no deferred-cleared bit either: those count as free)
		// and reset the hint to 0. Same outcome, O(1).
		*hint = 0
		return -1
	}
	token := d.budgetMap.Get(hint)
	if token < 0 {
		return -1
	}
	d.held.Add(1)
	if d.blocked.Load() == 0 {
		return token
	}
	if d.mapBusy() > 1 || d.blocked.Add(-1) > 0 {
		d.putMap(token, hint)
		return -1
	}
	return token
}

// mapBusy is the budget map's weight (held bits below queue_depth) from the counters
// kept beside it, instead of a bit count over the map.
func (d *Device) mapBusy() int32 { return d.held.Load() - d.heldHigh.Load() }

// putMap frees a budget-map bit (sbitmap_put) and keeps the held counters.
func (d *Device) putMap(token int, hint *uint32) {
	if token >= int(d.queueDepth.Load()) {
		d.heldHigh.Add(-1)
	}
	d.held.Add(-1)
	d.budgetMap.Put(token, hint)
}

// counterQueueReady is the v4.15–v5.12 device_busy form.
func (d *Device) counterQueueReady() int {
	busy := d.deviceBusy.Add(1) - 1
	if d.blocked.Load() > 0 {
		if busy > 0 || d.blocked.Add(-1) > 0 {
			d.deviceBusy.Add(-1)
			return -1
		}
	}
	if busy >= d.queueDepth.Load() {
		d.deviceBusy.Add(-1)
		return -1
	}
	return NoMapToken
}

// PutBudget models scsi_mq_put_budget: the budget token from GetBudget is
// returned (budget-map bit freed, or device_busy decremented). It panics if
// token is negative. Returning budget without dispatching needs a queue rerun,
// which is blk-mq's concern (dispatch), not this function's.
func (d *Device) PutBudget(token int, hint *uint32) {
	d.made()
	if token < 0 {
		panic(fmt.Sprintf("budget: PutBudget of invalid token %d", token))
	}
	switch {
	case d.budgetMap != nil:
		d.putMap(token, hint)
	case d.host.cfg.Options.DeviceBusyCounter:
		if d.deviceBusy.Add(-1) < 0 {
			panic("budget: device_busy went negative (PutBudget without GetBudget)")
		}
	}
}

// Prepare models the admission part of scsi_queue_rq with budget already held:
// scsi_target_queue_ready, then scsi_host_queue_ready. On StatusOK the command
// counts against target and host until Unbusy (or DispatchFailed). On refusal
// the counters are undone, the budget token is put, the LUN may have joined the
// host's starved list, and the status is RESOURCE or DEV_RESOURCE according to
// Options.DevResource.
func (d *Device) Prepare(token int, hint *uint32) Status {
	d.made()
	if !d.target.targetQueueReady(d) {
		return d.refuse(token, hint)
	}
	if !d.host.hostQueueReady(d) {
		d.target.decTargetBusy()
		return d.refuse(token, hint)
	}
	return StatusOK
}

// DispatchFailed models scsi_queue_rq after the LLD's queuecommand refused a
// command that passed Prepare: scsi_set_blocked arms the countdown named by r,
// host and target busy are decremented, the budget token is put, and the
// RESOURCE/DEV_RESOURCE status is returned.
func (d *Device) DispatchFailed(r Reject, token int, hint *uint32) Status {
	d.made()
	cfg := d.host.cfg
	switch r {
	case DeviceBusy, EHRetry:
		d.blocked.Store(int32(cfg.MaxDeviceBlocked))
	case TargetBusy:
		d.target.blocked.Store(int32(cfg.MaxTargetBlocked))
	default:
		d.host.hostBlocked.Store(int32(cfg.MaxHostBlocked))
	}
	d.host.decHostBusy()
	d.target.decTargetBusy()
	return d.refuse(token, hint)
}

// refuse puts the budget and applies the DEV_RESOURCE conversion rule.
func (d *Device) refuse(token int, hint *uint32) Status {
	d.PutBudget(token, hint)
	blocked := d.blockedState.Load()
	switch d.host.cfg.Options.DevResource {
	case DevResourceIfOtherBudget, DevResourceIfDeviceBusy:
		if d.Busy() > 0 || blocked {
			return StatusDevResource
		}
	default:
		if blocked {
			return StatusDevResource
		}
	}
	return StatusResource
}

// Unbusy models scsi_device_unbusy at command completion: host_busy and
// target_busy are decremented, the budget token put. It does not run queues;
// call EndRequest after the request (and its tags) have been freed.
func (d *Device) Unbusy(token int, hint *uint32) {
	d.made()
	d.host.decHostBusy()
	d.target.decTargetBusy()
	d.PutBudget(token, hint)
}

// FinishCommand models the blocked-countdown reset of scsi_finish_command: a
// completed command proves the host, target and LUN accept commands again, so
// host_blocked, target_blocked and device_blocked are set to 0 when non-zero. Call it
// at each completion, after Unbusy and before EndRequest.
func (d *Device) FinishCommand() {
	d.made()
	for _, c := range []*atomic.Int32{&d.host.hostBlocked, &d.target.blocked, &d.blocked} {
		if c.Load() != 0 {
			c.Store(0)
		}
	}
}

// EndRequest models scsi_run_queue_async at the end of scsi_end_request: if
// the target is single-LUN or the host's starved list is non-empty, Requeue;
// else (v5.10+) RunQueues only if a budget failure was recorded since the last
// rerun (restarts reset to 0 by compare-and-swap). With
// RestartEveryCompletion every completion asks for RunQueues.
func (d *Device) EndRequest() Action {
	d.made()
	if d.target.singleLUN || d.host.HasStarved() {
		return Action{Requeue: true}
	}
	if d.host.cfg.Options.RestartEveryCompletion {
		return Action{RunQueues: true}
	}
	old := d.restarts.Load()
	if old != 0 && d.restarts.CompareAndSwap(old, 0) {
		return Action{RunQueues: true}
	}
	return Action{}
}
