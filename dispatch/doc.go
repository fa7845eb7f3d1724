// Package dispatch models the blk-mq core (block/blk-mq.c, block/blk-mq-sched.c,
// block/blk-merge.c, block/blk-mq-cpumap.c): request queues with per-CPU software queues
// (ctx) mapped onto hardware queues (hctx), the hctx dispatch list, synchronous /
// asynchronous (kblockd) / delayed queue runs, SCHED_RESTART, the dispatch order of
// blk_mq_sched_dispatch_requests, dispatch_busy, direct issue, plugging,
// software-queue and elevator bio merges (mq-deadline), the return of refused requests
// to the dispatch list, and the completion path that frees tags and restarts queues.
//
// It builds on the tagset package (tag set, driver and scheduler tags, fair sharing,
// the blk_mq_get_tag wait loop, blk_mq_mark_tag_wait, lazy idling) and talks to block
// drivers through Ops, the shape of struct blk_mq_ops (include/linux/blk-mq.h):
// QueueRQ answering BLK_STS_OK / RESOURCE / DEV_RESOURCE, CommitRQs, Complete (on the
// completion CPU the core chooses in Queue.CompleteRequest: rq_affinity and the
// single-ctx rule of blk_mq_complete_request_remote), Timeout, InitHctx, and the
// optional BudgetOps (get/put_budget; a driver without it has no budget, as
// blk_mq_get_dispatch_budget when .get_budget is NULL). Tag-set flags are BLK_MQ_F_*
// (TagSetFlags). dispatch imports no driver: the SCSI mid-layer (package scsi),
// null_blk (package nullblk) and an NVMe-like controller (package nvme) implement Ops.
// Everything runs in virtual time on a sim.Engine, from one goroutine. Kernel eras are
// selected with Options (see Kernel); the zero value is the current kernel. Options
// also carries the SCSI mid-layer's era switches (a release sets them together); only
// package scsi reads those.
//
// Use: NewHost for a tag set (NewHostOn for a further one on the same CPUs), then a
// driver's constructor, which calls Host.AddLUN with its Ops, then Queue.SubmitBio (or
// SubmitBioPlug under a Plug) from the submitting task's CPU; completions arrive
// through each Bio's EndIO. A blocking submitter passes a TagWaiter whose Sleeper is
// told when it returns from the tag wait.
//
// Invariant kept by the model (checked by the R07/R15/R16 tests, which run through
// package scsi): a request that is queued but not dispatched always has a pending queue
// run, a registered tag-wait hook, or an in-flight completion on its LUN that will
// re-run its queue — except in the historical eras those cases reproduce.
//
// CPU cost (CPUModel, on by default; CPUModel.Off for none): each step charges the
// simulated CPU that runs it (DefaultCPUCosts, with sources), shared tag/budget/host/
// elevator structures charge a cache-line transfer when another CPU touched them last,
// completions run on the CPU the driver's interrupt or timer gives (or the submitter,
// rq_affinity), and work that starts on a busy CPU waits for it.
//
// Not modelled: lock hold times (a shared lock costs its line transfer, not spinning),
// blk_mq_requeue_request's requeue list (SCSI's scsi_queue_insert after a failed
// command), request timeouts (Ops.Timeout is never called), flush/FUA sequencing,
// batched completion (blk_mq_end_request_batch: not used by the SCSI midlayer),
// .queue_rqs, I/O priorities in mq-deadline, zoned devices. Batched tag allocation for
// a plug started for several I/Os (v5.16+, Options.NoPlugRequestCache) is modelled in
// batchalloc.go.
package dispatch
