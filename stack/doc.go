// Package stack assembles a modelled machine — CPUs, one or more hosts (each a block
// driver on its own tag set: the SCSI mid-layer of package scsi, null_blk of package
// nullblk, an NVMe-like controller of package nvme), LUNs with their request queues and
// device models — from a Config, runs fio jobs
// (fio package specs) on it in virtual time, and returns per-job fio results plus where
// each job's I/Os waited.
//
// Submitters follow the ioengine (fs/aio.c, io_uring/io_uring.c and io-wq.c): libaio and the sync engines
// submit in the job thread's context and sleep in blk_mq_get_tag when tags run out (one
// waiter per job); io_uring first submits with REQ_NOWAIT and, on -EAGAIN, punts to the
// ring's io-wq pool of min(sq_entries, 4 × CPUs) workers, each a blocking tag waiter
// running on whatever CPU the scheduler gives it (so it allocates from that CPU's hctx).
// Punted writes to a regular file are hashed by inode and run on one worker at a time;
// writes to a block device file are not hashed (io_prep_async_work's REQ_F_ISREG test).
//
// CPU cost: Config.CPU (dispatch.CPUModel) charges the submission and completion
// paths, including the ioengine's per-I/O share (CPUCosts.Submit, EndBio), on the
// simulated CPUs; completions and queue runs wait for a busy CPU, so a CPU-bound run
// is limited by its cost per I/O. Result.CPUBusy gives each CPU's charged time.
//
// Not modelled: the fio thread waiting for its own CPU before it submits (its
// submissions charge the CPU; completions, and so its reaping, wait behind them).
// Latencies of wake-ups and kblockd are drawn from dispatch.Timing and SubmitTiming.
package stack
