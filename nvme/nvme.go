// Package nvme is an NVMe-like PCIe controller as a blk-mq driver (drivers/nvme/host/
// pci.c, v6.1, nvme_mq_ops): it implements dispatch.Ops without dispatch.BudgetOps
// (nvme_mq_ops has no .get_budget), so only the controller's tag set limits a
// namespace. The tag set is the controller's: every namespace of one controller is a
// request queue on it (BLK_MQ_F_TAG_QUEUE_SHARED once there are two), and each
// controller has its own.
//
// Template gives the tag set as nvme_pci_alloc_tag_set builds it. Commands complete
// from the I/O queue's interrupt (nvme_irq → nvme_poll_cq → blk_mq_complete_request):
// the queue's MSI-X vector has managed affinity over the hctx's CPUs and arrives on the
// first of them; rq_affinity=1 then sends the completion to the submitting CPU if it
// does not share that CPU's cache. commit_rqs (nvme_commit_rqs) rings the submission
// doorbell of a batch; the device model has no doorbell cost, so it only counts.
package nvme

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// DefaultIOQueueDepth is the nvme module parameter io_queue_depth's default (1024).
const DefaultIOQueueDepth = 1024

// Template is an NVMe controller's blk_mq_tag_set as the PCIe driver sets it up.
type Template struct {
	// NrHwQueues is the number of I/O queues: nvme_setup_io_queues asks for one per
	// possible CPU (plus write/poll queues, none by default) and gets at most what the
	// controller grants (Number of Queues feature); mapped as hctxs.
	NrHwQueues int
	// QueueDepth is set->queue_depth = min(q_depth, BLK_MQ_MAX_DEPTH) − 1 with q_depth
	// = min(CAP.MQES + 1, io_queue_depth) (nvme_pci_enable, nvme_pci_alloc_tag_set):
	// one slot of each submission queue stays empty to tell full from empty.
	QueueDepth int
}

// Controller returns the template of a controller on nrCPUs CPUs that grants maxQueues
// I/O queues (0 = as many as asked) with CAP.MQES mqes (0-based maximum queue entries)
// and the module parameter io_queue_depth (0 = DefaultIOQueueDepth).
func Controller(nrCPUs, maxQueues, mqes, ioQueueDepth int) Template {
	n := nrCPUs
	if maxQueues > 0 {
		n = min(n, maxQueues)
	}
	if ioQueueDepth <= 0 {
		ioQueueDepth = DefaultIOQueueDepth
	}
	qd := ioQueueDepth
	if mqes > 0 {
		qd = min(qd, mqes+1)
	}
	return Template{NrHwQueues: max(n, 1), QueueDepth: max(min(qd, 10240)-1, 1)}
}

// Namespace is one namespace (struct nvme_ns) and its request queue. It implements
// dispatch.Ops and dispatch.DriverWaiter.
type Namespace struct {
	q       *dispatch.Queue
	dh      *dispatch.Host
	dev     device.Device
	done    doneFn
	commits uint64
}

var (
	_ dispatch.Ops          = (*Namespace)(nil)
	_ dispatch.DriverWaiter = (*Namespace)(nil)
)

// NewNamespace adds a namespace served by dev on the controller's tag set dh
// (nvme_alloc_ns → blk_mq_init_queue). It returns an error for a nil device, or
// AddLUN's.
func NewNamespace(dh *dispatch.Host, dev device.Device, lc dispatch.LUNConfig) (*Namespace, error) {
	if dev == nil {
		return nil, fmt.Errorf("nvme: device is nil")
	}
	ns := &Namespace{dh: dh, dev: dev}
	ns.done.ns = ns
	lc.Ops = ns
	q, err := dh.AddLUN(lc)
	if err != nil {
		return nil, err
	}
	ns.q = q
	return ns, nil
}

// Queue returns the namespace's request queue.
func (ns *Namespace) Queue() *dispatch.Queue { return ns.q }

// CommitRQsCalls returns how often the block layer called commit_rqs.
func (ns *Namespace) CommitRQsCalls() uint64 { return ns.commits }

// QueueRQ is nvme_queue_rq: build the command and post it to the hctx's submission
// queue (the device model). A refusal by the model answers BLK_STS_DEV_RESOURCE (the
// queue is re-run by the next completion). Called on cpu with the driver tag held.
func (ns *Namespace) QueueRQ(_ *dispatch.Hctx, rq *dispatch.Request, _ bool, _ int) dispatch.Status {
	if c := ns.dh.CostTable(); c != nil { // (Costs() copies the table)
		ns.dh.Charge(c.QueueRq)
	}
	cmd := rq.Cmd()
	*cmd = device.Command{Op: rq.Op, Offset: rq.Offset, Length: rq.Length, Sync: rq.Sync, Done: &ns.done, Priv: rq}
	if ns.dev.Submit(cmd) != device.Accepted {
		return dispatch.BlkStsDevResource
	}
	return dispatch.BlkStsOK
}

// doneFn receives the device model's completions: the I/O queue's interrupt.
type doneFn struct{ ns *Namespace }

// Complete is nvme_irq for one completion queue entry, on the first CPU of the hctx.
func (f *doneFn) Complete(cmd *device.Command, _ sim.Time) {
	rq := cmd.Priv.(*dispatch.Request)
	f.ns.q.CompleteRequest(rq, rq.Hctx().CPUs()[0])
}

// Complete is nvme_pci_complete_rq: blk_mq_end_request on cpu.
func (ns *Namespace) Complete(rq *dispatch.Request, _ int) {
	if c := ns.dh.CostTable(); c != nil { // (Costs() copies the table)
		ns.dh.Charge(c.Completion)
	}
	ns.q.EndRequest(rq)
}

// CommitRQs is nvme_commit_rqs (rings the doorbell): counted only.
func (ns *Namespace) CommitRQs(*dispatch.Hctx, int) { ns.commits++ }

// Timeout is nvme_timeout (abort, then reset); the model never calls it.
func (ns *Namespace) Timeout(*dispatch.Request) dispatch.TimeoutAction {
	return dispatch.BlkEHResetTimer
}

// InitHctx is nvme_init_hctx: binds the hctx to its nvme_queue; nothing to model.
func (ns *Namespace) InitHctx(*dispatch.Hctx) error { return nil }

// DriverWait reports the device model's commands in flight (no budget, no host).
func (ns *Namespace) DriverWait() dispatch.DriverWait {
	return dispatch.DriverWait{DeviceInFlight: ns.dev.InFlight()}
}
