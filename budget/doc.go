// Package budget models the SCSI mid-layer's admission limits in front of a
// low-level driver (drivers/scsi/scsi_lib.c, scsi.c, scsi_scan.c): the per-LUN
// budget (queue_depth), the target limit (starget->can_queue), host readiness
// (can_queue, host_blocked), the blocked countdowns, the host's starved list and
// the completion-driven rerun of queues.
//
// Only package scsi (the SCSI mid-layer as a blk-mq driver) imports it. A Host
// has Targets, a Target has Devices (LUNs, struct scsi_device). The
// driver asks a Device for budget before taking a request out of its
// scheduler (GetBudget, scsi_mq_get_budget), checks target and host readiness
// before calling the driver (Prepare, the first half of scsi_queue_rq), and
// reports the driver's verdict (DispatchFailed) and completions (Unbusy,
// EndRequest). Decisions that the kernel acts on inside these functions —
// "delay-run this queue in 3 ms", "run this queue", "run the starved list" —
// are returned as values (Action, QueueRun) for the caller to carry out.
//
// Rules that changed across kernel versions are fields of Options, named after
// the change; the zero value is the current kernel. Budget get and put are safe
// for concurrent use and lock-free in the budget-map era; starved-list updates
// take the host lock (a mutex), as in the kernel. Times are time.Duration. The
// package does not import the simulator.
//
// # One command through the model
//
//	tok, act := dev.GetBudget(&hint)       // scsi_mq_get_budget; act may ask a 3 ms delayed run
//	st := dev.Prepare(tok, &hint)          // target + host readiness; on refusal budget is put
//	st = dev.DispatchFailed(r, tok, &hint) // only if the LLD refused the command
//	dev.Unbusy(tok, &hint)                 // at completion (scsi_device_unbusy)
//	act = dev.EndRequest()                 // scsi_run_queue_async: Requeue → Host.RunQueue(dev)
//
// # API summary
//
//	func NewHost(HostConfig) (*Host, error); (*Host) NewTarget(canQueue, singleLUN); NewDevice(t, queueDepth)
//	(*Host) NeedsBudgetMap(depth) bool; IsBusy; Busy; Starved() []*Device; RunQueue(d) *QueueRun
//	(*QueueRun) Next() (*Device, bool)
//	(*Device) GetBudget, PutBudget, Prepare, DispatchFailed, Unbusy, EndRequest, ChangeQueueDepth
//	(*Device) Busy, IsBusy, QueueDepth, HasBudgetMap, Restarts, SetBlockedState, InitHint; BusyFunc
//	Options{HostBusyCheck, StarvedReorderOnAttempt, RestartEveryCompletion, DeviceBusyCounter,
//	        BudgetMapSkip, DevResource}
package budget
