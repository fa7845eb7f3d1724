package budget

import (
	"fmt"
	"sync/atomic"
)

// Target models struct scsi_target's limits: can_queue (≤ 0 = unlimited),
// target_busy, target_blocked and single_lun.
type Target struct {
	host      *Host
	canQueue  int
	singleLUN bool
	busy      atomic.Int32
	blocked   atomic.Int32
	sdevUser  *Device // starget_sdev_user, under host.mu
	devices   []*Device
}

// NewTarget adds a target to h. canQueue ≤ 0 means no target limit (the
// kernel's default); otherwise range [1, MaxCanQueue]. singleLUN models
// starget->single_lun (one LUN of the target may have commands at a time).
func (h *Host) NewTarget(canQueue int, singleLUN bool) (*Target, error) {
	if h.cfg.CanQueue == 0 {
		return nil, errZeroHost
	}
	if canQueue > MaxCanQueue {
		return nil, fmt.Errorf("budget: target can_queue %d out of range [0, %d]", canQueue, MaxCanQueue)
	}
	return &Target{host: h, canQueue: max(canQueue, 0), singleLUN: singleLUN}, nil
}

// CanQueue returns starget->can_queue (0 = unlimited).
func (t *Target) CanQueue() int { return t.canQueue }

// Busy returns target_busy.
func (t *Target) Busy() int { return int(t.busy.Load()) }

// Blocked returns the target_blocked countdown.
func (t *Target) Blocked() int { return int(t.blocked.Load()) }

// IsBusy models scsi_target_is_busy: with a limit, target_busy has reached
// can_queue or the target is blocked.
func (t *Target) IsBusy() bool {
	if t.canQueue <= 0 {
		return false
	}
	return t.busy.Load() >= int32(t.canQueue) || t.blocked.Load() > 0
}

// targetQueueReady models scsi_target_queue_ready for device d.
func (t *Target) targetQueueReady(d *Device) bool {
	h := t.host
	if t.singleLUN {
		h.mu.Lock()
		if t.sdevUser != nil && t.sdevUser != d {
			h.mu.Unlock()
			return false
		}
		t.sdevUser = d
		h.mu.Unlock()
	}
	if t.canQueue <= 0 {
		t.readyReorder(d)
		return true
	}
	busy := t.busy.Add(1) - 1
	if t.blocked.Load() > 0 {
		if busy > 0 {
			return t.starved(d)
		}
		if t.blocked.Add(-1) > 0 {
			t.busy.Add(-1)
			return false
		}
	}
	if busy >= int32(t.canQueue) {
		return t.starved(d)
	}
	t.readyReorder(d)
	return true
}

// readyReorder applies the pre-466c08c71a7d rule: a target check that passes
// takes the LUN off the starved list before the host check.
func (t *Target) readyReorder(d *Device) {
	if !t.host.cfg.Options.StarvedReorderOnAttempt {
		return
	}
	t.host.mu.Lock()
	t.host.starvedDel(d)
	t.host.mu.Unlock()
}

func (t *Target) starved(d *Device) bool {
	h := t.host
	h.mu.Lock()
	if h.cfg.Options.StarvedReorderOnAttempt {
		h.starvedAddTail(d)
	} else {
		h.starvedMoveTail(d)
	}
	h.mu.Unlock()
	t.busy.Add(-1)
	return false
}

// decTargetBusy models the target half of scsi_device_unbusy.
func (t *Target) decTargetBusy() {
	if t.canQueue > 0 {
		t.busy.Add(-1)
	}
}
