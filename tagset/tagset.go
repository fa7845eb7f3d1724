package tagset

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blkmq/blkmq/sbitmap"
)

// DefaultIdleDelay is the default Options.IdleDelay: 30 s in ns, the SCSI disk
// request timeout that paces blk_mq_timeout_work, the only path that marks a
// queue idle.
const DefaultIdleDelay int64 = 30e9

// Options selects kernel eras of the tag code. The zero value is the current
// kernel.
type Options struct {
	// IdleDelay is the time in ns from the last request start until the lazy
	// timeout scan may mark a queue idle (the request timeout); 0 selects
	// DefaultIdleDelay. Range [0, 1e12].
	IdleDelay int64
	// ReservedFairShare models the rule before 285008501c65 (v5.10, "blk-mq:
	// always allow reserved allocation in hctx_may_queue"): reserved driver-tag
	// allocations are also subject to the fair-share check (case R10, bad).
	ReservedFairShare bool
	// NoWakeBatchRecalc models the rule before 180dccb0dba4 (v5.17, "blk-mq: fix
	// tag_get wait task can't be awakened"): wake_batch is not recalculated when
	// active_queues changes (case R03, bad).
	NoWakeBatchRecalc bool
	// NoMigrationWakeup models blk_mq_get_tag before "blk-mq: avoid to starve tag
	// allocation after allocation process migrates" (Ming Lei, v4.18): a waiter
	// that retries on a different bitmap after waking does not pass a wake-up
	// back to the bitmap it left (case R02, bad).
	NoMigrationWakeup bool
	// UnlockedWakeBatchUpdate models the tag busy/idle transitions before Yu
	// Kuai's "blk-mq: fix potential io hang by wrong 'wake_batch'" (2023): the
	// user count is changed atomically but the wake batch is computed from it
	// and stored outside any lock, so two queues changing state at once can
	// leave a batch computed for a stale user count (case R03 (b), bad).
	UnlockedWakeBatchUpdate bool
	// PerHctxSchedTagsWithHostTags models host-wide tags before d97e594c5166 (John
	// Garry, v5.14, "blk-mq: Use request queue-wide tags for tagset-wide sbitmap"):
	// with an elevator each hctx still has its own scheduler tags of nr_requests,
	// so a queue holds nr_hw_queues × nr_requests scheduler tags in front of the one
	// driver-tag bitmap (the commit reports higher CPU use and lower throughput when
	// the driver depth is far below that total). Without host-wide tags it changes
	// nothing.
	PerHctxSchedTagsWithHostTags bool
	// NoFairSharing models Bart Van Assche's 2023 proposals for UFS ("block: Make fair
	// tag sharing configurable", linux-block, June 2023, and "block: Improve shared tag
	// set performance", Oct 2023): hctx_may_queue's fair-share limit is dropped, so a
	// queue of a TAG_QUEUE_SHARED set may take every driver tag, as the legacy block
	// layer allowed. Not merged: false (fair sharing) is the current kernel.
	NoFairSharing bool
}

// Config describes a tag set (struct blk_mq_tag_set).
type Config struct {
	// NrHwQueues is nr_hw_queues, range [1, MaxHwQueues].
	NrHwQueues int
	// QueueDepth is queue_depth (SCSI: can_queue), tags per blk_mq_tags
	// including reserved ones, range [1, MaxDepth].
	QueueDepth int
	// ReservedTags is reserved_tags, range [0, QueueDepth−1].
	ReservedTags int
	// HostTagset is BLK_MQ_F_TAG_HCTX_SHARED (SCSI host_tagset, v5.10): one
	// blk_mq_tags shared by all hardware queues.
	HostTagset bool
	// HctxShareTags is the storvsc RFC's name for the same sharing ("Add SCSI
	// per device tagsets", 2022): one blk_mq_tags for all hctxs of the set. With
	// the RFC's per_device_tag_set, create one TagSet per device.
	HctxShareTags bool
	// RoundRobin is BLK_MQ_F_TAG_RR: strictly increasing allocation order.
	RoundRobin bool
	// NrCPUs is the number of CPU indexes that may allocate (each owns an
	// allocation hint per bitmap), range [1, MaxCPUs]; 0 means 1.
	NrCPUs int
	// Seed derives the initial per-CPU allocation hints.
	Seed uint64
	// Queue carries sbitmap options for every tag bitmap (wake scheme, recalc
	// era, historical sbitmap bugs). Its Shift and RoundRobin are ignored.
	Queue sbitmap.QueueOptions
	// Options selects the tag code's kernel eras.
	Options Options
}

// SharedTags reports whether all hctxs share one blk_mq_tags (HostTagset or
// HctxShareTags): blk_mq_is_shared_tags.
func (c *Config) SharedTags() bool { return c.HostTagset || c.HctxShareTags }

// TagSet models struct blk_mq_tag_set: the driver tags and the request queues
// using them. Create it with New.
type TagSet struct {
	cfg         Config
	tags        []*Tags // per hctx, or one entry with shared tags
	mu          sync.Mutex
	queues      []*RequestQueue
	queueShared atomic.Bool // BLK_MQ_F_TAG_QUEUE_SHARED
}

// New validates cfg and allocates the driver tags (blk_mq_alloc_tag_set). Errors
// name the field and its range: nr_hw_queues, queue_depth, reserved_tags,
// nr_cpus, idle_delay, or an sbitmap option.
func New(cfg Config) (*TagSet, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.NrCPUs == 0 {
		cfg.NrCPUs = 1
	}
	if cfg.Options.IdleDelay == 0 {
		cfg.Options.IdleDelay = DefaultIdleDelay
	}
	cfg.Queue.RoundRobin = cfg.RoundRobin
	n := cfg.NrHwQueues
	if cfg.SharedTags() {
		n = 1
	}
	s := &TagSet{cfg: cfg, tags: make([]*Tags, n)}
	for i := range s.tags {
		t, err := newTags(cfg.QueueDepth, cfg.ReservedTags, cfg.QueueDepth, cfg.NrCPUs, cfg.Seed+uint64(i)<<32, cfg.Queue)
		if err != nil {
			return nil, err
		}
		s.tags[i] = t
	}
	return s, nil
}

func (c *Config) validate() error {
	switch {
	case c.NrHwQueues < 1 || c.NrHwQueues > MaxHwQueues:
		return fmt.Errorf("tagset: nr_hw_queues %d out of range [1, %d]", c.NrHwQueues, MaxHwQueues)
	case c.QueueDepth < 1 || c.QueueDepth > MaxDepth:
		return fmt.Errorf("tagset: queue_depth %d out of range [1, %d]", c.QueueDepth, MaxDepth)
	case c.ReservedTags < 0 || c.ReservedTags >= c.QueueDepth:
		return fmt.Errorf("tagset: reserved_tags %d out of range [0, %d] (queue_depth-1)", c.ReservedTags, c.QueueDepth-1)
	case c.NrCPUs < 0 || c.NrCPUs > MaxCPUs:
		return fmt.Errorf("tagset: nr_cpus %d out of range [1, %d] (0 = 1)", c.NrCPUs, MaxCPUs)
	case c.Options.IdleDelay < 0 || c.Options.IdleDelay > 1e12:
		return fmt.Errorf("tagset: idle_delay %d ns out of range [0, 1e12]", c.Options.IdleDelay)
	}
	return nil
}

// Config returns the set's configuration with defaults filled in.
func (s *TagSet) Config() Config { return s.cfg }

// Tags returns the driver tags used by hardware queue hctx (set->tags[hctx], or
// the shared tags). It panics if hctx is outside [0, NrHwQueues).
func (s *TagSet) Tags(hctx int) *Tags {
	if hctx < 0 || hctx >= s.cfg.NrHwQueues {
		panic(fmt.Sprintf("tagset: hctx %d out of range [0, %d)", hctx, s.cfg.NrHwQueues))
	}
	if s.cfg.SharedTags() {
		return s.tags[0]
	}
	return s.tags[hctx]
}

// QueueShared reports BLK_MQ_F_TAG_QUEUE_SHARED: two or more request queues use
// the set.
func (s *TagSet) QueueShared() bool { return s.queueShared.Load() }

// Queues returns the request queues using the set, in the order added.
func (s *TagSet) Queues() []*RequestQueue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*RequestQueue(nil), s.queues...)
}

// updateShared models blk_mq_update_tag_set_shared after the queue list
// changed. Caller holds s.mu.
func (s *TagSet) updateShared() {
	s.queueShared.Store(len(s.queues) >= 2)
}
