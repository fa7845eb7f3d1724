// Package legacy models the pre-blk-mq single-queue block layer of Linux v3.10/v3.11:
// one request queue per disk with an I/O scheduler (deadline or noop), bio merging
// into queued requests, per-task plugging, a request pool of nr_requests per sync and
// async class, and a driver request_fn that starts each request with a legacy tag
// (block/blk-tag.c:blk_queue_start_tag, from package tagset) before handing it to a
// device model on a sim.Engine.
//
// Modelled sources (behaviour, not code): block/blk-core.c (blk_queue_bio,
// get_request, blk_flush_plug_list, __blk_run_queue, blk_peek_request,
// blk_requeue_request), block/elevator.c (elv_merge, the back-merge hash,
// elv_attempt_insert_merge, the dispatch list q->queue_head),
// block/deadline-iosched.c, block/noop-iosched.c, block/blk-tag.c, and the parts of
// drivers/scsi/scsi_lib.c:scsi_request_fn that decide whether a request is started
// (queue_depth, the tag, the requeue to the head of the dispatch list).
//
// Invariant: a request is in exactly one place — a plug list, the elevator, the
// dispatch list (q->queue_head), or the device — and holds a tag only while it is
// in the device. A request refused a tag is put back at the head of the dispatch
// list, where it can no longer merge, and is retried first by the next request_fn
// run (normally the next completion); requests behind it, sync ones included,
// wait with it. That head-of-line effect is part of the legacy behaviour.
//
// Everything runs on one sim.Engine goroutine; nothing here is safe for concurrent
// use. Runs are deterministic: randomness only comes from explicitly seeded sim.Rand.
//
// The same single-queue path (unchanged in what is modelled here, as far as known) is
// the v4.x path of a SCSI host booted with scsi_mod.use_blk_mq=0: package stack
// assembles it for a LUN of a Host with Legacy set (the v4.13 "DEADLINE" column of seed
// 002 runs that way, with the same fio jobs, CPUs and device as the blk-mq columns).
// There Config.CPU charges the steps' CPU time on the machine's simulated CPUs
// (Costs: insertion and elevator work at submission, each start by request_fn, the
// completion softirq and each bio's end) and Config.IRQCPU places the completion
// (__blk_complete_request with rq_affinity=1). Without Config.CPU nothing is charged:
// the package models where requests wait, not how long the kernel's own code runs.
// Not modelled either way: queue_lock contention, so a path bound by it is not
// reproduced.
//
// Use this package to compare legacy-era policies (the blk-tag async reservation of
// commit a6b3f7614ca6, deadline parameters, merge limits) on a modelled disk; use
// package dispatch for blk-mq.
package legacy
