package budget

import "time"

// Kernel constants.
const (
	// QueueDelay is SCSI_QUEUE_DELAY: the 3 ms delayed queue rerun requested when
	// a budget get fails while nothing is in flight (scsi_mq_get_budget).
	QueueDelay = 3 * time.Millisecond
	// DefaultMaxHostBlocked is SCSI_DEFAULT_HOST_BLOCKED: refused attempts after
	// an LLD host-busy return (7).
	DefaultMaxHostBlocked = 7
	// DefaultMaxTargetBlocked is SCSI_DEFAULT_TARGET_BLOCKED (3).
	DefaultMaxTargetBlocked = 3
	// DefaultMaxDeviceBlocked is SCSI_DEFAULT_DEVICE_BLOCKED (3).
	DefaultMaxDeviceBlocked = 3
	// MaxQueueDepth is SCSI_MAX_QUEUE_DEPTH (10000): scsi_device_max_queue_depth
	// is min(can_queue, MaxQueueDepth).
	MaxQueueDepth = 10000
	// MaxCanQueue bounds HostConfig.CanQueue (the tag-set limit BLK_MQ_MAX_DEPTH).
	MaxCanQueue = 10240
	// MaxHwQueues bounds HostConfig.NrHwQueues.
	MaxHwQueues = 4096
	// NoMapToken is the budget token returned when the device has no budget map
	// (Options.BudgetMapSkip) or counts budget with device_busy
	// (Options.DeviceBusyCounter). It is never a budget-map bit.
	NoMapToken = 1<<31 - 1
)

// DevResourceRule selects when scsi_queue_rq turns BLK_STS_RESOURCE into
// BLK_STS_DEV_RESOURCE after a target/host/LLD refusal (§4.3 step 5). The
// device is "blocked" here in the sense of scsi_device_blocked: its state is
// SDEV_BLOCK or SDEV_CREATED_BLOCK (Device.SetBlockedState).
type DevResourceRule int

const (
	// DevResourceIfBlocked is the current rule (673235f91531, "scsi: core: fix
	// race between handling STS_RESOURCE and completion"): only a blocked device.
	DevResourceIfBlocked DevResourceRule = iota
	// DevResourceIfOtherBudget is the v5.13 budget-map text: another budget
	// token of the LUN is still held, or the device is blocked.
	DevResourceIfOtherBudget
	// DevResourceIfDeviceBusy is the pre-v5.13 text: device_busy > 0 after this
	// command's decrement, or the device is blocked.
	DevResourceIfDeviceBusy
)

// Options selects kernel eras. The zero value models the current kernel.
type Options struct {
	// HostBusyCheck restores the pre-v5.5 host_busy counter check in
	// scsi_host_queue_ready (before 6eb045e092ef, "scsi: core: avoid host-wide
	// host_busy counter for scsi_mq"): a command is refused and the LUN starved
	// when host_busy >= can_queue. Since v5.5 can_queue is enforced only by the
	// tag-set depth.
	HostBusyCheck bool
	// StarvedReorderOnAttempt models the behaviour before 466c08c71a7d ("[SCSI]
	// don't change sdev starvation list order without request dispatched"): a
	// successful target check removes the LUN from the starved list, so a host
	// refusal right after re-appends it at the tail and it loses its place.
	StarvedReorderOnAttempt bool
	// RestartEveryCompletion models the rule before ed5dd6a67d5e (v5.10, "scsi:
	// core: only re-run queue in scsi_end_request() if device queue is busy"):
	// every completion reruns the LUN's hardware queues, and a failed budget get
	// neither counts a restart nor arms the 3 ms delayed run.
	RestartEveryCompletion bool
	// DeviceBusyCounter models the v4.15–v5.12 budget: an atomic device_busy
	// counter instead of the budget_map sbitmap (v5.13+, Ming Lei).
	DeviceBusyCounter bool
	// BudgetMapSkip models the 2025 proposal "scsi: core: Improve IOPS in case of
	// host-wide tags" (Bart Van Assche; seed 003): no budget map is allocated when
	// scsi_needs_budget_map is false, and a budget get always succeeds. Off by
	// default because it is a proposal. Ignored with DeviceBusyCounter.
	BudgetMapSkip bool
	// DevResource selects the DEV_RESOURCE conversion era.
	DevResource DevResourceRule
}
