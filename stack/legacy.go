package stack

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/legacy"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// blockQueue is the request queue a job submits to: a blk-mq queue (*dispatch.Queue)
// or a LUN of a host without blk-mq (*legacyLUN). Both take the job's dispatch.Bio,
// tag waiter and plug, and run on the machine's CPUs through their dispatch.Host.
type blockQueue interface {
	SubmitBioPlug(b *dispatch.Bio, cpu int, nowait bool, tw *dispatch.TagWaiter, plug *dispatch.Plug) dispatch.SubmitResult
	Host() *dispatch.Host
	BioWait(b *dispatch.Bio) dispatch.BioWait
	Elevator() dispatch.Elevator
}

var (
	_ blockQueue = (*dispatch.Queue)(nil)
	_ blockQueue = (*legacyLUN)(nil)
	_ legacy.CPU = (*dispatch.Host)(nil)
)

// legacyLUN is a SCSI LUN on a host with Host.Legacy (scsi_mod.use_blk_mq=0, v4.x): the
// single-queue request path of package legacy — blk_queue_bio (plug and elevator
// merges, get_request from the nr_requests pools, sleeping in it when a pool is full),
// the deadline or noop elevator, scsi_request_fn starting requests with the host's
// legacy tags up to queue_depth — in front of the LUN's device, on the same simulated
// CPUs as the blk-mq hosts (the costs of the steps are dispatch.CPUCosts' entries of
// the same name). The host's completion interrupt is its one vector: CPU 0 for an HBA
// (Completion CompleteOnHctxIRQ), the issuing CPU for scsi_debug's hrtimer; the
// BLOCK_SOFTIRQ runs there or, by IPI, on the submitting CPU (rq_affinity=1).
//
// Not modelled: queue_lock contention (every step above takes it), cfq, bio
// splitting (a bio above max_sectors_kb is refused by Check), and REQ_NOWAIT (the
// legacy path predates io_uring, so io_uring jobs are refused).
type legacyLUN struct {
	host  *dispatch.Host
	q     *legacy.Queue
	dev   device.Device
	bios  uint64
	byBio map[*dispatch.Bio]*legacyBio
	plugs map[*dispatch.Plug]*legacyPlug
	waits map[*dispatch.TagWaiter]*legacyWait
}

// legacyBio is the legacy-path bio of one job bio (one per io_u, reused).
type legacyBio struct {
	lb legacy.Bio
	db *dispatch.Bio
}

// EndIO ends the job's bio with the legacy request's issue time.
func (x *legacyBio) EndIO(_ *legacy.Bio, now sim.Time) {
	x.db.IssuedAt = x.lb.IssuedAt
	x.db.End.EndBio(x.db, now, nil)
}

// legacyPlug holds a task's legacy requests under its dispatch.Plug; it is the plug's
// unplug callback.
type legacyPlug struct {
	l  *legacyLUN
	lp *legacy.Plug
}

// Unplug flushes the legacy plug (blk_flush_plug_list → queue_unplugged) on cpu.
func (p *legacyPlug) Unplug(cpu int, _ bool) {
	p.l.host.OnCPU(cpu)
	p.lp.Finish()
}

// legacyWait is a task asleep in get_request with bio db (the pool of its class was
// full), woken by freed_request.
type legacyWait struct {
	l     *legacyLUN
	tw    *dispatch.TagWaiter
	x     *legacyBio
	woken bool // freed_request woke it; the next Fire runs the task
}

func newLegacyLUN(h *dispatch.Host, dev device.Device, cfg legacy.Config) (*legacyLUN, error) {
	q, err := legacy.New(h.Engine(), dev, cfg)
	if err != nil {
		return nil, err
	}
	return &legacyLUN{host: h, q: q, dev: dev, byBio: map[*dispatch.Bio]*legacyBio{},
		plugs: map[*dispatch.Plug]*legacyPlug{}, waits: map[*dispatch.TagWaiter]*legacyWait{}}, nil
}

// Host returns the dispatch host whose CPUs the LUN's paths run on.
func (l *legacyLUN) Host() *dispatch.Host { return l.host }

// Elevator returns nil: the LUN has no blk-mq elevator.
func (l *legacyLUN) Elevator() dispatch.Elevator { return nil }

// SubmitBioPlug is submit_bio of b by a task on cpu into the legacy queue: the task's
// syscall and bio costs (Submit + BioAlloc, as on the blk-mq path), then blk_queue_bio
// under the task's plug when it has one. A full request pool puts the task to sleep
// (Sleeping: tw's Sleeper is told when the bio is queued). nowait is ignored: Check
// refuses io_uring jobs on a legacy LUN.
func (l *legacyLUN) SubmitBioPlug(b *dispatch.Bio, cpu int, _ bool, tw *dispatch.TagWaiter, plug *dispatch.Plug) dispatch.SubmitResult {
	l.bios++
	h := l.host
	h.OnCPU(cpu)
	c := h.Costs()
	h.Charge(c.SubmitCharge(b.SameCall) + c.BioAlloc)
	x := l.byBio[b]
	if x == nil {
		x = &legacyBio{db: b}
		l.byBio[b] = x
	}
	x.lb = legacy.Bio{Op: b.Op, Sync: b.Sync, Offset: b.Offset, Length: b.Length,
		Segments: int((b.Length + 4095) / 4096), End: x, CPU: cpu}
	st := l.q.Stats()
	before := st.BackMerges + st.FrontMerges + st.PlugMerges
	if l.q.SubmitBio(&x.lb, l.plugOf(plug)) {
		if tw == nil {
			return dispatch.WouldBlock
		}
		l.sleep(tw, x)
		return dispatch.Sleeping
	}
	b.AllocatedAt = h.Engine().Now()
	if st = l.q.Stats(); st.BackMerges+st.FrontMerges+st.PlugMerges > before {
		return dispatch.Merged
	}
	return dispatch.Queued
}

// plugOf returns the legacy plug of the task's plug (nil when it has none active),
// hooked as an unplug callback.
func (l *legacyLUN) plugOf(plug *dispatch.Plug) *legacy.Plug {
	if !plug.Active() {
		return nil
	}
	p := l.plugs[plug]
	if p == nil {
		p = &legacyPlug{l: l, lp: l.q.StartPlug()}
		l.plugs[plug] = p
	}
	plug.AddCallback(p)
	return p.lp
}

// sleep puts the task to sleep in get_request until a request of the bio's class is
// freed.
func (l *legacyLUN) sleep(tw *dispatch.TagWaiter, x *legacyBio) {
	w := l.waits[tw]
	if w == nil {
		w = &legacyWait{l: l, tw: tw}
		l.waits[tw] = w
	}
	w.x, w.woken = x, false
	l.q.WaitRequest(x.lb.Sync || x.lb.Op == device.OpRead, w)
}

// Fire is freed_request waking the task (try_to_wake_up charged on the freeing CPU;
// the task runs after the wake-up delay), then the task retrying get_request on the
// CPU it wakes on.
func (w *legacyWait) Fire(now sim.Time) {
	l, h := w.l, w.l.host
	if !w.woken {
		w.woken = true
		h.Charge(h.Costs().Wakeup)
		h.Engine().After(h.WakeupDelay(), w)
		return
	}
	cpu := w.tw.S.WakeCPU(now)
	h.OnCPU(cpu)
	w.x.lb.CPU = cpu
	if l.q.SubmitBio(&w.x.lb, l.plugOf(w.tw.Plug)) {
		l.sleep(w.tw, w.x)
		return
	}
	w.x.db.AllocatedAt = now
	w.tw.S.Unblocked(w.x.db, now)
}

// BioWait reports where b waits: in the device once request_fn started its request,
// else in the queue (plug, elevator, dispatch list or the request pool).
func (l *legacyLUN) BioWait(b *dispatch.Bio) dispatch.BioWait {
	w := dispatch.BioWait{Hctx: 0, CPU: -1, Tag: -1, SchedTag: -1, In: dispatch.WaitElevator, For: dispatch.WaitElevator,
		QueueDepth: l.q.Config().QueueDepth, NrTags: l.q.Config().QueueDepth, DeviceInFlight: l.dev.InFlight()}
	x := l.byBio[b]
	if x == nil {
		w.In, w.For = dispatch.WaitNone, dispatch.WaitNone
		return w
	}
	if x.lb.IssuedAt > 0 {
		w.In, w.For, w.Since = dispatch.WaitDevice, dispatch.WaitDevice, x.lb.IssuedAt
	}
	return w
}

// stats returns the LUN's counters in blk-mq terms: bios, commands started (and their
// bytes), requests completed, bios merged.
func (l *legacyLUN) stats() dispatch.QueueStats {
	st := l.q.Stats()
	return dispatch.QueueStats{Bios: l.bios, Dispatched: st.ReadCmds + st.WriteCmds,
		DispatchedBytes: uint64(st.ReadCmdBytes + st.WriteCmdBytes),
		Completed:       st.CompletedCmds[0] + st.CompletedCmds[1],
		Merges:          st.BackMerges + st.FrontMerges + st.PlugMerges + st.InsertMerges}
}

// legacyConfig is the legacy queue of LUN l on host h: the LUN's queue_depth as the
// tag and device depth, nr_requests per pool (0 = BLKDEV_MAX_RQ), max_sectors_kb (0 =
// 1280, BLK_DEF_MAX_SECTORS since v4.3), the elevator, the host's CPU costs and its
// completion interrupt.
func (c *Config) legacyConfig(l LUN, h *dispatch.Host) legacy.Config {
	lc := legacy.Config{QueueDepth: c.lunQueueDepth(l), NrRequests: l.NrRequests, MaxSectorsBytes: 1280 << 10}
	if l.MaxSectorsKB > 0 {
		lc.MaxSectorsBytes = int64(l.MaxSectorsKB) << 10
	}
	if l.Scheduler == "noop" {
		lc.Elevator = legacy.NewNoop()
	} else {
		lc.Elevator, _ = legacy.NewDeadline(legacy.DefaultDeadlineParams())
	}
	if c.hostAt(l.Host).Completion == scsi.CompleteOnIssueCPU {
		lc.IRQCPU = legacy.IRQOnIssueCPU
	}
	if h.CostsOn() {
		k := h.Costs()
		lc.CPU = h
		lc.Costs = legacy.Costs{Merge: k.Merge, Insert: k.Insert, Elevator: k.Elevator, Dispatch: k.Dispatch,
			HostCheck: k.HostCheck, TagGet: k.TagGet, QueueRq: k.QueueRq, Completion: k.Completion,
			TagPut: k.TagPut, EndBio: k.EndBio, IPI: k.IPI, ElevatorLines: k.ElevatorLines}
	}
	return lc
}

// kernelMajor returns the major number of a release string ("4.15", "6.1.192",
// "6.1.0-57-amd64"), or -1.
func kernelMajor(v string) int {
	maj, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(maj)
	if err != nil {
		return -1
	}
	return n
}

// validateLegacy checks the hosts with Legacy and their LUNs: a SCSI host, a kernel
// before v5.0 (which removed the legacy path), one LUN per host (the host-wide legacy
// tag map that LUNs of one host share is not modelled), and the legacy schedulers.
func (c *Config) validateLegacy() error {
	lunsOn := make([]int, c.nrHosts())
	for i, l := range c.LUNs {
		if l.Host >= 0 && l.Host < len(lunsOn) {
			lunsOn[l.Host]++
			if c.hostAt(l.Host).Legacy && lunsOn[l.Host] > 1 {
				return configErrorf(fmt.Sprintf("LUNs[%d].Host", i), "LUNs[%d].Host %d: a Legacy host carries one LUN in this model (the host-wide legacy tag map of several LUNs is not modelled)", i, l.Host)
			}
			if qd := c.lunQueueDepth(l); c.hostAt(l.Host).Legacy && qd > tagset.LegacyMaxDepth {
				return configErrorf(fmt.Sprintf("LUNs[%d].QueueDepth", i), "LUNs[%d]: queue_depth %d on a Legacy host out of range [1, %d] (the legacy tag map's limit)", i, qd, tagset.LegacyMaxDepth)
			}
		}
	}
	for i := range c.nrHosts() {
		h := c.hostAt(i)
		if !h.Legacy {
			continue
		}
		name := "Host"
		if i > 0 {
			name = fmt.Sprintf("Hosts[%d]", i-1)
		}
		if h.Driver != DriverSCSI {
			return configErrorf(name+".Legacy", "%s.Legacy with Driver %v: only SCSI hosts had the legacy path (scsi_mod.use_blk_mq=0)", name, h.Driver)
		}
		if m := kernelMajor(c.Kernel); c.Kernel == "" || m >= 5 {
			return configErrorf(name+".Legacy", "%s.Legacy with Kernel %q: the legacy request path was removed in v5.0; set Kernel to a 4.x release", name, c.Kernel)
		}
	}
	return nil
}

// legacyScheduler reports whether LUN l sits on a Legacy host, and whether its
// Scheduler is one of the legacy path's modelled elevators.
func (c *Config) legacyScheduler(l LUN) (onLegacy, ok bool) {
	if l.Host < 0 || l.Host >= c.nrHosts() || !c.hostAt(l.Host).Legacy {
		return false, false
	}
	return true, l.Scheduler == "deadline" || l.Scheduler == "noop"
}

// legacyLUNScheduler returns the error for LUNs[i] on a Legacy host whose Scheduler is
// not "deadline" or "noop" ("" included: the usual CONFIG_DEFAULT_IOSCHED of v4.x, cfq,
// is not modelled), nil otherwise.
func legacyLUNScheduler(c *Config, l LUN, i int) error {
	if onLegacy, ok := c.legacyScheduler(l); onLegacy && !ok {
		return configErrorf(fmt.Sprintf("LUNs[%d].Scheduler", i), "LUNs[%d].Scheduler %q on a Legacy host not one of \"deadline\", \"noop\" (cfq is not modelled)", i, l.Scheduler)
	}
	return nil
}

// checkLegacyJob refuses spec i on LUN lun when that LUN is a legacy one the legacy
// path cannot run it on: an io_uring job (io_uring came in v5.1, after the legacy path
// was removed; the model has no REQ_NOWAIT on it), or a block larger than
// max_sectors_kb (bio splitting is not modelled on the legacy path).
func (c *Config) checkLegacyJob(lun int, s *fio.Spec, i int) error {
	l := c.LUNs[lun]
	if onLegacy, _ := c.legacyScheduler(l); !onLegacy {
		return nil
	}
	field := fmt.Sprintf("specs[%d]", i)
	if s.IOEngine == fio.EngineIOUring {
		return configErrorf(field+".IOEngine", "job %s: ioengine io_uring on a Legacy host: io_uring (v5.1) postdates the legacy request path (removed in v5.0)", s.Instance())
	}
	maxKB := l.MaxSectorsKB
	if maxKB == 0 {
		maxKB = 1280
	}
	// a bio holds one segment per 4 KiB page, at most BLK_MAX_SEGMENTS (128) of them
	maxKB = min(maxKB, legacy.BlkMaxSegments*4)
	if bs := s.MaxBlockSizeAll(); bs > int64(maxKB)<<10 {
		return configErrorf(field+".BlockSize", "job %s: block size %d above the legacy LUN's largest bio, %d KiB (max_sectors_kb, 128 segments of 4 KiB): bio splitting is not modelled on the legacy path", s.Instance(), bs, maxKB)
	}
	return nil
}
