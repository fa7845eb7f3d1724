package stack

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
)

// Sysfs attributes a SysfsWrite may name (paths under /sys/block/X/).
const (
	// SysfsScheduler is queue/scheduler: elv_iosched_store (block/elevator.c).
	SysfsScheduler = "queue/scheduler"
	// SysfsNrRequests is queue/nr_requests: queue_requests_store
	// (block/blk-sysfs.c) → blk_mq_update_nr_requests.
	SysfsNrRequests = "queue/nr_requests"
	// SysfsQueueDepth is device/queue_depth of a SCSI LUN: sdev_store_queue_depth
	// (drivers/scsi/scsi_sysfs.c) → scsi_change_queue_depth, which resizes the
	// budget map at once, without a freeze: requests already holding a budget
	// token above the new depth keep it until they complete.
	SysfsQueueDepth = "device/queue_depth"
)

// SysfsWrite is one write to a LUN's sysfs attribute during the run, as an
// engineer's `echo mq-deadline > /sys/block/sda/queue/scheduler` while fio runs.
// The write starts at At and returns when the kernel's store does: a store that
// changes the queue freezes it first (blk_mq_freeze_queue: new submitters wait in
// blk_queue_enter until every request in flight has completed), so it may return
// much later. Writes to one LUN run one after another, in At order (q->sysfs_lock);
// writes at the same At in the order they are listed.
type SysfsWrite struct {
	// At is when the write starts, model time (ns) from the run's start, ≥ 0 and
	// before the end of a time-bound run.
	At sim.Time
	// LUN is the index of the LUN in Config.LUNs.
	LUN int
	// Attr is SysfsScheduler, SysfsNrRequests or (SCSI LUNs) SysfsQueueDepth.
	Attr string
	// Value is the text written (a trailing newline, as echo writes it, is
	// allowed): "none" or "mq-deadline" for the scheduler (surrounding white space
	// is stripped, as elv_iosched_store does); a decimal number for nr_requests,
	// raised to BLKDEV_MIN_RQ (4) when smaller, as queue_requests_store does; a
	// number in [1, the host's CanQueue] for queue_depth (simple_strtoul's bases:
	// 0x… hexadecimal, 0… octal), clamped to min(CanQueue, 10000) by
	// scsi_change_queue_depth.
	Value string
}

// SysfsResult is what happened to one SysfsWrite.
type SysfsResult struct {
	// Write is the write, as configured.
	Write SysfsWrite
	// Done reports whether the store returned before the run ended (a store still
	// waiting for the queue to drain, or not yet started, has Done false).
	Done bool
	// Outcome is the store's outcome when Done: its start and return times,
	// whether it froze the queue and how long the drain took, and a note when it
	// changed nothing.
	Outcome dispatch.StoreOutcome
}

// validateSysfs checks the writes that need no built queue (Config.Validate):
// LUN, Attr, At and the syntax of Value. Errors name SysfsWrites[i] and the
// allowed values.
func (c *Config) validateSysfs() error {
	for i, w := range c.SysfsWrites {
		f := fmt.Sprintf("SysfsWrites[%d]", i)
		switch {
		case w.At < 0:
			return configErrorf(f+".At", "%s.At %d ns out of range [0, end of the run)", f, w.At)
		case w.LUN < 0 || w.LUN >= len(c.LUNs):
			return configErrorf(f+".LUN", "%s.LUN %d out of range [0, %d]", f, w.LUN, len(c.LUNs)-1)
		case w.Attr == SysfsQueueDepth && c.LUNs[w.LUN].Host < c.nrHosts() && c.LUNs[w.LUN].Host >= 0 && c.hostAt(c.LUNs[w.LUN].Host).Driver != DriverSCSI:
			return configErrorf(f+".Attr", "%s.Attr %q: LUN %d is not a SCSI device (its host's driver is %v); allowed: %q, %q", f, w.Attr, w.LUN, c.hostAt(c.LUNs[w.LUN].Host).Driver, SysfsScheduler, SysfsNrRequests)
		case w.Attr != SysfsScheduler && w.Attr != SysfsNrRequests && w.Attr != SysfsQueueDepth:
			return configErrorf(f+".Attr", "%s.Attr %q not one of %q, %q, %q", f, w.Attr, SysfsScheduler, SysfsNrRequests, SysfsQueueDepth)
		case c.LUNs[w.LUN].Host >= 0 && c.LUNs[w.LUN].Host < c.nrHosts() && c.hostAt(c.LUNs[w.LUN].Host).Legacy:
			return configErrorf(f+".LUN", "%s.LUN %d is on a Legacy host: writes during a run are modelled for blk-mq queues only", f, w.LUN)
		}
		v, err := w.parse()
		if err != nil {
			return &ConfigError{Field: f + ".Value", Err: fmt.Errorf("stack: %s.Value: %w", f, err)}
		}
		if cq := c.hostAt(c.LUNs[w.LUN].Host).CanQueue; w.Attr == SysfsQueueDepth && (v.nr < 1 || v.nr > cq) {
			return configErrorf(f+".Value", "%s.Value %q: write error -EINVAL: lun %d queue_depth %d out of range [1, %d] (sdev_store_queue_depth: the host's can_queue)", f, w.Value, w.LUN, v.nr, cq)
		}
	}
	return nil
}

// sysfsValue is a parsed SysfsWrite.Value.
type sysfsValue struct {
	name string // scheduler
	nr   int    // nr_requests, after the raise to BLKDEV_MIN_RQ
}

// parse parses Value as the kernel's store does: elv_iosched_store strips white
// space; queue_var_store takes a decimal unsigned long up to UINT_MAX (-EINVAL
// otherwise).
func (w SysfsWrite) parse() (sysfsValue, error) {
	switch w.Attr {
	case SysfsScheduler:
		name := strings.TrimSpace(w.Value)
		if name != "none" && name != "mq-deadline" {
			return sysfsValue{}, fmt.Errorf("scheduler %q: write error -EINVAL (elevator_change: no such elevator); allowed: \"none\", \"mq-deadline\"", w.Value)
		}
		return sysfsValue{name: name}, nil
	case SysfsQueueDepth:
		v, err := strconv.ParseUint(strings.TrimSpace(w.Value), 0, 64)
		if err != nil {
			v = 0 // simple_strtoul returns what it could parse; the store refuses 0
		}
		return sysfsValue{nr: int(min(v, 1<<31))}, nil
	default:
		v, err := strconv.ParseUint(strings.TrimSuffix(w.Value, "\n"), 10, 64)
		if err != nil || v > 1<<32-1 {
			return sysfsValue{}, fmt.Errorf("nr_requests %q: write error -EINVAL (queue_var_store: a decimal number in [0, 4294967295])", w.Value)
		}
		return sysfsValue{nr: max(int(min(v, 1<<31)), 4)}, nil
	}
}

// sysfsOrder returns the indexes of the writes in the order they run: by At,
// ties in list order.
func (c *Config) sysfsOrder() []int {
	idx := make([]int, len(c.SysfsWrites))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(c.SysfsWrites[a].At, c.SysfsWrites[b].At) })
	return idx
}

// checkSysfs checks the writes against the built queues, before the run starts:
// the kernel's refusals of nr_requests (blk_mq_update_nr_requests' bounds, which
// depend on the elevator the earlier writes leave), and a write at or after the
// end of a time-bound run (end; sim.MaxTime for a size-bound one).
func (r *runner) checkSysfs(end sim.Time) error {
	elv := map[int]bool{}
	for _, i := range r.cfg.sysfsOrder() {
		w := r.cfg.SysfsWrites[i]
		f := fmt.Sprintf("SysfsWrites[%d]", i)
		if end != sim.MaxTime && w.At >= end {
			return configErrorf(f+".At", "%s.At %d ns at or past the end of the run (%d ns)", f, w.At, end)
		}
		q := r.queues[w.LUN].(*dispatch.Queue)
		e, ok := elv[w.LUN]
		if !ok {
			e = q.Elevator() != nil
		}
		v, _ := w.parse()
		switch {
		case w.Attr == SysfsScheduler && q.Host().Config().Flags&dispatch.BlkMqFNoSched == 0:
			elv[w.LUN] = v.name == "mq-deadline"
		case w.Attr == SysfsNrRequests:
			if lo, hi := q.NrRequestsBounds(e); v.nr < lo || v.nr > hi {
				sched := "none"
				if e {
					sched = "an elevator"
				}
				return configErrorf(f+".Value", "%s.Value %q: write error -EINVAL: lun %d nr_requests %d out of range [%d, %d] with %s (blk_mq_update_nr_requests)", f, w.Value, w.LUN, v.nr, lo, hi, sched)
			}
			elv[w.LUN] = e
		}
	}
	return nil
}

// scheduleSysfs schedules each write at its time; their outcomes land in
// r.sysfs.
func (r *runner) scheduleSysfs() {
	if len(r.cfg.SysfsWrites) == 0 {
		return
	}
	r.sysfs = make([]SysfsResult, len(r.cfg.SysfsWrites))
	for _, i := range r.cfg.sysfsOrder() {
		w := r.cfg.SysfsWrites[i]
		r.sysfs[i].Write = w
		res := &r.sysfs[i]
		if w.Attr == SysfsQueueDepth {
			d := r.sdevs[w.LUN]
			r.eng.At(w.At, sim.HandlerFunc(func(now sim.Time) { *res = storeQueueDepth(d, w, now) }))
			continue
		}
		q := r.queues[w.LUN].(*dispatch.Queue)
		r.eng.At(w.At, sim.HandlerFunc(func(sim.Time) {
			v, _ := w.parse()
			done := func(o dispatch.StoreOutcome) { res.Done, res.Outcome = true, o }
			var err error
			if w.Attr == SysfsScheduler {
				err = q.StoreScheduler(v.name, done)
			} else {
				err = q.StoreNrRequests(v.nr, done)
			}
			if err != nil { // checked by checkSysfs before the run; kept visible
				res.Done = true
				res.Outcome = dispatch.StoreOutcome{Attr: strings.TrimPrefix(w.Attr, "queue/"), Value: w.Value, Start: w.At, End: w.At, Note: "refused: " + err.Error()}
			}
		}))
	}
}

// sysfsResults fills the result's writes and the queues' freeze counters (only
// for a run with writes: a run without leaves the Result as it was).
func (r *runner) sysfsResults(res *Result) {
	if len(r.cfg.SysfsWrites) == 0 {
		return
	}
	res.Sysfs = r.sysfs
	for _, bq := range r.queues {
		var fs dispatch.FreezeStats
		if q, ok := bq.(*dispatch.Queue); ok {
			fs = q.FreezeStats()
		}
		res.Freezes = append(res.Freezes, fs)
	}
}

// noteSCSIDevice keeps the SCSI device of LUN i when the run writes its
// device/queue_depth.
func (r *runner) noteSCSIDevice(i int, d *scsi.Device) {
	for _, w := range r.cfg.SysfsWrites {
		if w.LUN == i && w.Attr == SysfsQueueDepth {
			if r.sdevs == nil {
				r.sdevs = map[int]*scsi.Device{}
			}
			r.sdevs[i] = d
			return
		}
	}
}

// storeQueueDepth is sdev_store_queue_depth → scsi_change_queue_depth at now:
// queue_depth set (clamped to scsi_device_max_queue_depth) and the budget map
// resized, at once and without a freeze.
func storeQueueDepth(d *scsi.Device, w SysfsWrite, now sim.Time) SysfsResult {
	v, _ := w.parse()
	res := SysfsResult{Write: w, Done: true, Outcome: dispatch.StoreOutcome{Attr: "queue_depth", Start: now, End: now}}
	got, err := d.Budget().ChangeQueueDepth(v.nr)
	res.Outcome.Value = strconv.Itoa(got)
	switch {
	case err != nil: // checked by validateSysfs before the run; kept visible
		res.Outcome.Note = "refused: " + err.Error()
	case got != v.nr:
		res.Outcome.Note = fmt.Sprintf("clamped from %d to %d (scsi_device_max_queue_depth)", v.nr, got)
	}
	return res
}
