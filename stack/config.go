package stack

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
)

// Config describes the modelled machine: CPUs, one or more hosts (each a driver with its
// own tag set), their LUNs, and the kernel release whose rules apply.
type Config struct {
	// NrCPUs is the number of online CPUs, [1, 4096].
	NrCPUs int
	// Host is the first host (host index 0): a SCSI host, or a null_blk tag set.
	Host Host
	// Hosts are further hosts, host indexes 1, 2, …: several HBAs, several null_blk
	// devices each with its own tag set (nr_devices without shared_tags), several
	// NVMe-like controllers. Every host runs on the same CPUs.
	Hosts []Host
	// LUNs are the devices (request queues), at least one; LUN.Host says on which
	// host each sits.
	LUNs []LUN
	// Kernel is the release "MAJOR.MINOR" whose rules apply, [4.15, 6.19]; "" = the
	// current kernel (dispatch.Options zero value, sbitmap WakeGlobal).
	Kernel string
	// Options, when non-nil, replaces the dispatch switches derived from Kernel.
	Options *dispatch.Options
	// Timing are the latencies of unmodelled kernel steps (dispatch.Timing).
	Timing dispatch.Timing
	// CPU is the CPU cost model of the submission and completion paths
	// (dispatch.CPUModel): the zero value charges dispatch.DefaultCPUCosts, CPU.Off
	// charges nothing.
	CPU dispatch.CPUModel
	// Submit are the latencies of the fio and io_uring submitters.
	Submit SubmitTiming
	// FS are the file-system behaviours of jobs whose files live on a file system
	// (fio directory=, or a filename not under /dev/): see FSOptions (stack/fs.go).
	// The zero value is v5.17 on XFS.
	FS FSOptions
	// Placement is where the scheduler runs an unpinned fio thread or io-wq worker
	// (stack/placement.go); the zero value is PlaceFair, 6.1's select_task_rq_fair
	// and idle balance.
	Placement Placement
	// Seed seeds the workload's random draws only: fio's random offsets and rwmix
	// directions (fio's randseed), per job. A job set without random draws gives the
	// same result for every Seed.
	Seed uint64
	// JitterSeed seeds the model's own random draws, which are not part of the
	// workload: kblockd, wake-up and reap delays (Timing, Submit) and the tag sets'
	// initial allocation hints; 0 = DefaultJitterSeed. PlaceFair draws nothing;
	// the deprecated PlaceRandom uses a fixed stream of its own (placementSeed), and
	// device models their own parameters (e.g. device.NullParams.Seed).
	JitterSeed uint64
	// Watchdog reports a modelled hang instead of waiting on it (stack/watchdog.go),
	// in model time (ns); 0 = 1 hour. A run with a job that is not time-bound (size
	// only) stops at Watchdog; if a job has not finished, Run returns an error naming
	// the request that has gone longest without progress (submitted, given a request
	// or merged, issued, completed), its job, LUN, hctx and what it waits for
	// (dispatch.WaitState), or the job as too slow when every request progresses. A
	// time-bound run is checked every Watchdog/4 and stops with such an error once a
	// request has made no progress for Watchdog.
	Watchdog sim.Time
	// HistogramBits is the precision of each job's latency histograms (fio's
	// FIO_IO_U_PLAT_BITS): every power of two of latencies split into
	// 2^HistogramBits bins, so a percentile is within 2^-(HistogramBits+1) of the
	// latencies in its bin. 0 = fio.DefaultHistogramBits (6, fio's own: 14.5 KiB per
	// histogram when every bin is hit, a few KiB typically, bins being allocated a
	// power of two at a time as values reach them); [1, fio.MaxHistogramBits].
	// Lower is coarser and smaller (4 bits: 3.9 KiB at most), higher finer and larger
	// (10 bits: 200 KiB at most). Only the reported percentiles and bins change.
	HistogramBits int
	// Limits bound the run's memory and simulated events and report its progress
	// (stack/limits.go); the zero value applies the defaults.
	Limits Limits
	// Logs, when non-nil, holds per job instance (in specs order) the fio logs
	// its completions are written to (write_bw_log, write_lat_log,
	// write_iops_log: fio.JobLogs); a nil entry writes none. Run sets each
	// one's window when its job starts and closes it at the job's end.
	Logs []*fio.JobLogs
	// Setup, when non-nil, is the I/O the machine did on its disks before the run
	// (GuestSetup, stack/emulation.go: the partition scan of each new disk).
	Setup *GuestSetup
	// SysfsWrites are writes to the LUNs' sysfs attributes during the run
	// (queue/scheduler, queue/nr_requests: stack/sysfs.go), each at its time, with
	// the kernel's freeze of the queue; their outcomes are Result.Sysfs.
	SysfsWrites []SysfsWrite
}

// DefaultJitterSeed is the JitterSeed of the zero value: 1, the stream Seed 1 drew
// before the two were separated, so runs with Seed 1 keep their figures.
const DefaultJitterSeed = 1

// jitterSeed returns the effective JitterSeed.
func (c *Config) jitterSeed() uint64 {
	if c.JitterSeed == 0 {
		return DefaultJitterSeed
	}
	return c.JitterSeed
}

func (c *Config) watchdog() sim.Time {
	if c.Watchdog <= 0 {
		return 3600 * sim.Second
	}
	return c.Watchdog
}

// Host describes the SCSI host template and instance (include/scsi/scsi_host.h).
type Host struct {
	// CanQueue is can_queue: the tag-set queue_depth, [1, 10240].
	CanQueue int
	// NrHwQueues is nr_hw_queues, [1, 4096]; 0 = 1.
	NrHwQueues int
	// CmdPerLun is cmd_per_lun: the initial LUN queue_depth when a LUN does not set
	// one, capped at CanQueue; 0 = 1.
	CmdPerLun int
	// HostTagset is host_tagset (BLK_MQ_F_TAG_HCTX_SHARED): one blk_mq_tags for all
	// hctxs. In the kernel this also makes mq-deadline the default elevator (v5.13+, 580dca8143d2)
	// and scheduler tags one object per request queue, so nr_requests bounds the
	// whole device; the model applies both as consequences of this switch.
	HostTagset bool
	// HctxShareTags is the name the 2022 storvsc RFC (seed 000) gives host_tagset;
	// setting either one selects host-wide tags.
	HctxShareTags bool
	// Completion is where a SCSI low-level driver completes commands
	// (scsi.Completion): the zero value is the hctx's interrupt CPU (an HBA with one
	// MSI-X vector per hw queue); scsi.CompleteOnIssueCPU is scsi_debug's hrtimer on
	// the CPU that issued the command; scsi.CompleteOnVMBusChannel is storvsc's
	// channel selection (scsi.StorvscChannelCPU) over ChannelCPUs. Ignored for
	// DriverNullBlk.
	Completion scsi.Completion
	// ChannelCPUs are the target CPUs of storvsc's VMBus channels, ascending, each in
	// [0, NrCPUs) (scsi.StorvscChannelCPUs); used only with
	// scsi.CompleteOnVMBusChannel, where empty means completions on the issuing CPU.
	ChannelCPUs []int
	// Driver is the block driver of the host's queues: DriverSCSI (the zero value,
	// the SCSI mid-layer of package scsi), DriverNullBlk (package nullblk) or
	// DriverNVMe (package nvme); the last two have no budget, so LUN queue_depth and
	// cmd_per_lun are unused.
	Driver Driver
	// NullBlk are null_blk's module parameters beyond the tag set (DriverNullBlk).
	NullBlk NullBlk
	// Legacy is scsi_mod.use_blk_mq=0 (v4.x; the legacy path was removed in v5.0): the
	// host's LUN uses the single-queue request path (package legacy: blk_queue_bio,
	// the "deadline" or "noop" elevator, request_fn with legacy tags) instead of
	// blk-mq; NrHwQueues and HostTagset are then unused. Needs DriverSCSI, a 4.x
	// Kernel and one LUN (stack/legacy.go).
	Legacy bool
	// CopiesData: the host's SCSI LLD copies each command's data with the CPU in
	// queuecommand (scsi_debug's do_device_access → sg_copy_buffer; scsi.Host.
	// SetCopiesData), charged dispatch.CPUCosts.DataCopyKiB per KiB — 0 in the
	// default cost table, so natively nothing; set by package setup for
	// scsi_debug. Ignored for other drivers and Legacy hosts.
	CopiesData bool
}

// Driver names the block driver of a host.
type Driver uint8

const (
	// DriverSCSI is the SCSI mid-layer (package scsi) in front of the LUN devices.
	DriverSCSI Driver = iota
	// DriverNullBlk is null_blk (package nullblk): Host.CanQueue is hw_queue_depth,
	// Host.NrHwQueues submit_queues, Host.HostTagset shared_tag_bitmap.
	DriverNullBlk
	// DriverNVMe is an NVMe-like PCIe controller (package nvme): Host.CanQueue is the
	// tag-set queue_depth (nvme.Template), Host.NrHwQueues the I/O queues, each LUN a
	// namespace; no budget, completions on the hctx's interrupt CPU.
	DriverNVMe
)

// String returns "scsi", "null_blk" or "nvme".
func (d Driver) String() string {
	switch d {
	case DriverSCSI:
		return "scsi"
	case DriverNullBlk:
		return "null_blk"
	case DriverNVMe:
		return "nvme"
	}
	return fmt.Sprintf("Driver(%d)", uint8(d))
}

// NullBlk are null_blk module parameters that are not tag-set sizes
// (drivers/block/null_blk/main.c).
type NullBlk struct {
	// IRQMode is irqmode (0 none, 1 softirq, 2 timer); the completion_nsec delay of
	// irqmode 2 belongs to the LUN's device model.
	IRQMode nullblk.IRQMode
	// Blocking is blocking=1: BLK_MQ_F_BLOCKING.
	Blocking bool
	// NoSched is no_sched=1: BLK_MQ_F_NO_SCHED (the queue keeps scheduler none).
	NoSched bool
}

// hostAt returns host index i (0 = Config.Host).
func (c *Config) hostAt(i int) Host {
	if i == 0 {
		return c.Host
	}
	return c.Hosts[i-1]
}

// nrHosts returns the number of hosts.
func (c *Config) nrHosts() int { return 1 + len(c.Hosts) }

// LUN describes one device (a SCSI LUN, a null_blk device) and its request queue.
type LUN struct {
	// Name is the target fio jobs name (filename/directory); "" matches every job
	// when there is one LUN. With one named LUN, a job whose target is a file or
	// directory runs on it, and a job naming another block device (/dev/…) is an
	// error.
	Name string
	// Host is the index of the host the LUN sits on: 0 = Config.Host, i =
	// Config.Hosts[i-1].
	Host int
	// Device builds the device model on the run's engine.
	Device func(eng *sim.Engine) (device.Device, error)
	// QueueDepth is the LUN queue_depth, [1, min(CanQueue, 10000)]; 0 = CmdPerLun
	// (capped at CanQueue).
	QueueDepth int
	// NrRequests is nr_requests; 0 = the kernel default (see dispatch.LUNConfig).
	NrRequests int
	// Scheduler is "" (kernel default), "none" or "mq-deadline".
	Scheduler string
	// MaxSectorsKB is max_sectors_kb; 0 = 1280.
	MaxSectorsKB int
	// Limits are the queue's other request-size limits (dispatch.QueueLimits:
	// max_hw_sectors, max_segments, block sizes; MaxSectors replaces MaxSectorsKB
	// when set): an I/O larger than they allow is split into several requests.
	Limits dispatch.QueueLimits
}

// SubmitTiming holds the submitter latencies (ns). Zero fields take the defaults in
// their comments; each default is an assumption, not a measurement from a source.
type SubmitTiming struct {
	// ReapMin/ReapMax bound the delay between a completion (CQE posted / aio event)
	// and the fio thread running to reap it. Default 5–30 µs (a task wake-up).
	ReapMin, ReapMax sim.Time
	// WorkerStep is the time an io-wq worker takes between two work items it runs
	// without sleeping. Default 2 µs.
	WorkerStep sim.Time
	// WorkersOnOwnerCPU places io-wq workers on their ring owner's CPU instead of
	// where the scheduler model puts them (Placement; default: unpinned workers on
	// every CPU of the node, as 6.1's io_init_new_worker → set_cpus_allowed_ptr(
	// wqe->cpu_mask) allows whatever fio's cpus_allowed, and as the oracle's guest
	// shows). A sensitivity switch, not a kernel rule.
	WorkersOnOwnerCPU bool
	// IOWQSubmitWorkSyscall charges an io-wq worker's blocking retry of a punted
	// I/O the whole dispatch.CPUCosts.Submit, the submitting system call's own share
	// (SubmitSyscall) included: the model before round 9. By default (false) the
	// retry pays Submit − SubmitSyscall, the share of one further I/O of a call: 6.1's
	// io_wqe_worker → io_worker_handle_work → io_wq_submit_work → io_issue_sqe runs
	// the read or write in the worker's own kernel context, with no system call
	// entry or exit, no io_uring_enter ring lookup or uring_lock (IO_URING_F_UNLOCKED)
	// and no io_submit_sqes set-up; the syscall share was paid once by the inline
	// attempt that got -EAGAIN (io_uring/io_uring.c, io-wq.c). No effect while
	// SubmitSyscall is 0.
	IOWQSubmitWorkSyscall bool
	// IOWQWorkerYields makes an io-wq worker that has just queued a request wait
	// behind the other workers waiting for its CPU before it takes its next work
	// item, as every worker step did before round 10. By default (false) a worker
	// whose CPU holds no work charged after its own goes on to its next item at once:
	// 6.1's io_worker_handle_work loops over the work list as the running task, and a
	// worker (or tag sleeper) woken onto that CPU does not preempt it, because
	// place_entity gives every task woken from a long sleep the same vruntime floor
	// (min_vruntime less half of sched_latency, GENTLE_FAIR_SLEEPERS) and the running
	// worker has run far less than the wake-up granularity since its own wake-up
	// (kernel/sched/fair.c place_entity, check_preempt_wakeup → wakeup_preempt_entity).
	// So the running worker takes the tags freed while it runs and sleeps in
	// blk_mq_get_tag only when none is left. For measuring the rule.
	IOWQWorkerYields bool
	// ReapSubmitDelay (ns) delays the next submission of a reaper woken from its
	// completion wait (io_getevents, io_uring_enter's GETEVENTS wait): after it has
	// reaped (fio stamps clat), its loop carries on this much later, as latency, not
	// CPU time. An instrument correction for an emulated guest, not a kernel rule:
	// the part of a shallow job's cycle that a QEMU TCG guest spends outside clat
	// (fio's slat and its loop between getevents and the next io_submit) beyond the
	// model's, calibrated per driver at queue depth 1 (oracle.CycleOverhead). 0 (the
	// default) = none; at most 10 ms.
	ReapSubmitDelay sim.Time
	// StickyWorkers keeps each io-wq worker on the CPU drawn when it was created
	// (a woken task returns to its idle previous CPU) instead of drawing a CPU at
	// every wake-up. Ignored with WorkersOnOwnerCPU. Sensitivity switch.
	StickyWorkers bool
	// IssueAtReturn stamps an asynchronous engine's issue_time when the submitting
	// CPU has done the submission's work (the syscall's return, where fio stamps
	// it), not when the submission starts; set by Config.EmulatedWith
	// (EmulationOptions.IssueAtReturn), off natively (stack/job.go submitReturned).
	IssueAtReturn bool
	// MMSwitchAtWake charges dispatch.CPUCosts.MMSwitch at every switch between two
	// fio processes on a CPU that a wake-up makes (stack/mmswitch.go), not only
	// after a preempting kblockd run; set by Config.EmulatedWith unless
	// EmulationOptions.MMSwitchKblockdOnly. No effect while MMSwitch is 0 (natively).
	MMSwitchAtWake bool
	// ReadEventsAfterWork makes a thread that finds no completion to reap look at
	// its completion ring again once its CPU has done the work charged before the
	// wait, and sleep only if none came meanwhile (stack/job.go geteventsLater). The
	// model's clock stands at the start of the thread's last step (the io_submit
	// it just made), the CPU at its end; in the kernel the completions that come due
	// meanwhile interrupt that step (hrtimer / device hardirq) and post their events
	// (aio_complete) before io_submit returns, and io_getevents → read_events looks
	// at the ring (aio_read_events) before it waits (wait_event_interruptible_hrtimeout),
	// so it reaps them without a sleep. Natively a step is about a microsecond and the
	// difference small; under emulation a step is tens of microseconds, and without
	// the rule a reaper whose completions arrive one step apart sleeps and is woken
	// for each (the oracle's calib-cpu-nb-qd32: the guest's reader sleeps 0.12 times
	// per command, fio ctx). Set by Config.EmulatedWith
	// (EmulationOptions.ReadEventsAfterWork); off natively. Always on with
	// CheckPreemptTick, which introduced it (round 7).
	ReadEventsAfterWork bool
	// CheckPreemptTick models the CFS time slice between fio threads that share a
	// CPU (stack/schedtick.go: scheduler_tick → check_preempt_tick, the wake-up
	// preemption and pick_next_entity's leftmost vruntime): one thread runs until it
	// sleeps or is preempted, instead of the threads taking turns submission by
	// submission, and each tick preemption charges a context switch
	// (dispatch.CPUCosts.Switch, MMSwitch between processes; both 0 natively).
	// Off by default.
	CheckPreemptTick bool
	// IOPrepAsyncWorkHashAll serialises an io_uring write-only job's punted writes on
	// one io-wq worker whatever its file, the model before round 8. 6.1
	// io_prep_async_work hashes a write by inode only for a regular file
	// (REQ_F_ISREG); a write to a block device file is not hashed and runs on up to
	// min(sq_entries, 4 × CPUs) workers at once, which is the default
	// (stack/job.go ioWQBoundedWorkers). Off by default.
	IOPrepAsyncWorkHashAll bool
	// NoBlkdevWriteIterPlug drops the block plug that 6.1's blkdev_write_iter
	// (block/fops.c) holds around every write to a block device file, the model before
	// round 9. With the plug (the default) a direct write's request is added to the
	// plug and issued when the call returns (blk_finish_plug → blk_mq_flush_plug_list
	// → blk_mq_plug_issue_direct → blk_mq_request_issue_directly, bypass_insert set):
	// without an elevator, a request that finds no budget or driver tag goes to the
	// tail of hctx->dispatch (blk_mq_request_bypass_insert), where no later bio merges
	// into it, instead of the software queue that blk_mq_try_issue_directly's
	// unplugged path inserts it into (blk_mq_sched_insert_request), where the next
	// sequential bio back-merges (blk_mq_sched_bio_merge). The plug is inert when the
	// submitting call holds one already (io_submit of more than two iocbs, an
	// io_uring batch of more than two SQEs: blk_start_plug does not nest). Reads are
	// not plugged (blkdev_read_iter); file-system targets hold iomap's plug instead
	// (FSOptions.NoDIOPlug). A synchronous write (psync) sleeps in submit_bio_wait
	// inside the plug, so io_schedule flushes it from schedule (blk_flush_plug(plug,
	// true)): its request is inserted into the software queue and dispatched by an
	// asynchronous (kblockd) run. Kernels before v5.16 keep the unplugged path whatever
	// this says (dispatch.Options.NoBlkdevWriteIterPlug).
	NoBlkdevWriteIterPlug bool
	// IOQueueAsync is the CPU time (ns, native) an io_uring submission that got
	// -EAGAIN spends handing its request to io-wq, charged on the submitting CPU
	// beyond the failed attempt's own submission cost (dispatch.CPUCosts.Submit and
	// BioAlloc, charged by package dispatch): 6.1 bio_wouldblock_error → bio_endio →
	// blkdev_bio_end_io_async (bio_release_pages, bio_put) → io_complete_rw
	// (REQ_F_REISSUE), then in io_read iov_iter_restore and io_setup_async_rw (the
	// io_async_rw allocation and the iovec copy), io_queue_async →
	// io_arm_poll_handler (a block device cannot poll: IO_APOLL_ABORTED) →
	// io_queue_iowq (io_prep_async_link) → io_wq_enqueue (wqe->lock, the work list,
	// io_wqe_activate_free_worker). Scaled by Config.EmulatedWith's factor. 0 (the
	// default) charges nothing, the model before round 8; an assumption when set
	// (stack/iowq.go NativeIOQueueAsync gives a basis), [0, 1 ms].
	IOQueueAsync sim.Time
	// DIOPage is the CPU time (ns, already scaled) a direct-I/O bio spends per user
	// page beyond its first, charged on the submitting CPU before the bio enters the
	// block layer: 6.1 block/fops.c __blkdev_direct_IO_async / __blkdev_direct_IO →
	// bio_iov_iter_get_pages → iov_iter_get_pages2 (get_user_pages_fast: the page
	// walk and a reference per page) and bio_iov_add_page per page; for a read
	// bio_set_pages_dirty (set_page_dirty_lock per page); at completion
	// blkdev_bio_end_io_async → bio_check_pages_dirty / bio_release_pages (put_page
	// per page, charged here with the rest: on the oracle's null_blk the completion
	// runs on the submitting CPU). The first page's share is inside the cost table's
	// BioAlloc. Pages are 4 KiB, the buffer page-aligned (fio's default). Set by
	// Config.EmulatedWith (EmulationOptions.DIOPage); 0 (the default, natively)
	// charges nothing, [0, 1 ms].
	DIOPage sim.Time
	// TLBWorkingSet is the CPU time (ns, already scaled) of refilling a process's
	// whole working set in the emulated TLB after a CR3 write: a process switch
	// charged at a wake-up or a time-slice preemption (stack/mmswitch.go) costs
	// dispatch.CPUCosts.MMSwitch (one command's pages) at once, and each later
	// command submitted on that CPU charges it again until the refills since the
	// switch reach TLBWorkingSet (stack/tlbrefill.go). Set by
	// Config.EmulatedWith (EmulationOptions.TLBWorkingSet); 0 (the default, natively)
	// = the constant MMSwitch per switch, [0, 1 ms].
	TLBWorkingSet sim.Time
	// TickSwitchRefill charges, without the time slice's run queues
	// (CheckPreemptTick), the process switches CFS's tick makes between fio
	// processes that share a CPU and do not sleep: at the first tick past a
	// sched_slice since the CPU's last charged switch, while a thread of another
	// process waits for the CPU, a submission there charges
	// dispatch.CPUCosts.MMSwitch and starts a TLB refill (stack/tickrefill.go).
	// Set by Config.EmulatedWith (EmulationOptions.TickSwitchRefill); no effect
	// without TLBWorkingSet, with CheckPreemptTick (which models those switches
	// itself), or natively.
	TickSwitchRefill bool
	// DrainSwitch adds to TickSwitchRefill the switch a reader process makes when it
	// sleeps in getevents because its turn on the CPU used up its completions
	// before the first command it resubmitted completed (stack/tickrefill.go).
	// Set by Config.EmulatedWith (EmulationOptions.DrainSwitch); no effect without
	// TickSwitchRefill.
	DrainSwitch bool
	// TLBRefillGrows makes the refill after a CR3 write grow with the commands of
	// the turn (stack/tlbrefill.go, TLBRefillSaturation): after a tick or drain
	// switch (TickSwitchRefill, DrainSwitch) each command after the switch's first
	// charges (TLBWorkingSet − MMSwitch) / (TLBRefillSaturation − 1) instead of
	// MMSwitch, up to TLBWorkingSet. Set by Config.EmulatedWith
	// (EmulationOptions.TLBRefillGrows); no effect without TLBWorkingSet.
	TLBRefillGrows bool
	// WakeupNoPreempt makes a fio reader process woken on a CPU where a thread of
	// another fio process is still awake wait for that one to sleep (CFS
	// check_preempt_wakeup → wakeup_preempt_entity: no preemption within the
	// wakeup granularity): its wake-up charges no process switch, and the switch is
	// charged when the running process sleeps in getevents with another process
	// awake on its CPU, as a turn-ending switch (TLBRefillGrows' grown refill)
	// (stack/waketurn.go). Set by Config.EmulatedWith
	// (EmulationOptions.WakeupNoPreempt); no effect without TickSwitchRefill.
	WakeupNoPreempt bool
	// WakeupPreemptReap lets a fio thread woken from getevents (io_getevents,
	// io_uring_enter's wait) by a completion, with part of its ring still in flight,
	// preempt the task running on its CPU (check_preempt_wakeup; stack/waketurn.go
	// wakeupPreempts): it reaps and submits at once instead of after the work
	// charged to its CPU before its wake-up (its own work is still charged after
	// that work). Off by default: opt-in, the evidence is mixed (round 12, issue 14:
	// it gives the pinned libaio WAL beside io_uring readers the kernel's placement
	// effect, and makes the unpinned WALs of the family too fast).
	WakeupPreemptReap bool
	// DryTurn ends a turn of fio reader processes sharing a CPU when the process
	// loaded there would have no completion ready had the turn's submissions all
	// been its own (its reader sleeps in read_events: a voluntary switch), besides
	// DrainSwitch's ring-long turn, and loads the waiting process that gathered the
	// most completions (stack/waketurn.go). Set by Config.EmulatedWith
	// (EmulationOptions.DryTurn); no effect without WakeupNoPreempt and DrainSwitch.
	DryTurn bool
}

func (t SubmitTiming) withDefaults() SubmitTiming {
	if t.ReapMax == 0 {
		t.ReapMin, t.ReapMax = 5*sim.Microsecond, 30*sim.Microsecond
	}
	if t.WorkerStep == 0 {
		t.WorkerStep = 2 * sim.Microsecond
	}
	return t
}

// Validate returns a *ConfigError naming the first field out of range (Field, the Go
// path of the value) and its allowed range (Error).
func (c *Config) Validate() error {
	if c.NrCPUs < 1 || c.NrCPUs > 4096 {
		return configErrorf("NrCPUs", "NrCPUs %d out of range [1, 4096]", c.NrCPUs)
	}
	for i := range c.nrHosts() {
		if err := validateHost(c.hostAt(i), i); err != nil {
			return err
		}
	}
	if len(c.LUNs) == 0 {
		return configErrorf("LUNs", "LUNs: need at least one LUN")
	}
	for i, l := range c.LUNs {
		if l.Host < 0 || l.Host >= c.nrHosts() {
			return configErrorf(fmt.Sprintf("LUNs[%d].Host", i), "LUNs[%d].Host %d out of range [0, %d]", i, l.Host, c.nrHosts()-1)
		}
		maxQD := min(c.hostAt(l.Host).CanQueue, 10000)
		switch {
		case l.Device == nil:
			return configErrorf(fmt.Sprintf("LUNs[%d].Device", i), "LUNs[%d].Device is nil", i)
		case l.QueueDepth < 0 || l.QueueDepth > maxQD:
			return configErrorf(fmt.Sprintf("LUNs[%d].QueueDepth", i), "LUNs[%d].QueueDepth %d out of range [0 (= cmd_per_lun), %d]", i, l.QueueDepth, maxQD)
		case l.NrRequests < 0 || l.NrRequests > 2048:
			return configErrorf(fmt.Sprintf("LUNs[%d].NrRequests", i), "LUNs[%d].NrRequests %d out of range [0 (= default), 2048]", i, l.NrRequests)
		case legacyLUNScheduler(c, l, i) != nil:
			return legacyLUNScheduler(c, l, i)
		case !c.hostAt(l.Host).Legacy && l.Scheduler != "" && l.Scheduler != "none" && l.Scheduler != "mq-deadline":
			return configErrorf(fmt.Sprintf("LUNs[%d].Scheduler", i), "LUNs[%d].Scheduler %q not one of \"\", \"none\", \"mq-deadline\"", i, l.Scheduler)
		case l.MaxSectorsKB != 0 && (l.MaxSectorsKB < 4 || l.MaxSectorsKB > 32767):
			return configErrorf(fmt.Sprintf("LUNs[%d].MaxSectorsKB", i), "LUNs[%d].MaxSectorsKB %d out of range [4, 32767] or 0", i, l.MaxSectorsKB)
		}
		if err := l.Limits.Validate(l.MaxSectorsKB); err != nil {
			return &ConfigError{Field: fmt.Sprintf("LUNs[%d].Limits", i), Err: fmt.Errorf("stack: LUNs[%d].Limits: %w", i, err)}
		}
	}
	if c.Kernel != "" {
		if _, err := dispatch.Kernel(c.Kernel); err != nil {
			return &ConfigError{Field: "Kernel", Err: fmt.Errorf("stack: Kernel: %w", err)}
		}
	}
	if err := c.validateLegacy(); err != nil {
		return err
	}
	if err := c.validateSysfs(); err != nil { // stack/sysfs.go
		return err
	}
	if r := c.Placement.Rule; r > PlaceRandom {
		return configErrorf("Placement.Rule", "Placement.Rule %d out of range [%d, %d] (PlaceFair, PlaceRandom)", r, PlaceFair, PlaceRandom)
	}
	if p := c.Placement.WakeMigrate; p > 1 || p != p {
		return configErrorf("Placement.WakeMigrate", "Placement.WakeMigrate %v out of range [0, 1] (0 = default, negative = never)", p)
	}
	if p := c.Placement.MigrationCost; p < 0 || p > sim.Second {
		return configErrorf("Placement.MigrationCost", "Placement.MigrationCost %d ns out of range [0, 1e9] (0 = default)", p)
	}
	if p := c.Placement.Tick; p < 0 || p > sim.Second {
		return configErrorf("Placement.Tick", "Placement.Tick %d ns out of range [0, 1e9] (0 = default)", p)
	}
	if err := c.Placement.validateTasks(c.NrCPUs); err != nil {
		return err
	}
	t := c.Submit
	switch {
	case t.ReapMin < 0:
		return configErrorf("Submit.ReapMin", "Submit.ReapMin %v out of range [0, Submit.ReapMax]", t.ReapMin)
	case t.ReapMax < t.ReapMin:
		return configErrorf("Submit.ReapMax", "Submit.ReapMax %v out of range [Submit.ReapMin %v, +inf)", t.ReapMax, t.ReapMin)
	case t.ReapSubmitDelay < 0 || t.ReapSubmitDelay > 10*sim.Millisecond:
		return configErrorf("Submit.ReapSubmitDelay", "Submit.ReapSubmitDelay %v out of range [0, 10ms]", t.ReapSubmitDelay)
	case t.WorkerStep < 0:
		return configErrorf("Submit.WorkerStep", "Submit.WorkerStep %v out of range [0, +inf)", t.WorkerStep)
	case t.IOQueueAsync < 0 || t.IOQueueAsync > sim.Millisecond:
		return configErrorf("Submit.IOQueueAsync", "Submit.IOQueueAsync %v out of range [0, 1ms]", t.IOQueueAsync)
	case t.TLBWorkingSet < 0 || t.TLBWorkingSet > sim.Millisecond:
		return configErrorf("Submit.TLBWorkingSet", "Submit.TLBWorkingSet %v out of range [0, 1ms]", t.TLBWorkingSet)
	case t.DIOPage < 0 || t.DIOPage > sim.Millisecond:
		return configErrorf("Submit.DIOPage", "Submit.DIOPage %v out of range [0, 1ms]", t.DIOPage)
	}
	return nil
}

// validateHost checks host index i; errors name Host (index 0) or Hosts[i-1].
func validateHost(h Host, i int) error {
	name := "Host"
	if i > 0 {
		name = fmt.Sprintf("Hosts[%d]", i-1)
	}
	switch {
	case h.CanQueue < 1 || h.CanQueue > 10240:
		return configErrorf(name+".CanQueue", "%s.CanQueue %d out of range [1, 10240]", name, h.CanQueue)
	case h.NrHwQueues < 0 || h.NrHwQueues > 4096:
		return configErrorf(name+".NrHwQueues", "%s.NrHwQueues %d out of range [0 (= 1), 4096]", name, h.NrHwQueues)
	case h.CmdPerLun < 0 || h.CmdPerLun > 10240:
		return configErrorf(name+".CmdPerLun", "%s.CmdPerLun %d out of range [0 (= 1), 10240]", name, h.CmdPerLun)
	case h.Driver > DriverNVMe:
		return configErrorf(name+".Driver", "%s.Driver %v not one of scsi, null_blk, nvme", name, h.Driver)
	case h.Completion > scsi.CompleteOnVMBusChannel:
		return configErrorf(name+".Completion", "%s.Completion %v not one of hctx-irq, issue-cpu, vmbus-channel", name, h.Completion)
	case h.NullBlk.IRQMode > nullblk.IRQTimer:
		return configErrorf(name+".NullBlk.IRQMode", "%s.NullBlk.IRQMode %d out of range [0, 2]", name, h.NullBlk.IRQMode)
	}
	return nil
}

// hostConfig derives the dispatch host configuration of host index i (each host's
// jitter stream is its own; host 0 keeps the stream a single-host run has always had).
func (c *Config) hostConfig(i int) dispatch.HostConfig {
	h := c.hostAt(i)
	hc := dispatch.HostConfig{
		NrCPUs:     c.NrCPUs,
		NrHwQueues: max(h.NrHwQueues, 1),
		CanQueue:   h.CanQueue,
		HostTagset: h.HostTagset || h.HctxShareTags,
		Timing:     c.Timing,
		CPU:        c.CPU,
		Seed:       (c.jitterSeed() ^ 0x5eed0001) + uint64(i)*0x9e3779b97f4a7c15,
	}
	if h.Driver == DriverNullBlk {
		hc.Flags = nullblk.Flags(h.NullBlk.Blocking, h.NullBlk.NoSched)
	}
	if c.Kernel != "" {
		hc.Options, _ = dispatch.Kernel(c.Kernel)
		hc.WakeScheme, hc.RecalcEra = sbitmapEra(c.Kernel)
	}
	if c.Options != nil {
		hc.Options = *c.Options
	}
	return hc
}

// sbitmapEra maps a release to its sbitmap_queue wake scheme and wake-batch
// formula (dispatch.KernelProfile: mainline v6.2 changed both, and 6.1.16+ carries
// the change).
func sbitmapEra(version string) (sbitmap.WakeScheme, sbitmap.RecalcEra) {
	p, _ := dispatch.KernelProfile(version)
	return p.WakeScheme, p.RecalcEra
}
