// Package scsi is the SCSI mid-layer as one blk-mq driver (drivers/scsi/scsi_lib.c
// scsi_mq_ops, scsi.c, scsi_scan.c): it implements dispatch.Ops and dispatch.BudgetOps
// for every LUN of a SCSI host.
//
// Per LUN (Device, struct scsi_device): the dispatch budget (scsi_mq_get_budget /
// scsi_mq_put_budget: the budget map of v5.13+ or the device_busy counter before,
// the budget-map skip proposal of seed 003), queue_depth, device_blocked and the
// restarts counter. Per host (Host, struct Scsi_Host): one target, host_busy (checked
// against can_queue before v5.5), host_blocked, the starved list and the requeue work
// that runs it. scsi_queue_rq (Device.QueueRQ) checks target and host readiness, then
// calls the low-level driver — a device.Device standing for the LLD and its hardware —
// and turns a SCSI_MLQUEUE_* refusal into the blocked countdowns and
// BLK_STS_RESOURCE / BLK_STS_DEV_RESOURCE by era. A completion (scsi_done →
// scsi_complete → scsi_finish_command → scsi_end_request) unbusies LUN, target and
// host, ends the request and re-runs queues (scsi_run_queue_async: the restarts
// counter of v5.10+, or every completion before; the starved list through the
// requeue work).
//
// The admission state itself lives in package budget, which only this package
// imports. The era switches are read from the dispatch.Options of the tag set's host
// (SCSIRestart, DeviceBusyCounter, HostBusyCheck, BudgetMapSkip, DevResource), since
// a kernel release sets them together with the block layer's.
//
// Host templates (Template; Storvsc, Smartpqi, ScsiDebug, Generic) give can_queue,
// cmd_per_lun, nr_hw_queues and host_tagset as each LLD sets them, and where its
// completions run (Completion): on the CPU of the hctx's interrupt vector; for
// scsi_debug's hrtimer, on the CPU that issued the command; for storvsc, on the
// target CPU of the VMBus channel storvsc_do_io picks (StorvscChannelCPU).
//
// Use: dispatch.NewHost for the tag set, NewHost on it, then Host.AddDevice per LUN;
// submit bios to Device.Queue.
package scsi
