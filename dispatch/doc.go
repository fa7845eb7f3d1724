// Package dispatch models blk-mq submission and dispatch (block/blk-mq.c,
// block/blk-mq-sched.c, block/blk-merge.c) together with the SCSI mid-layer glue that
// decides when a queue is re-run (drivers/scsi/scsi_lib.c): request queues with per-CPU
// software queues (ctx) mapped onto hardware queues (hctx), the hctx dispatch list,
// synchronous / asynchronous (kblockd) / delayed queue runs, SCHED_RESTART, the
// dispatch order of blk_mq_sched_dispatch_requests, dispatch_busy, direct issue,
// plugging, software-queue and elevator bio merges (mq-deadline), the return of
// refused requests to the dispatch list, and the completion path that frees tags and
// budget and restarts queues.
//
// It builds on the tagset package (tag set, driver and scheduler tags, fair sharing,
// the blk_mq_get_tag wait loop, blk_mq_mark_tag_wait, lazy idling) and the budget
// package (LUN budget, target and host readiness, starved list, restarts), and drives
// a device.Device. Everything runs in virtual time on a sim.Engine, from one
// goroutine. Kernel eras are selected with Options (see Kernel); the zero value is the
// current kernel.
//
// Use: NewHost, then Host.AddLUN per SCSI device, then Queue.SubmitBio (or
// SubmitBioPlug under a Plug) from the submitting task's CPU; completions arrive
// through each Bio's EndIO. A blocking submitter passes a TagWaiter whose Sleeper is
// told when it returns from the tag wait.
//
// Invariant kept by the model (checked by the R07/R15/R16 tests): a request that is
// queued but not dispatched always has a pending queue run, a registered tag-wait
// hook, or an in-flight completion on its LUN that will re-run its queue — except in
// the historical eras those cases reproduce.
//
// CPU cost (CPUModel, on by default; CPUModel.Off for none): each step charges the
// simulated CPU that runs it (DefaultCPUCosts, with sources), shared tag/budget/host/
// elevator structures charge a cache-line transfer when another CPU touched them last,
// completions run on the interrupt CPU of the hctx (or the submitter, rq_affinity),
// and work that starts on a busy CPU waits for it.
//
// Not modelled: lock hold times (a shared lock costs its line transfer, not spinning),
// blk_mq_requeue_request's requeue list (SCSI's
// scsi_queue_insert after a failed command), flush/FUA sequencing, batched tag
// allocation for plugs, I/O priorities in mq-deadline, zoned devices.
package dispatch
