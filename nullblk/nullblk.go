// Package nullblk is the null_blk block driver (drivers/block/null_blk/main.c, v6.1,
// queue_mode=2) as a blk-mq driver: it implements dispatch.Ops and, unlike SCSI, no
// dispatch.BudgetOps — null_mq_ops has no .get_budget, so blk_mq_get_dispatch_budget
// always succeeds and only the driver tags limit a device: hw_queue_depth tags per hctx
// (submit_queues hctxs), or one shared set of hw_queue_depth with shared_tag_bitmap.
// shared_tags=1 puts every device on one tag set (null_init_tag_set with
// tag_set); without it each device has its own (nullb->__tag_set).
//
// Completion (null_handle_cmd → nullb_complete_cmd, by irqmode):
//   - IRQNone (0): end_cmd → blk_mq_end_request inside queue_rq, on the CPU running
//     it; no blk_mq_complete_request, so no rq_affinity redirect.
//   - IRQSoftIRQ (1): blk_mq_complete_request from queue_rq on the CPU running it
//     (completed locally, or through BLOCK_SOFTIRQ on that CPU; sent to the submitting
//     CPU by rq_affinity only if the two do not share a cache).
//   - IRQTimer (2): an hrtimer armed by queue_rq (null_cmd_end_timer, HRTIMER_MODE_REL)
//     fires after completion_nsec on the CPU that armed it and calls
//     blk_mq_complete_request there. The kernel may migrate an unpinned hrtimer to a
//     busy CPU when the arming CPU goes idle (timer migration); not modelled.
//
// The completion delay itself (completion_nsec for irqmode 2, none otherwise) and mbps
// are the device model's (device.Null); the model runs an irqmode-0/1 completion as
// an event at the same virtual time, on the same CPU, right after queue_rq returns.
// blocking=1 is the tag-set flag BLK_MQ_F_BLOCKING (see Blocking), no_sched=1
// BLK_MQ_F_NO_SCHED; the caller sets them on the dispatch host.
package nullblk

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// IRQMode is null_blk's irqmode module parameter.
type IRQMode uint8

const (
	// IRQNone is irqmode=0 (NULL_IRQ_NONE).
	IRQNone IRQMode = iota
	// IRQSoftIRQ is irqmode=1 (NULL_IRQ_SOFTIRQ), the default.
	IRQSoftIRQ
	// IRQTimer is irqmode=2 (NULL_IRQ_TIMER).
	IRQTimer
)

// String returns "none", "softirq" or "timer".
func (m IRQMode) String() string {
	switch m {
	case IRQNone:
		return "none"
	case IRQSoftIRQ:
		return "softirq"
	case IRQTimer:
		return "timer"
	}
	return fmt.Sprintf("IRQMode(%d)", uint8(m))
}

// Flags returns the BLK_MQ_F_* flags null_init_tag_set gives a tag set for the
// blocking and no_sched module parameters (BLK_MQ_F_SHOULD_MERGE always).
func Flags(blocking, noSched bool) dispatch.TagSetFlags {
	f := dispatch.BlkMqFShouldMerge
	if blocking {
		f |= dispatch.BlkMqFBlocking
	}
	if noSched {
		f |= dispatch.BlkMqFNoSched
	}
	return f
}

// Config describes one null_blk device.
type Config struct {
	// Device is the model of the data path (device.Null with completion_nsec for
	// irqmode 2, 0 otherwise, and mbps).
	Device device.Device
	// IRQMode selects where and how commands complete.
	IRQMode IRQMode
	// Queue is the request queue's block-layer configuration; its Ops is set by New.
	Queue dispatch.LUNConfig
}

// Device is one null_blk device (struct nullb) and its request queue. It implements
// dispatch.Ops and dispatch.DriverWaiter.
type Device struct {
	q       *dispatch.Queue
	dh      *dispatch.Host
	dev     device.Device
	irq     IRQMode
	done    doneFn
	commits uint64
}

var (
	_ dispatch.Ops          = (*Device)(nil)
	_ dispatch.DriverWaiter = (*Device)(nil)
	_ device.Completer      = (*doneFn)(nil)
)

// RqTimeout is null_blk's request timeout: null_init_tag_set gives its tag sets
// (the shared one of shared_tags included) a timeout of 5 s (5 * HZ), which
// blk_mq_init_allocated_queue makes every queue's rq_timeout. Sourced.
const RqTimeout = 5 * sim.Second

// New adds a null_blk device on the tag set dh (null_add_dev → blk_mq_init_queue).
// It returns an error for a nil device or an irqmode out of range [0, 2], or AddLUN's.
func New(dh *dispatch.Host, cfg Config) (*Device, error) {
	if cfg.Device == nil {
		return nil, fmt.Errorf("nullblk: device is nil")
	}
	if cfg.IRQMode > IRQTimer {
		return nil, fmt.Errorf("nullblk: irqmode %d out of range [0, 2]", cfg.IRQMode)
	}
	d := &Device{dh: dh, dev: cfg.Device, irq: cfg.IRQMode}
	d.done.d = d
	lc := cfg.Queue
	lc.Ops = d
	q, err := dh.AddLUN(lc)
	if err != nil {
		return nil, err
	}
	if err := q.SetRqTimeout(RqTimeout); err != nil {
		return nil, err
	}
	d.q = q
	return d, nil
}

// Queue returns the device's request queue.
func (d *Device) Queue() *dispatch.Queue { return d.q }

// IRQMode returns the device's irqmode.
func (d *Device) IRQMode() IRQMode { return d.irq }

// CommitRQsCalls returns how often the block layer called commit_rqs.
func (d *Device) CommitRQsCalls() uint64 { return d.commits }

// QueueRQ is null_queue_rq: start the command and hand it to the data path (the device
// model). A refusal by the model (only with its optional busy injection) answers
// BLK_STS_DEV_RESOURCE, as null_blk's throttled and requeue paths do. Called by the
// block layer on cpu with the driver tag held; no budget.
func (d *Device) QueueRQ(_ *dispatch.Hctx, rq *dispatch.Request, _ bool, _ int) dispatch.Status {
	if c := d.dh.CostTable(); c != nil { // (Costs() copies the table)
		d.dh.Charge(c.QueueRq)
	}
	cmd := rq.Cmd()
	*cmd = device.Command{Op: rq.Op, Offset: rq.Offset, Length: rq.Length, Sync: rq.Sync, Done: &d.done, Priv: rq}
	if d.dev.Submit(cmd) != device.Accepted {
		return dispatch.BlkStsDevResource
	}
	return dispatch.BlkStsOK
}

// doneFn receives the data path's completions.
type doneFn struct{ d *Device }

// Complete routes a finished command by irqmode (see the package comment).
func (f *doneFn) Complete(cmd *device.Command, _ sim.Time) {
	d := f.d
	rq := cmd.Priv.(*dispatch.Request)
	cpu := rq.IssueCPU() // the CPU that ran queue_rq (and armed the hrtimer)
	if d.irq == IRQNone {
		d.q.CompleteRequestLocal(rq, cpu)
		return
	}
	d.q.CompleteRequest(rq, cpu)
}

// Complete is null_complete_rq (end_cmd): blk_mq_end_request on cpu.
func (d *Device) Complete(rq *dispatch.Request, _ int) {
	if c := d.dh.CostTable(); c != nil { // (Costs() copies the table)
		d.dh.Charge(c.Completion)
	}
	d.q.EndRequest(rq)
}

// CommitRQs: null_blk has no .commit_rqs; the block layer's call only counts.
func (d *Device) CommitRQs(*dispatch.Hctx, int) { d.commits++ }

// Timeout is null_timeout_rq: the command is completed with an error (BLK_EH_DONE).
// The model never calls it (see dispatch.Ops.Timeout).
func (d *Device) Timeout(*dispatch.Request) dispatch.TimeoutAction { return dispatch.BlkEHDone }

// InitHctx is null_init_hctx: binds the hctx to its nullb_queue; nothing to model.
func (d *Device) InitHctx(*dispatch.Hctx) error { return nil }

// DriverWait reports the device model's commands in flight (no budget, no host).
func (d *Device) DriverWait() dispatch.DriverWait {
	return dispatch.DriverWait{DeviceInFlight: d.dev.InFlight()}
}
