package scsi

import (
	"fmt"

	"github.com/blkmq/blkmq/budget"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// Completion says where a low-level driver's completion handler runs, the CPU from
// which it calls scsi_done (and so blk_mq_complete_request).
type Completion uint8

const (
	// CompleteOnHctxIRQ: a hardware interrupt whose vector is affine to the hctx's
	// CPUs (managed MSI-X vectors, one per hw queue: smartpqi, NVMe-like HBAs); it
	// arrives on the first CPU of the hctx's mask (the vector's effective affinity).
	CompleteOnHctxIRQ Completion = iota
	// CompleteOnIssueCPU: a timer armed by queuecommand on the CPU running it
	// (scsi_debug's hrtimer, HRTIMER_MODE_REL_PINNED in schedule_resp).
	CompleteOnIssueCPU
	// CompleteOnVMBusChannel: storvsc's VMBus channels (storvsc_do_io picks the
	// outgoing channel per submitting CPU; storvsc_on_channel_callback runs on that
	// channel's target_cpu). Template.ChannelCPUs lists the channels' target CPUs;
	// StorvscChannelCPU is the rule.
	CompleteOnVMBusChannel
)

// String returns "hctx-irq", "issue-cpu" or "vmbus-channel".
func (c Completion) String() string {
	switch c {
	case CompleteOnHctxIRQ:
		return "hctx-irq"
	case CompleteOnIssueCPU:
		return "issue-cpu"
	case CompleteOnVMBusChannel:
		return "vmbus-channel"
	}
	return fmt.Sprintf("Completion(%d)", uint8(c))
}

// Template is a SCSI host template and the Scsi_Host fields its LLD sets at probe
// (struct scsi_host_template, include/scsi/scsi_host.h): what the mid-layer builds the
// tag set (scsi_mq_setup_tags) and the LUN budgets from.
type Template struct {
	// Name is the LLD's name (proc_name).
	Name string
	// CanQueue is shost->can_queue: the tag-set depth, [1, 10240].
	CanQueue int
	// CmdPerLun is shost->cmd_per_lun: a new LUN's queue_depth (capped at
	// CanQueue by scsi_change_queue_depth), [1, 10240].
	CmdPerLun int
	// NrHwQueues is shost->nr_hw_queues, [1, 4096].
	NrHwQueues int
	// HostTagset is shost->host_tagset (BLK_MQ_F_TAG_HCTX_SHARED; the storvsc RFC of
	// seed 000 calls it hctx_share_tags).
	HostTagset bool
	// Completion is where the LLD completes commands.
	Completion Completion
	// ChannelCPUs are the target CPUs of the VMBus channels, ascending (storvsc's
	// stor_device->alloced_cpus); used only with CompleteOnVMBusChannel.
	ChannelCPUs []int
}

// Validate returns an error naming the first field out of range.
func (t Template) Validate() error {
	switch {
	case t.CanQueue < 1 || t.CanQueue > budget.MaxCanQueue:
		return fmt.Errorf("scsi: host %s: can_queue %d out of range [1, %d]", t.Name, t.CanQueue, budget.MaxCanQueue)
	case t.CmdPerLun < 1 || t.CmdPerLun > budget.MaxCanQueue:
		return fmt.Errorf("scsi: host %s: cmd_per_lun %d out of range [1, %d]", t.Name, t.CmdPerLun, budget.MaxCanQueue)
	case t.NrHwQueues < 1 || t.NrHwQueues > budget.MaxHwQueues:
		return fmt.Errorf("scsi: host %s: nr_hw_queues %d out of range [1, %d]", t.Name, t.NrHwQueues, budget.MaxHwQueues)
	case t.Completion > CompleteOnVMBusChannel:
		return fmt.Errorf("scsi: host %s: completion %v not one of hctx-irq, issue-cpu, vmbus-channel", t.Name, t.Completion)
	case t.Completion == CompleteOnVMBusChannel && len(t.ChannelCPUs) == 0:
		return fmt.Errorf("scsi: host %s: completion vmbus-channel needs at least one channel CPU", t.Name)
	}
	return nil
}

// StorvscPerChannel is the model's assumed number of requests one VMBus channel
// holds (max_outstanding_req_per_channel × (100 − ring_avail_percent_lowater) / 100).
// Assumption: the kernel derives it from the ring-buffer size and packet size
// (storvsc_probe); 256 gives can_queue 1024 on 16 CPUs (4 channels).
const StorvscPerChannel = 256

// Storvsc is the Hyper-V storvsc host (drivers/scsi/storvsc_drv.c, v6.1) on nrCPUs
// CPUs with the module parameters storvsc_max_hw_queues (0 = unset) and
// storvsc_vcpus_per_sub_channel (default 4):
//   - can_queue: storvsc_probe sets scsi_driver.can_queue to
//     max_outstanding_req_per_channel × (max_sub_channels + 1) × (100 −
//     ring_avail_percent_lowater) / 100 with max_sub_channels = (nr CPUs − 1) /
//     storvsc_vcpus_per_sub_channel; the per-channel figure is StorvscPerChannel
//     (assumed), capped at 10240.
//   - cmd_per_lun: 2048 (scsi_driver.cmd_per_lun).
//   - nr_hw_queues: storvsc_probe: storvsc_max_hw_queues if set (capped at the
//     CPUs), else num_present_cpus().
//   - host_tagset: not set upstream (per-hctx tags; seed 000's RFC proposes it).
//   - completion: storvsc_on_channel_callback runs on the VMBus channel's target CPU;
//     the channel is picked per issuing CPU by storvsc_do_io (StorvscChannelCPU):
//     CompleteOnVMBusChannel with ChannelCPUs = StorvscChannelCPUs.
func Storvsc(nrCPUs, maxHwQueues, vcpusPerSubChannel int) Template {
	nhw := nrCPUs
	if maxHwQueues > 0 {
		nhw = min(maxHwQueues, nrCPUs)
	}
	if vcpusPerSubChannel < 1 {
		vcpusPerSubChannel = 4
	}
	cq := min(StorvscPerChannel*((nrCPUs-1)/vcpusPerSubChannel+1), budget.MaxCanQueue)
	return Template{Name: "storvsc", CanQueue: cq, CmdPerLun: 2048, NrHwQueues: max(nhw, 1),
		Completion: CompleteOnVMBusChannel, ChannelCPUs: StorvscChannelCPUs(nrCPUs, vcpusPerSubChannel)}
}

// StorvscChannelCPUs returns the target CPUs of storvsc's VMBus channels on nrCPUs
// CPUs: the primary channel plus (nrCPUs − 1) / vcpusPerSubChannel sub-channels
// (storvsc_probe's max_sub_channels, requested in storvsc_channel_init; each
// channel's target_cpu is set in stor_device->alloced_cpus). Assumption: the host
// offers every requested sub-channel and VMBus (init_vp_index) places channel i on
// CPU i × vcpusPerSubChannel, spreading them evenly on one NUMA node; the real
// placement depends on the other VMBus devices' channels and is not known for seed 000.
// nrCPUs < 1 returns nil.
func StorvscChannelCPUs(nrCPUs, vcpusPerSubChannel int) []int {
	if nrCPUs < 1 {
		return nil
	}
	if vcpusPerSubChannel < 1 {
		vcpusPerSubChannel = 4
	}
	n := (nrCPUs-1)/vcpusPerSubChannel + 1
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = i * vcpusPerSubChannel
	}
	return cpus
}

// StorvscChannelCPU returns the CPU on which storvsc completes a command that cpu
// (get_cpu() in storvsc_queuecommand) submitted, for channels on channelCPUs
// (ascending, one NUMA node): the target CPU of the channel storvsc_do_io sends it
// on. The rule is the same in the 5.17 and 6.x sources read; a 2025 proposal
// ("scsi: storvsc: Prefer returning channel with the same CPU as on the I/O issuing
// CPU") would keep a channel CPU's own channel, and is not modelled.
//   - cpu is a channel's own target CPU (stor_chns[cpu]->target_cpu == cpu): the
//     first other channel CPU after cpu, wrapping (for_each_cpu_wrap over
//     alloced_cpus from cpu + 1) whose outbound ring is above
//     ring_avail_percent_lowater; with one channel, cpu itself.
//   - any other cpu: the channel get_og_chn caches in stor_chns[cpu], the
//     (cpu mod channels)-th channel CPU.
//
// Assumption: no outbound ring is ever at or below the low-water mark (10 % free by
// default): a ring holds about max_outstanding_req_per_channel requests and the
// modelled scenarios keep at most one LUN's queue_depth in flight, far fewer. An
// empty channelCPUs returns cpu.
func StorvscChannelCPU(cpu int, channelCPUs []int) int {
	n := len(channelCPUs)
	if n == 0 {
		return cpu
	}
	for i, c := range channelCPUs {
		if c == cpu {
			return channelCPUs[(i+1)%n]
		}
	}
	return channelCPUs[cpu%n]
}

// Smartpqi is the Microchip smartpqi host (drivers/scsi/smartpqi/smartpqi_init.c,
// v6.1) for a controller reporting maxOutstanding requests, with numQueueGroups
// queue groups (one per CPU up to the controller's limit):
//   - can_queue: pqi_register_scsi_host sets shost->can_queue =
//     ctrl_info->scsi_ml_can_queue, which pqi_calculate_io_resources computes as
//     max_outstanding_requests − PQI_RESERVED_IO_SLOTS (passed here already reduced:
//     canQueue).
//   - cmd_per_lun: shost->cmd_per_lun = shost->can_queue (same function).
//   - nr_hw_queues: shost->nr_hw_queues = ctrl_info->num_queue_groups.
//   - host_tagset: shost->host_tagset = 1 (since v5.11, "scsi: smartpqi: Use
//     host-wide tag space").
//   - completion: one MSI-X vector per queue group, affine to its CPUs
//     (pqi_enable_msix_interrupts with PCI_IRQ_AFFINITY): CompleteOnHctxIRQ.
func Smartpqi(canQueue, numQueueGroups int) Template {
	return Template{Name: "smartpqi", CanQueue: canQueue, CmdPerLun: canQueue, NrHwQueues: numQueueGroups,
		HostTagset: true}
}

// SdebugCanQueue is SDEBUG_CANQUEUE (drivers/scsi/scsi_debug.c): 3 words × 64 bits =
// 192, the upper limit and default of max_queue and the value of DEF_CMD_PER_LUN.
const SdebugCanQueue = 192

// ScsiDebug is the scsi_debug host (drivers/scsi/scsi_debug.c, v6.1) for the module
// parameters max_queue (default 192), host_max_queue (default 0) and submit_queues
// (default 1; capped at the CPUs by the driver):
//   - can_queue: sdebug_driver_probe: host_max_queue if set, else max_queue
//     (sdebug_max_queue).
//   - cmd_per_lun: DEF_CMD_PER_LUN = SDEBUG_CANQUEUE (192) in sdebug_driver_template.
//   - nr_hw_queues: submit_queues.
//   - host_tagset: sdebug_driver_probe sets it when host_max_queue is set.
//   - completion: schedule_resp arms an hrtimer (HRTIMER_MODE_REL_PINNED) on the CPU
//     running queuecommand for delay/ndelay > 0, or completes from a work item
//     (jdelay < 0, not modelled) — CompleteOnIssueCPU. delay=0 and ndelay=0 respond
//     inside queuecommand (scsi_done from the same CPU), also CompleteOnIssueCPU.
//
// Its command slots: each submit queue (sdebug_queue) has max_queue of them
// (in_use_bm); with host_max_queue set, scsi_debug_init forces max_queue to it ("fixing
// max submit queue depth to host max queue depth"). When a queue's slots are full,
// schedule_resp answers SCSI_MLQUEUE_HOST_BUSY (device.NullParams.HostBusyWhenFull;
// TASK SET FULL only with the SDEBUG_OPT_ALL_TSF option); it also completes a command
// with TASK SET FULL status when the LUN has queue_depth commands queued (num_in_q),
// which the LUN budget never lets happen from v4.15 on. The tag set (can_queue per
// hctx, or host_max_queue host-wide) never offers more than the slots, so neither
// answer occurs in the modelled configurations; the model keeps one pool of
// max_queue × submit_queues slots per LUN device.
func ScsiDebug(maxQueue, hostMaxQueue, submitQueues int) Template {
	cq := maxQueue
	if hostMaxQueue > 0 {
		cq = hostMaxQueue
	}
	return Template{Name: "scsi_debug", CanQueue: cq, CmdPerLun: SdebugCanQueue, NrHwQueues: max(submitQueues, 1),
		HostTagset: hostMaxQueue > 0, Completion: CompleteOnIssueCPU}
}

// Generic is an HBA described by its Scsi_Host fields directly, with one interrupt
// vector per hardware queue (CompleteOnHctxIRQ).
func Generic(canQueue, cmdPerLun, nrHwQueues int, hostTagset bool) Template {
	return Template{Name: "generic", CanQueue: canQueue, CmdPerLun: cmdPerLun, NrHwQueues: nrHwQueues,
		HostTagset: hostTagset}
}

// Host is a SCSI host (struct Scsi_Host) on a tag set: the admission state (package
// budget: host_busy, host_blocked, the starved list), one target (not single-LUN, no
// target can_queue) and its LUNs.
type Host struct {
	dh         *dispatch.Host
	bhost      *budget.Host
	target     *budget.Target
	completion Completion
	chanCPUs   []int // VMBus channel target CPUs (CompleteOnVMBusChannel)
	byDevice   map[*budget.Device]*Device
	devices    []*Device
	busyLine   struct{} // key of the host_busy cache line (pre-v5.5 host_busy check)
	copies     bool     // the LLD copies each command's data (SetCopiesData)
}

// SetCopiesData marks the host's LLD as one that copies every command's data with
// the CPU inside queuecommand, as scsi_debug does (do_device_access →
// sg_copy_buffer between the scatterlist and its RAM store): each dispatched
// command is then charged dispatch.CPUCosts.DataCopyCmd plus DataCopyKiB per KiB of
// its length on the dispatching CPU. A real HBA moves data by DMA (false, the default).
func (h *Host) SetCopiesData(on bool) { h.copies = on }

// NewHost puts a SCSI host on the tag set dh (whose can_queue, nr_hw_queues and
// host-wide tags it shares) with completions as given. Era switches are those of
// dh's Options. It returns budget's errors for out-of-range fields.
func NewHost(dh *dispatch.Host, completion Completion) (*Host, error) {
	hc := dh.Config()
	h := &Host{dh: dh, completion: completion, byDevice: map[*budget.Device]*Device{}}
	if completion > CompleteOnVMBusChannel {
		return nil, fmt.Errorf("scsi: completion %v not one of hctx-irq, issue-cpu, vmbus-channel", completion)
	}
	var err error
	if h.bhost, err = budget.NewHost(budget.HostConfig{CanQueue: hc.CanQueue, NrHwQueues: hc.NrHwQueues,
		HostTagset: hc.HostTagset, Options: budgetOptions(hc.Options)}); err != nil {
		return nil, fmt.Errorf("scsi: %w", err)
	}
	if h.target, err = h.bhost.NewTarget(0, false); err != nil {
		return nil, fmt.Errorf("scsi: %w", err)
	}
	return h, nil
}

// SetChannelCPUs sets the target CPUs of the host's VMBus channels (ascending), used
// when completions are CompleteOnVMBusChannel (StorvscChannelCPU). It returns an
// error for a CPU outside [0, the tag set's CPUs) or an unsorted list.
func (h *Host) SetChannelCPUs(cpus []int) error {
	n := h.dh.Config().NrCPUs
	for i, c := range cpus {
		if c < 0 || c >= n {
			return fmt.Errorf("scsi: channel CPU %d out of range [0, %d]", c, n-1)
		}
		if i > 0 && c <= cpus[i-1] {
			return fmt.Errorf("scsi: channel CPUs %v not ascending", cpus)
		}
	}
	h.chanCPUs = append([]int(nil), cpus...)
	return nil
}

// budgetOptions maps the dispatch era switches onto the budget package's.
func budgetOptions(o dispatch.Options) budget.Options {
	b := budget.Options{
		RestartEveryCompletion: o.SCSIRestart == dispatch.RestartEveryCompletion,
		DeviceBusyCounter:      o.DeviceBusyCounter,
		HostBusyCheck:          o.HostBusyCheck,
		BudgetMapSkip:          o.BudgetMapSkip,
	}
	switch o.DevResource {
	case dispatch.DevResourceIfBusy:
		b.DevResource = budget.DevResourceIfDeviceBusy
	case dispatch.DevResourceIfOtherBudget:
		b.DevResource = budget.DevResourceIfOtherBudget
	}
	return b
}

// Budget returns the host's admission state (host_busy, host_blocked, starved list).
func (h *Host) Budget() *budget.Host { return h.bhost }

// Devices returns the LUNs added so far.
func (h *Host) Devices() []*Device { return h.devices }

// TagSet returns the block-layer tag set the host sits on.
func (h *Host) TagSet() *dispatch.Host { return h.dh }

// engine returns the simulation engine.
func (h *Host) engine() *sim.Engine { return h.dh.Engine() }
