// Package stack assembles a modelled machine — CPUs, one SCSI host with its tag set,
// LUNs with their request queues and device models — from a Config, runs fio jobs
// (fio package specs) on it in virtual time, and returns per-job fio results plus where
// each job's I/Os waited.
//
// Submitters follow the ioengine (kernel-behaviour.md §12): libaio and the sync engines
// submit in the job thread's context and sleep in blk_mq_get_tag when tags run out (one
// waiter per job); io_uring first submits with REQ_NOWAIT and, on -EAGAIN, punts to the
// ring's io-wq pool of min(sq_entries, 4 × CPUs) workers, each a blocking tag waiter
// running on whatever CPU the scheduler gives it (so it allocates from that CPU's hctx).
//
// Not modelled: CPU cost of the submission and completion paths (every step takes zero
// CPU time; latencies of wake-ups and kblockd are drawn from dispatch.Timing and
// SubmitTiming), plugging of batched submissions, the fio thread's own CPU contention.
package stack
