// Package tagset models the Linux blk-mq tag set and tags (block/blk-mq-tag.c,
// block/blk-mq.c, block/blk-mq.h) and the legacy pre-blk-mq tag map
// (block/blk-tag.c), on top of package sbitmap.
//
// A TagSet (struct blk_mq_tag_set) is shared by the request queues of one host
// (one per SCSI LUN). It owns one Tags (struct blk_mq_tags) per hardware queue,
// or a single one for all hardware queues with host-wide tags
// (BLK_MQ_F_TAG_HCTX_SHARED, SCSI host_tagset, or the storvsc RFC's
// hctx_share_tags). Each Tags holds a normal and a reserved sbitmap.Queue with
// the kernel's numbering: reserved tags are 0…nr_reserved−1, a normal tag is its
// bitmap bit plus nr_reserved.
//
// When two or more request queues use a set it is TAG_QUEUE_SHARED: queues (or,
// without host-wide tags, hctxs) that allocate driver tags become "active" and
// driver-tag allocation is limited to a fair share, max(ceil(depth/users), 4)
// (MayQueue). A queue becomes idle again only through the lazy timeout scan
// (RequestQueue.TimeoutWork), which the caller drives.
//
// The tag wait path of blk_mq_get_tag is the state machine TagAlloc; the
// dispatch-side wait hook of blk_mq_mark_tag_wait is Hctx.MarkTagWait. Both use
// sbitmap waiters whose callbacks the caller supplies (a simulator schedules an
// event; a Go program signals a goroutine).
//
// Options whose rules changed across kernel versions are named after the change;
// the zero value is the current kernel. Times are int64 nanoseconds. The package
// does not import the simulator: it is usable from ordinary Go programs, and the
// allocation paths are safe for concurrent use unless a doc comment says
// otherwise.
//
// # CPU indexes and hints
//
// Every allocation names a CPU index in [0, Config.NrCPUs); it selects that
// CPU's allocation hint in each bitmap (the kernel's per-CPU alloc_hint). Free
// with the allocating CPU's index so its hint is updated, as the kernel does; a
// Go program freeing from another goroutine passes −1 (no hint update), since
// a hint must not be written by two goroutines at once.
//
// # API summary
//
//	func New(cfg Config) (*TagSet, error)             // blk_mq_alloc_tag_set
//	(*TagSet) AddQueue(QueueConfig) (*RequestQueue, error); RemoveQueue; QueueShared() bool; Tags(hctx) *Tags
//	(*RequestQueue) Hctx(i) *Hctx; NrRequests; UpdateNrRequests(nr) error
//	(*RequestQueue) RequestStarted(now); TimerExpiry() int64; TimeoutWork(now, pending) bool  // lazy idle
//	(*Hctx) GetDriverTag(cpu, reserved) int; PutDriverTag(tag, cpu); PutSchedTag(tag, cpu)
//	(*Hctx) MayQueue(bt) bool; TagBusy(); MarkTagWait(cpu, reserved) (int, TagWaitResult)
//	(*Hctx) DispatchWaitQueued() bool; OnTagWake func(*Hctx); GetTag(ctx, cpu, reserved) (int, error)
//	(*Hctx) GetTagsBatch(cpu, n, shallow, reserved) (offset int, mask uint64); PutTagsBatch(tags, sched, cpu)  // v5.16+
//	TagAlloc{Hctx, CPU, Reserved, NoWait, ShallowDepth, RunHctx, CurrentHctx, Woken}.Start/Resume/Cancel
//	(*Tags) Get(cpu, reserved) int; Put(tag, cpu); Bitmap, Reserved *sbitmap.Queue; ActiveQueues; Busy
//	FairShareDepth(depth, users); DefaultNrRequests(queueDepth, elevator); LegacyAsyncLimit(depth, pre)
//	NewLegacyTags(LegacyConfig) (*LegacyTags, error); StartTag(async) (int, bool); EndTag(tag)
package tagset
