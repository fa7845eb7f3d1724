// Package dispatch models blk-mq submission and dispatch (block/blk-mq.c,
// block/blk-mq-sched.c, block/blk-merge.c) together with the SCSI mid-layer glue that
// decides when a queue is re-run (drivers/scsi/scsi_lib.c): request queues with per-CPU
// software queues (ctx) mapped onto hardware queues (hctx), the hctx dispatch list,
// synchronous / asynchronous (kblockd) / delayed queue runs, SCHED_RESTART, the
// dispatch order of blk_mq_sched_dispatch_requests, dispatch_busy, direct issue,
// plugging, software-queue and elevator bio merges, requeue, and the completion path
// that frees tags and budget and restarts queues.
//
// Everything runs in virtual time on a sim.Engine, from one goroutine. Kernel eras are
// selected with Options (see Kernel); the zero-config default is the current kernel.
//
// Invariant kept by the model (checked by the R07/R15/R16 tests): a request that is
// queued but not dispatched always has a pending queue run, a registered tag-wait
// hook, or an in-flight completion on its LUN that will re-run its queue.
package dispatch
