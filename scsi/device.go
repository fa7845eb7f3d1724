package scsi

import (
	"fmt"

	"github.com/blkmq/blkmq/budget"
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
)

// DeviceConfig describes one LUN.
type DeviceConfig struct {
	// Device is the low-level driver and its hardware behind queuecommand.
	Device device.Device
	// QueueDepth is sdev->queue_depth (the LUN budget), [1, min(can_queue, 10000)].
	QueueDepth int
	// Queue is the request queue's block-layer configuration; its Ops is set by
	// AddDevice.
	Queue dispatch.LUNConfig
}

// Device is one LUN (struct scsi_device) and the mid-layer driver of its request queue:
// it implements dispatch.Ops, dispatch.BudgetOps and dispatch.DriverWaiter, and is the
// device.Completer of its commands.
type Device struct {
	host  *Host
	q     *dispatch.Queue
	dh    *dispatch.Host
	dev   device.Device
	sdev  *budget.Device
	hints []uint32 // per-CPU budget-map allocation hints
	shift int      // word shift of the budget map (sbitmap_calculate_shift at scan)
	lines budgetLines
	// wordLines[w] is the modelled line of budget-map word w (the device_busy
	// counter's for w 0 in the counter era), kept from Host.BudgetLine on first use
	wordLines []*sim.AtomicLine

	requeue requeueWork
	done    lldDone
	commits uint64
	ttwu    bool // dispatch.Timing.KblockdTTWU of the host
}

// lldDone receives the LLD's completions (scsi_done).
type lldDone struct{ d *Device }

var (
	_ dispatch.Ops          = (*Device)(nil)
	_ dispatch.BudgetOps    = (*Device)(nil)
	_ dispatch.DriverWaiter = (*Device)(nil)
	_ device.Completer      = (*lldDone)(nil)
)

// AddDevice adds a LUN to the host (scsi_alloc_sdev with its request queue). Errors
// name the LUN and the bad field.
func (h *Host) AddDevice(cfg DeviceConfig) (*Device, error) {
	n := len(h.devices)
	if cfg.Device == nil {
		return nil, fmt.Errorf("scsi: lun %d: device is nil", n)
	}
	maxQD := min(h.bhost.CanQueue(), budget.MaxQueueDepth)
	if cfg.QueueDepth < 1 || cfg.QueueDepth > maxQD {
		return nil, fmt.Errorf("scsi: lun %d: queue_depth %d out of range [1, %d]", n, cfg.QueueDepth, maxQD)
	}
	d := &Device{host: h, dh: h.dh, dev: cfg.Device, ttwu: h.dh.Config().Timing.KblockdTTWU}
	var err error
	if d.sdev, err = h.bhost.NewDevice(h.target, cfg.QueueDepth); err != nil {
		return nil, fmt.Errorf("scsi: lun %d: %w", n, err)
	}
	d.shift = sbitmap.ShiftOf(cfg.QueueDepth)
	d.hints = make([]uint32, h.dh.Config().NrCPUs)
	for i := range d.hints {
		d.hints[i] = d.sdev.InitHint(uint64(i))
	}
	d.requeue.d = d
	d.done.d = d
	lc := cfg.Queue
	lc.Ops = d
	if d.q, err = h.dh.AddLUN(lc); err != nil {
		return nil, err
	}
	h.byDevice[d.sdev] = d
	h.devices = append(h.devices, d)
	return d, nil
}

// Queue returns the LUN's request queue.
func (d *Device) Queue() *dispatch.Queue { return d.q }

// Budget returns the LUN's budget state (struct scsi_device's queue_depth, budget map
// or device_busy, device_blocked, restarts).
func (d *Device) Budget() *budget.Device { return d.sdev }

// LLD returns the device model behind queuecommand.
func (d *Device) LLD() device.Device { return d.dev }

// DeviceBusy returns the LUN's budget in use (scsi_device_busy).
func (d *Device) DeviceBusy() int { return d.sdev.Busy() }

// Restarts returns sdev->restarts.
func (d *Device) Restarts() int { return d.sdev.Restarts() }

// HasBudgetMap reports whether the LUN has a budget map (false in the device_busy era
// and when the budget-map skip of seed 003 applies).
func (d *Device) HasBudgetMap() bool { return d.sdev.HasBudgetMap() }

// CommitRQsCalls returns how often the block layer called commit_rqs.
func (d *Device) CommitRQsCalls() uint64 { return d.commits }

// chargeBudget charges a budget get (or put) of token on the current CPU: nothing
// with a skipped budget map; the device_busy counter's line in the counter era; else
// the cache line of the budget-map word holding token, or with
// CPUCosts.BudgetMapLines the lines the kernel's sbitmap touches (budgetLines.charge);
// and the operation's own cost.
func (d *Device) chargeBudget(token int, get bool) {
	h := d.dh
	if !h.CostsOn() || token < 0 && !get {
		return
	}
	failed := token < 0
	c := h.CostTable() // not nil: costs are on
	switch {
	case d.sdev.HasBudgetMap() && failed:
		d.budgetRMW(0) // the failed walk over the words
	case d.sdev.HasBudgetMap() && c.BudgetMapLines:
		d.lines.charge(d, token, get)
	case d.sdev.HasBudgetMap():
		d.budgetRMW(token >> d.shift)
	case d.q.Options().DeviceBusyCounter:
		d.budgetRMW(0)
	default:
		return // budget map skipped: get always succeeds, nothing to put
	}
	if get {
		h.Charge(c.BudgetGet)
	} else {
		h.Charge(c.BudgetPut)
	}
}

// budgetRMW is Host.BudgetRMW(d.sdev, word) through the line kept in wordLines.
func (d *Device) budgetRMW(word int) {
	if word >= len(d.wordLines) {
		d.wordLines = append(d.wordLines, make([]*sim.AtomicLine, word+1-len(d.wordLines))...)
	}
	l := d.wordLines[word]
	if l == nil {
		if l = d.dh.BudgetLine(d.sdev, word); l == nil {
			d.dh.BudgetRMW(d.sdev, word) // no line is charged
			return
		}
		d.wordLines[word] = l
	}
	d.dh.BudgetRMWLine(l)
}

// budgetLines are the cache lines of the LUN's budget map (sdev->budget_map, v5.13+)
// as lib/sbitmap.c uses them. Each struct sbitmap_word keeps its free-bit word and its
// deferred-cleared mask on separate cache lines (cleared is
// ____cacheline_aligned_in_smp). A get (sbitmap_get → __sbitmap_get_word) is a
// test_and_set_bit_lock on word; a put (sbitmap_put → sbitmap_deferred_clear_bit) a
// set_bit on cleared, so a put on another CPU does not take the word's line away from
// the allocating CPU. When a get finds no free bit in word, sbitmap_deferred_clear
// folds the mask back: an xchg of cleared and an atomic andnot of word, then the
// retried test_and_set. The model tracks, per word, the bits held and how many gets
// the last fold left room for (the word's bits below queue_depth less those held),
// and charges the fold on the get that exhausts them. Not charged: the per-CPU
// alloc_hint (a line of the CPU's own per-CPU area) and, since v6.9
// (72d04bdcf3f7), the fold's swap_lock (taken on a line the fold writes anyway).
// scsi_device_busy's sbitmap_weight, a read of every word, runs only when a get fails
// or the device is blocked (scsi_mq_get_budget, scsi_dev_queue_ready), never on the
// per-I/O path.
type budgetLines struct {
	cleared   struct{ _ byte } // identity of the cleared-mask lines (one per word)
	held      []int            // bits held per word
	untilFold []int            // gets left before a get finds the word exhausted
	folds     uint64
}

// charge charges a get or put of token's word.
func (l *budgetLines) charge(d *Device, token int, get bool) {
	w := token >> d.shift
	if w >= len(l.held) {
		n := w + 1
		l.held = append(l.held, make([]int, n-len(l.held))...)
		for len(l.untilFold) < n {
			l.untilFold = append(l.untilFold, d.wordBits(len(l.untilFold)))
		}
	}
	h := d.dh
	if !get {
		l.held[w]--
		h.BudgetRMW(&l.cleared, w) // set_bit on cleared
		return
	}
	if l.untilFold[w] <= 0 {
		l.folds++
		h.BudgetRMW(&l.cleared, w) // xchg(cleared)
		h.BudgetRMW(d.sdev, w)     // atomic andnot of word
		l.untilFold[w] = d.wordBits(w) - l.held[w]
	}
	l.untilFold[w]--
	l.held[w]++
	h.BudgetRMW(d.sdev, w) // test_and_set_bit_lock on word
}

// wordBits is the number of bits of budget-map word w below queue_depth.
func (d *Device) wordBits(w int) int {
	per := 1 << d.shift
	return max(0, min(per, d.sdev.QueueDepth()-w*per))
}

// GetBudget is scsi_mq_get_budget issued from cpu (budget.Device.GetBudget): a token
// >= 0, or -1 after counting a restart and, if the LUN is idle, delay-running its
// hctxs. Called by the block layer (blk_mq_get_dispatch_budget) on the CPU running the
// dispatch or the direct issue, no lock held.
func (d *Device) GetBudget(q *dispatch.Queue, cpu int) int {
	token, act := d.sdev.GetBudget(&d.hints[cpu])
	d.chargeBudget(token, true)
	if token < 0 {
		d.applyAction(act, cpu)
	}
	return token
}

// PutBudget is scsi_mq_put_budget (budget returned without a command sent), called by
// blk_mq_put_dispatch_budget on cpu.
func (d *Device) PutBudget(q *dispatch.Queue, token, cpu int) {
	d.chargeBudget(token, false)
	d.sdev.PutBudget(token, &d.hints[cpu])
}

// applyAction carries out a queue-run decision of the budget package.
func (d *Device) applyAction(act budget.Action, cpu int) {
	if act.RunQueues {
		d.q.CountCompletionRerun()
		d.q.RunHwQueues(cpu, true)
	}
	if act.Delay > 0 {
		d.q.DelayRunHwQueues(cpu)
	}
	if act.Requeue {
		d.requeue.schedule(cpu)
	}
}

// requeueWork is sdev->requeue_work on kblockd (scsi_requeue_run_queue): one pending
// at a time, run on the CPU that queued it (kblockd_schedule_work on a per-CPU
// workqueue); it runs scsi_run_queue (single-LUN siblings, the host's starved list,
// then this LUN), whose blk_mq_run_hw_queues(q, false) dispatches inline the hctxs
// whose cpumask holds the kworker's CPU and punts the others to kblockd.
type requeueWork struct {
	d       *Device
	cpu     int
	pending bool
}

func (w *requeueWork) schedule(cpu int) {
	if w.pending {
		return
	}
	w.pending, w.cpu = true, cpu
	if w.d.ttwu {
		// kblockd_schedule_work queues on the running CPU: its own worker, woken
		// without an IPI (dispatch.Timing.KblockdTTWU)
		w.d.host.engine().At(w.d.dh.KblockdDue(cpu, cpu), w)
		return
	}
	w.d.host.engine().After(w.d.dh.KblockdDelay(), w)
}

// Fire runs scsi_run_queue.
func (w *requeueWork) Fire(sim.Time) {
	w.pending = false
	h := w.d.host
	h.dh.OnCPU(w.cpu)
	run := h.bhost.RunQueue(w.d.sdev)
	for s, ok := run.Next(); ok; s, ok = run.Next() {
		if d := h.byDevice[s]; d != nil {
			d.q.RunHwQueues(w.cpu, false)
		}
	}
}

func dispatchStatus(s budget.Status) dispatch.Status {
	switch s {
	case budget.StatusOK:
		return dispatch.BlkStsOK
	case budget.StatusDevResource:
		return dispatch.BlkStsDevResource
	}
	return dispatch.BlkStsResource
}

// QueueRQ is scsi_queue_rq with the budget already held: target and host readiness
// (budget.Device.Prepare), then the LLD's queuecommand (the device model). A refusal
// (SCSI_MLQUEUE_DEVICE_BUSY or _HOST_BUSY) arms the blocked countdown, puts the budget
// and answers BLK_STS_RESOURCE or BLK_STS_DEV_RESOURCE per Options.DevResource (case
// R16). Called by the block layer's dispatch on cpu, the budget token in rq.
func (d *Device) QueueRQ(hctx *dispatch.Hctx, rq *dispatch.Request, last bool, cpu int) dispatch.Status {
	hint := &d.hints[cpu]
	h := d.dh
	if c := h.CostTable(); c != nil { // (Costs() copies the table)
		h.Charge(c.HostCheck)
	}
	if d.q.Options().HostBusyCheck {
		h.Touch(&d.host.busyLine, 0) // the pre-v5.5 host_busy atomic
	}
	token := rq.BudgetToken()
	if st := d.sdev.Prepare(token, hint); st != budget.StatusOK {
		d.chargeBudget(token, false)
		return dispatchStatus(st)
	}
	cmd := rq.Cmd()
	*cmd = device.Command{Op: rq.Op, Offset: rq.Offset, Length: rq.Length, Sync: rq.Sync, Done: &d.done, Priv: rq}
	reject := budget.HostBusy
	if c := h.CostTable(); c != nil { // (Costs() copies the table)
		h.Charge(c.QueueRq)
		if d.host.copies && (c.DataCopyKiB > 0 || c.DataCopyCmd > 0) {
			// scsi_debug: resp_read_dt0 / resp_write_dt0 copy the data in queuecommand
			h.Charge(c.DataCopyCmd + (c.DataCopyKiB*sim.Time(rq.Length)+512)/1024)
		}
	}
	switch d.dev.Submit(cmd) {
	case device.Accepted:
		return dispatch.BlkStsOK
	case device.Busy:
		reject = budget.DeviceBusy
	}
	d.chargeBudget(token, false)
	return dispatchStatus(d.sdev.DispatchFailed(reject, token, hint))
}

// CommitRQs is scsi_commit_rqs: the LLD's commit_rqs (none of the modelled LLDs
// batches doorbells, so it only counts).
func (d *Device) CommitRQs(*dispatch.Hctx, int) { d.commits++ }

// Timeout is scsi_timeout: the model never calls it (see dispatch.Ops.Timeout);
// BLK_EH_DONE hands the command to error handling in the kernel.
func (d *Device) Timeout(*dispatch.Request) dispatch.TimeoutAction { return dispatch.BlkEHDone }

// InitHctx is scsi_init_hctx: nothing to set up.
func (d *Device) InitHctx(*dispatch.Hctx) error { return nil }

// Complete receives a command completion from the LLD (scsi_done): the completion
// runs on the CPU of the LLD's interrupt or timer (Template.Completion), through
// blk_mq_complete_request.
func (l *lldDone) Complete(cmd *device.Command, _ sim.Time) {
	d := l.d
	rq := cmd.Priv.(*dispatch.Request)
	cpu := rq.IssueCPU()
	switch d.host.completion {
	case CompleteOnHctxIRQ:
		cpu = rq.Hctx().CPUs()[0]
	case CompleteOnVMBusChannel:
		cpu = StorvscChannelCPU(cpu, d.host.chanCPUs)
	}
	d.q.CompleteRequest(rq, cpu)
}

// Complete is scsi_complete → scsi_finish_command → scsi_end_request, called by the
// block layer (blk_mq_complete_request) on the completion CPU: unbusy the LUN, target
// and host, clear the blocked countdowns, end the request, then scsi_run_queue_async.
// Everything here runs on cpu, the completing CPU: scsi_device_unbusy frees the budget
// with sbitmap_put, which stores the freed token in the running CPU's alloc_hint
// (raw_cpu_ptr, include/linux/sbitmap.h), not the submitter's; the restart runs and the
// requeue work are issued from cpu too (blk_mq_run_hw_queues picks the single-queue
// hctx of the running CPU; kblockd_schedule_work queues on it).
func (d *Device) Complete(rq *dispatch.Request, cpu int) {
	h := d.dh
	if c := h.CostTable(); c != nil { // (Costs() copies the table)
		h.Charge(c.Completion)
	}
	token := rq.BudgetToken()
	d.chargeBudget(token, false)
	d.sdev.Unbusy(token, &d.hints[cpu])
	d.sdev.FinishCommand() // scsi_finish_command: clear the blocked countdowns
	rq.SetBudgetToken(-1)
	d.q.EndRequest(rq)
	d.applyAction(d.sdev.EndRequest(), cpu)
}

// DriverWait reports the LUN's and host's limits for hang reports.
func (d *Device) DriverWait() dispatch.DriverWait {
	return dispatch.DriverWait{HasBudget: true, BudgetBusy: d.sdev.Busy(), QueueDepth: d.sdev.QueueDepth(),
		DeviceBlocked: d.sdev.Blocked(), HostBusy: d.host.bhost.Busy(), CanQueue: d.host.bhost.CanQueue(),
		HostBlocked: d.host.bhost.Blocked(), DeviceInFlight: d.dev.InFlight()}
}
