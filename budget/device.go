package budget

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/blkmq/blkmq/sbitmap"
)

// Device models struct scsi_device's budget state: queue_depth, the budget map
// (v5.13+) or device_busy counter (v4.15–v5.12), device_blocked, the blocked
// state and the restarts counter (v5.10+). Create it with Host.NewDevice: the zero
// Device belongs to no host, so ChangeQueueDepth returns an error naming
// Host.NewDevice and the admission methods panic so.
//
// GetBudget, PutBudget and Unbusy are safe for concurrent use; each goroutine or
// simulated CPU passes its own allocation hint (see InitHint).
type Device struct {
	host   *Host
	target *Target
	id     int

	queueDepth   atomic.Int32
	budgetMap    *sbitmap.Sbitmap // nil: counter era or skipped map
	held         atomic.Int32     // budget-map bits held (taken by GetBudget, not yet put)
	heldHigh     atomic.Int32     // of those, bits at or above queue_depth (after a shrink)
	deviceBusy   atomic.Int32     // device_busy (counter era)
	blocked      atomic.Int32     // device_blocked countdown
	blockedState atomic.Bool      // SDEV_BLOCK (scsi_device_blocked)
	restarts     atomic.Int32     // sdev->restarts

	onStarved  bool      // on a starved list (list entry non-empty), under host.mu
	starvedRun *QueueRun // non-nil: on that run's local list, under host.mu

	// BusyFunc, when the budget map is skipped (Options.BudgetMapSkip), returns
	// the number of this LUN's requests holding driver tags; the kernel counts
	// them by iterating the tag set (scsi_device_busy). nil counts 0. Set it
	// before use; it is not synchronised.
	BusyFunc func() int
}

// errZeroHost is NewTarget's and NewDevice's error on a zero Host; zeroDeviceMsg
// the zero Device's panic (and ChangeQueueDepth's error).
var errZeroHost = errors.New("budget: zero Host: make one with NewHost")

const zeroDeviceMsg = "budget: zero Device: make one with Host.NewDevice"

// made panics on a zero Device.
func (d *Device) made() {
	if d.host == nil {
		panic(zeroDeviceMsg)
	}
}

// NewDevice adds a LUN on target t (which must belong to h) with initial
// queue_depth queueDepth (cmd_per_lun at scan), range [1, MaxQueueDepth]. The
// effective queue_depth is min(queueDepth, scsi_device_max_queue_depth) =
// min(queueDepth, can_queue, MaxQueueDepth), as scsi_change_queue_depth clamps.
//
// In the budget-map era (default) a budget map is created as
// scsi_realloc_sdev_budget_map does: capacity scsi_device_max_queue_depth, word
// shift chosen from queueDepth, resized to the queue_depth — unless
// Options.BudgetMapSkip is set and NeedsBudgetMap(queueDepth) is false.
func (h *Host) NewDevice(t *Target, queueDepth int) (*Device, error) {
	if h.cfg.CanQueue == 0 {
		return nil, errZeroHost
	}
	if t == nil || t.host != h {
		return nil, fmt.Errorf("budget: target does not belong to this host")
	}
	if queueDepth < 1 || queueDepth > MaxQueueDepth {
		return nil, fmt.Errorf("budget: queue_depth %d out of range [1, %d]", queueDepth, MaxQueueDepth)
	}
	d := &Device{host: h, target: t}
	if !h.cfg.Options.DeviceBusyCounter && (!h.cfg.Options.BudgetMapSkip || h.NeedsBudgetMap(queueDepth)) {
		shift := sbitmap.ShiftOf(queueDepth)
		if shift == 0 {
			shift = sbitmap.ShiftZero
		}
		m, err := sbitmap.New(h.maxDeviceQueueDepth(), sbitmap.Options{Shift: shift})
		if err != nil {
			return nil, fmt.Errorf("budget: budget map: %w", err)
		}
		d.budgetMap = m
	}
	d.setQueueDepth(queueDepth)
	h.mu.Lock()
	d.id = h.nextID
	h.nextID++
	h.devices = append(h.devices, d)
	t.devices = append(t.devices, d)
	h.mu.Unlock()
	return d, nil
}

// NeedsBudgetMap models scsi_needs_budget_map of the budget-map-skip proposal
// (seed 003): true if the host needs budget tokens anyway; else, with host-wide
// tags or a single hardware queue, true only when depth < can_queue; otherwise
// true.
func (h *Host) NeedsBudgetMap(depth int) bool {
	if h.cfg.NeedsBudgetToken {
		return true
	}
	if h.cfg.HostTagset || h.cfg.NrHwQueues == 1 {
		return depth < h.cfg.CanQueue
	}
	return true
}

// maxDeviceQueueDepth models scsi_device_max_queue_depth.
func (h *Host) maxDeviceQueueDepth() int { return min(h.cfg.CanQueue, MaxQueueDepth) }

// ID returns the device's index on its host (creation order).
func (d *Device) ID() int { return d.id }

// String returns "sdevN".
func (d *Device) String() string { return fmt.Sprintf("sdev%d", d.id) }

// Target returns the device's target.
func (d *Device) Target() *Target { return d.target }

// Host returns the device's host.
func (d *Device) Host() *Host { return d.host }

// QueueDepth returns sdev->queue_depth.
func (d *Device) QueueDepth() int { return int(d.queueDepth.Load()) }

// HasBudgetMap reports whether the device has a budget map (false in the
// device_busy era and when the map was skipped).
func (d *Device) HasBudgetMap() bool { return d.budgetMap != nil }

// InitHint returns a starting allocation hint for one CPU or goroutine, derived
// from seed (the kernel randomises each CPU's alloc_hint). Any value works; 0 is
// fine for the counter era and the skipped map.
func (d *Device) InitHint(seed uint64) uint32 {
	if d.budgetMap == nil {
		return 0
	}
	return d.budgetMap.InitHint(seed)
}

// ChangeQueueDepth models scsi_change_queue_depth: depth is clamped to
// scsi_device_max_queue_depth, stored, and the budget map (if any) resized
// without reallocation. With a skipped map only queue_depth changes. It returns
// the new queue_depth, or an error naming the field if depth < 1.
func (d *Device) ChangeQueueDepth(depth int) (int, error) {
	if d.host == nil {
		return 0, errors.New(zeroDeviceMsg)
	}
	if depth < 1 {
		return d.QueueDepth(), fmt.Errorf("budget: queue_depth %d out of range [1, %d]", depth, MaxQueueDepth)
	}
	d.setQueueDepth(depth)
	return d.QueueDepth(), nil
}

func (d *Device) setQueueDepth(depth int) {
	depth = min(depth, d.host.maxDeviceQueueDepth())
	d.queueDepth.Store(int32(depth))
	if d.budgetMap != nil {
		// Count the held bits the new depth leaves above it, for mapBusy (rare:
		// queue_depth changes while commands are in flight): widen the map to its
		// capacity to see them, then resize. Not atomic with concurrent gets and puts.
		var high int32
		if capacity := d.host.maxDeviceQueueDepth(); d.held.Load() > 0 && depth < capacity {
			if err := d.budgetMap.Resize(capacity); err != nil {
				panic("budget: budget map resize: " + err.Error())
			}
			d.budgetMap.ForEachSet(depth, func(bit int) bool {
				if bit < depth {
					return false // wrapped past the end
				}
				high++
				return true
			})
		}
		if err := d.budgetMap.Resize(depth); err != nil {
			panic("budget: budget map resize: " + err.Error()) // depth ≤ capacity by construction
		}
		d.heldHigh.Store(high)
	}
}

// Busy models scsi_device_busy: the weight of the budget map, device_busy in
// the counter era, or BusyFunc with a skipped map.
func (d *Device) Busy() int {
	switch {
	case d.budgetMap != nil:
		return int(d.mapBusy())
	case d.host.cfg.Options.DeviceBusyCounter:
		return int(d.deviceBusy.Load())
	case d.BusyFunc != nil:
		return d.BusyFunc()
	}
	return 0
}

// IsBusy models scsi_device_is_busy: busy ≥ queue_depth or device_blocked > 0.
func (d *Device) IsBusy() bool {
	return d.Busy() >= d.QueueDepth() || d.blocked.Load() > 0
}

// Blocked returns the device_blocked countdown.
func (d *Device) Blocked() int { return int(d.blocked.Load()) }

// SetBlockedState models scsi_internal_device_block / unblock: the device state
// SDEV_BLOCK that scsi_device_blocked reports.
func (d *Device) SetBlockedState(b bool) { d.blockedState.Store(b) }

// Restarts returns sdev->restarts: budget failures not yet answered by a rerun.
func (d *Device) Restarts() int { return int(d.restarts.Load()) }
