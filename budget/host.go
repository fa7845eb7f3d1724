package budget

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// HostConfig describes a SCSI host (struct Scsi_Host and its template).
type HostConfig struct {
	// CanQueue is shost->can_queue, the host's command limit and the tag-set
	// queue_depth; range [1, MaxCanQueue].
	CanQueue int
	// NrHwQueues is the tag set's nr_hw_queues (shost->nr_hw_queues ?: 1);
	// range [1, MaxHwQueues].
	NrHwQueues int
	// HostTagset is shost->host_tagset (host-wide tags, BLK_MQ_F_TAG_HCTX_SHARED).
	HostTagset bool
	// NeedsBudgetToken is set for hosts that need a real budget token for other
	// reasons (libata); it keeps the budget map under Options.BudgetMapSkip.
	NeedsBudgetToken bool
	// MaxHostBlocked, MaxTargetBlocked and MaxDeviceBlocked are the blocked
	// countdown lengths; 0 selects the kernel defaults 7, 3 and 3. Range [0, 1000].
	MaxHostBlocked, MaxTargetBlocked, MaxDeviceBlocked int
	// Options selects kernel eras; the zero value is the current kernel.
	Options Options
}

// Host models struct Scsi_Host's admission state: host_busy (commands in flight),
// host_blocked, host_self_blocked and the starved list. Create it with NewHost.
type Host struct {
	cfg HostConfig

	hostBusy    atomic.Int32 // commands past scsi_host_queue_ready
	hostBlocked atomic.Int32
	selfBlocked atomic.Bool

	mu      sync.Mutex // host_lock: starved list, starget_sdev_user
	starved []*Device
	devices []*Device
	nextID  int
}

// NewHost validates cfg and returns a Host. Errors name the field and its range:
// can_queue, nr_hw_queues, max_*_blocked.
func NewHost(cfg HostConfig) (*Host, error) {
	if cfg.CanQueue < 1 || cfg.CanQueue > MaxCanQueue {
		return nil, fmt.Errorf("budget: can_queue %d out of range [1, %d]", cfg.CanQueue, MaxCanQueue)
	}
	if cfg.NrHwQueues < 1 || cfg.NrHwQueues > MaxHwQueues {
		return nil, fmt.Errorf("budget: nr_hw_queues %d out of range [1, %d]", cfg.NrHwQueues, MaxHwQueues)
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"max_host_blocked", &cfg.MaxHostBlocked, DefaultMaxHostBlocked},
		{"max_target_blocked", &cfg.MaxTargetBlocked, DefaultMaxTargetBlocked},
		{"max_device_blocked", &cfg.MaxDeviceBlocked, DefaultMaxDeviceBlocked},
	} {
		if *f.v < 0 || *f.v > 1000 {
			return nil, fmt.Errorf("budget: %s %d out of range [0, 1000]", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return &Host{cfg: cfg}, nil
}

// Config returns the host's configuration with defaults filled in.
func (h *Host) Config() HostConfig { return h.cfg }

// CanQueue returns shost->can_queue.
func (h *Host) CanQueue() int { return h.cfg.CanQueue }

// Busy returns the number of commands in flight on the host (scsi_host_busy;
// host_busy before v5.5).
func (h *Host) Busy() int { return int(h.hostBusy.Load()) }

// Blocked returns the host_blocked countdown.
func (h *Host) Blocked() int { return int(h.hostBlocked.Load()) }

// SetSelfBlocked models scsi_block_requests / scsi_unblock_requests
// (host_self_blocked). Unblocking does not run queues; the caller does.
func (h *Host) SetSelfBlocked(b bool) { h.selfBlocked.Store(b) }

// IsBusy models scsi_host_is_busy, consulted by the starved-list run: the host
// is blocked or self-blocked, or (Options.HostBusyCheck, pre-v5.5) host_busy has
// reached can_queue.
func (h *Host) IsBusy() bool {
	if h.cfg.Options.HostBusyCheck && h.hostBusy.Load() >= int32(h.cfg.CanQueue) {
		return true
	}
	return h.hostBlocked.Load() > 0 || h.selfBlocked.Load()
}

// Starved returns a copy of the starved list, head first
// (shost->starved_list).
func (h *Host) Starved() []*Device {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Device(nil), h.starved...)
}

// HasStarved reports whether the starved list is non-empty.
func (h *Host) HasStarved() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.starved) > 0
}

// Devices returns the host's devices in creation order.
func (h *Host) Devices() []*Device {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Device(nil), h.devices...)
}

// starvedAddTail appends d unless it is already listed (list_add_tail after a
// list_empty check). Caller holds h.mu.
func (h *Host) starvedAddTail(d *Device) {
	if !d.onStarved {
		h.starved = append(h.starved, d)
		d.onStarved = true
	}
}

// starvedMoveTail moves d to the tail (list_move_tail). Caller holds h.mu.
func (h *Host) starvedMoveTail(d *Device) {
	h.starvedDel(d)
	h.starved = append(h.starved, d)
	d.onStarved = true
}

// starvedDel removes d from whichever starved list holds it — the host's, or
// the local list of a starved-list run in progress (list_del_init). Caller
// holds h.mu.
func (h *Host) starvedDel(d *Device) {
	if !d.onStarved {
		return
	}
	if r := d.starvedRun; r != nil {
		r.local = removeDevice(r.local, d)
		d.starvedRun = nil
	} else {
		h.starved = removeDevice(h.starved, d)
	}
	d.onStarved = false
}

func removeDevice(list []*Device, d *Device) []*Device {
	for i, x := range list {
		if x == d {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// hostQueueReady models scsi_host_queue_ready for device d. On success the
// command counts as in flight on the host and d leaves the starved list.
func (h *Host) hostQueueReady(d *Device) bool {
	var busy int32
	if h.cfg.Options.HostBusyCheck {
		busy = h.hostBusy.Add(1) - 1
	} else {
		busy = h.hostBusy.Load()
	}
	undo := func() {
		if h.cfg.Options.HostBusyCheck {
			h.hostBusy.Add(-1)
		}
	}
	starved := func() bool {
		h.mu.Lock()
		h.starvedAddTail(d)
		h.mu.Unlock()
		undo()
		return false
	}
	if h.hostBlocked.Load() > 0 {
		if busy > 0 {
			return starved()
		}
		if h.hostBlocked.Add(-1) > 0 {
			undo()
			return false
		}
	}
	if h.cfg.Options.HostBusyCheck && busy >= int32(h.cfg.CanQueue) {
		return starved()
	}
	if h.selfBlocked.Load() {
		return starved()
	}
	h.mu.Lock()
	h.starvedDel(d)
	h.mu.Unlock()
	if !h.cfg.Options.HostBusyCheck {
		h.hostBusy.Add(1)
	}
	return true
}

// decHostBusy models scsi_dec_host_busy.
func (h *Host) decHostBusy() {
	if h.hostBusy.Add(-1) < 0 {
		panic("budget: host_busy went negative (Unbusy without a successful Prepare)")
	}
}
