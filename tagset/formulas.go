package tagset

// Kernel constants used by the formulas below.
const (
	// BlkdevDefaultRQ is BLKDEV_DEFAULT_RQ (formerly BLKDEV_MAX_RQ): 128 requests.
	BlkdevDefaultRQ = 128
	// MaxSchedRQ is MAX_SCHED_RQ = 16 × BLKDEV_DEFAULT_RQ: the largest nr_requests
	// with an elevator (block/blk-mq-sched.h).
	MaxSchedRQ = 16 * BlkdevDefaultRQ
	// MaxDepth is BLK_MQ_MAX_DEPTH (include/linux/blk-mq.h): the largest tag-set
	// queue_depth, 10240.
	MaxDepth = 10240
	// MaxHwQueues bounds nr_hw_queues accepted by New (the kernel bounds it by
	// nr_cpu_ids; this library uses a fixed generous limit).
	MaxHwQueues = 4096
	// MaxCPUs bounds Config.NrCPUs (per-CPU allocation hints).
	MaxCPUs = 4096
	// FairShareFloor is the minimum per-user depth of hctx_may_queue: 4 tags.
	FairShareFloor = 4
)

// FairShareDepth returns the per-user tag limit of hctx_may_queue
// (block/blk-mq.h): max(ceil(depth/users), 4). users ≤ 0 returns depth (no
// sharing). The depth-1 bypass is not applied here; see MayQueue.
func FairShareDepth(depth, users int) int {
	if users <= 0 {
		return depth
	}
	return max((depth+users-1)/users, FairShareFloor)
}

// DefaultNrRequests returns the default q->nr_requests (block/blk-mq.c,
// blk_mq_default_nr_requests, and elevator init): 2 × min(queueDepth, 128) when
// an elevator is attached (since ~v4.14, Ming Lei), else queueDepth. Without
// host-wide tags the value applies per hctx.
func DefaultNrRequests(queueDepth int, elevator bool) int {
	if !elevator {
		return queueDepth
	}
	return 2 * min(queueDepth, BlkdevDefaultRQ)
}

// DefaultElevator reports whether a new request queue gets mq-deadline by
// default (block/elevator.c, elevator_get_default / elv_support_iosched): when
// the set has one hardware queue or shared (host-wide) tags; otherwise "none".
// (The shared-tags condition is present by v5.16; originally only
// nr_hw_queues == 1 counted.) Drivers that set BLK_MQ_F_NO_SCHED_BY_DEFAULT get
// none regardless; pass that as noSchedByDefault.
func DefaultElevator(nrHwQueues int, sharedTags, noSchedByDefault bool) bool {
	if noSchedByDefault {
		return false
	}
	return nrHwQueues == 1 || sharedTags
}
