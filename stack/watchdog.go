package stack

import (
	"fmt"
	"strconv"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// The watchdog (Config.Watchdog) reports a modelled hang instead of waiting on it. A
// request makes progress when it is submitted, gets a request (tag) or is merged, is
// issued to the device, or completes; the watchdog looks at the io_us in flight only
// at its checks, so it adds nothing to the per-I/O path. A size-bound run is checked
// once, at the watchdog's model time; a time-bound run every quarter of the watchdog,
// stopping as soon as some request has made no progress for a whole watchdog period.

// lastProgress returns the model time of u's last progress in the block layer.
func (u *ioU) lastProgress() sim.Time {
	return max(u.submitAt, u.bio.AllocatedAt, u.bio.IssuedAt)
}

// oldestStalled returns the in-flight io_u whose last progress is the oldest (the
// first job's, then the lowest io_u's, on a tie), or nil when nothing is in flight.
func (r *runner) oldestStalled() *ioU {
	var old *ioU
	for _, j := range r.jobs {
		for _, u := range j.ious {
			if u.inFlight && (old == nil || u.lastProgress() < old.lastProgress()) {
				old = u
			}
		}
	}
	return old
}

// runTimeBound runs a time-bound run to end, checking every quarter of the watchdog
// that no request has gone a whole watchdog period without progress, and between
// those checks the event limit (guard).
func (r *runner) runTimeBound(end sim.Time) error {
	limit := r.cfg.watchdog()
	step := max(limit/4, 1)
	g := r.newGuard(end)
	for t := r.eng.Now(); t < end; {
		t = min(t+step, end)
		if err := g.runTo(t); err != nil {
			if err == errStopped {
				return nil
			}
			return err
		}
		u := r.oldestStalled()
		if u != nil && t-u.lastProgress() >= limit {
			return &WatchdogError{Job: u.job.spec.Instance(), Hang: true, msg: "stack: watchdog: " + r.describeWait(u, t)}
		}
		step = nextStep(step, max(limit/4, 1), u == nil)
	}
	return nil
}

// nextStep is the model time to the next watchdog check: a quarter of the watchdog
// while requests are in flight; doubling while none is (all jobs done, or not started:
// nothing can stall, and a run of a year does not take 10^9 checks), back to a quarter
// once one is.
func nextStep(step, quarter sim.Time, idle bool) sim.Time {
	if !idle {
		return quarter
	}
	return min(2*step, sim.MaxTime/8)
}

// runSizeBound runs a run with a job that is not time-bound until the watchdog's model
// time, and then, while a job has not finished, on in quarters of the watchdog for as
// long as the run progresses: the limit scales with the job's size and speed (a
// 1000 GiB job on a 200 MB/s disk needs 90 minutes of model time), and the event limit
// (guard) bounds the whole. It returns a *WatchdogError when, at the watchdog's model
// time or a check after it, the request that has gone longest without progress has
// waited at least a quarter of the watchdog (a hang: it names the request, its job,
// queue and what it waits for), or an unfinished job has completed no I/O for a whole
// watchdog period although its requests progress (a job asleep in its rate or
// thinktime at that check is not counted: the gap is its own pacing).
func (r *runner) runSizeBound() error {
	limit := r.cfg.watchdog()
	quarter := max(limit/4, 1)
	step := quarter
	g := r.newGuard(0)
	err := g.runTo(limit)
	stopped := err == errStopped
	if err != nil && !stopped {
		return err
	}
	for {
		var late *job
		for _, j := range r.jobs {
			if !j.finished {
				late = j
				break
			}
		}
		if late == nil {
			return nil
		}
		now := r.eng.Now()
		if now >= maxModelTime {
			// the idle checks' step doubles up to sim.MaxTime/8: stop before the
			// model clock could overflow (a job paced by thinktime or rate= over
			// decades of model time, e.g. thinktime=1000h between 512 B reads)
			return &ResourceLimitError{Resource: "model time", Estimate: float64(now) / max(g.done(), 1e-9), Limit: float64(maxModelTime),
				Detail: fmt.Sprintf("job %s has not finished at model time %v, %.3g %% done", late.spec.Instance(), now, 100*g.done())}
		}
		u := r.oldestStalled()
		hang := u != nil && now-u.lastProgress() >= quarter
		if hang {
			late = u.job // the job of the request that waits longest
		}
		msg := fmt.Sprintf("stack: watchdog: job %s did not finish within %v of model time (%d I/Os in flight)",
			late.spec.Instance(), now, late.spec.EffectiveIODepth-late.nFree)
		werr := &WatchdogError{Job: late.spec.Instance(), Hang: hang}
		switch {
		case hang:
			werr.msg = msg + ": " + r.describeWait(u, now)
			return werr
		case stopped && u == nil:
			werr.msg = msg + ": the engine was stopped"
			return werr
		case stopped:
			werr.msg = fmt.Sprintf("%s: the engine was stopped (oldest: %s)", msg, r.describeWait(u, now))
			return werr
		}
		for _, j := range r.jobs {
			// a job asleep in its own rate or thinktime (pacing.go) does what fio
			// does: a gap of its pacing is not the model's
			if idle := now - max(j.lastDone, j.startAt); !j.finished && !j.pace.sleeping && idle >= limit {
				werr.Job, werr.msg = j.spec.Instance(), fmt.Sprintf(
					"stack: watchdog: job %s did not finish within %v of model time (%d I/Os in flight): it completed no I/O for %v",
					j.spec.Instance(), now, j.spec.EffectiveIODepth-j.nFree, idle)
				if u != nil {
					werr.msg += " although its requests progress (oldest: " + r.describeWait(u, now) + ")"
				}
				return werr
			}
		}
		// too slow, not a hang: every request progresses; run on
		step = nextStep(step, quarter, u == nil)
		if err := g.runTo(now + step); err != nil {
			if err != errStopped {
				return err
			}
			stopped = true
		}
	}
}

// maxModelTime is the model time at which a size-bound run that has not finished
// stops with a *ResourceLimitError (2^61 ns, about 73 years): the model clock's
// range (sim.MaxTime) with room for the watchdog's steps.
const maxModelTime = sim.MaxTime / 4

// describeWait names u's request, its queue and what it waits for:
// "request read offset 4096 len 4096 of job j.0 on LUN 0 hctx 0 waiting for device
// (in device, tag 3, budget 4/64, host_busy 4/64, device in flight 4, run pending no)
// since 1ms, no progress for 100ms".
func (r *runner) describeWait(u *ioU, now sim.Time) string {
	j := u.job
	b := &u.bio
	w := j.q.BioWait(b)
	op := "read"
	if b.Op == device.OpWrite {
		op = "write"
	}
	waitFor, in := w.For.String(), w.In.String()
	if w.In == dispatch.WaitNone {
		waitFor, in = "io-wq", "io-wq work list" // punted, no worker has taken it yet
	}
	switch w.In {
	case dispatch.WaitSchedTag, dispatch.WaitDriverTag:
		in = "blk_mq_get_tag"
	case dispatch.WaitCtx:
		in = "ctx of CPU " + strconv.Itoa(w.CPU)
	case dispatch.WaitDispatchList:
		in = "hctx->dispatch"
	}
	tags := fmt.Sprintf("tag %d", w.Tag)
	if w.SchedTag >= 0 || j.q.Elevator() != nil {
		tags += fmt.Sprintf(", sched tag %d", w.SchedTag)
	}
	run := "no"
	if w.RunPending {
		run = "yes"
	}
	budget := fmt.Sprintf("budget %d/%d", w.BudgetBusy, w.QueueDepth)
	if w.DeviceBlocked > 0 {
		budget += fmt.Sprintf(", device_blocked %d", w.DeviceBlocked)
	}
	host := fmt.Sprintf("host_busy %d/%d", w.HostBusy, w.CanQueue)
	if w.HostBlocked > 0 {
		host += fmt.Sprintf(", host_blocked %d", w.HostBlocked)
	}
	if w.QueueDepth == 0 && w.CanQueue == 0 { // a driver without budget or SCSI host (null_blk)
		budget, host = "no budget", "no SCSI host"
	}
	last := u.lastProgress()
	return fmt.Sprintf("request %s offset %d len %d of job %s on LUN %s hctx %d waiting for %s "+
		"(in %s, %s, driver tags %d/%d, %s, %s, device in flight %d, run pending %s) "+
		"since %v, no progress for %v",
		op, b.Offset, b.Length, j.spec.Instance(), r.lunName(j.q), w.Hctx, waitFor,
		in, tags, w.TagsBusy, w.NrTags, budget, host, w.DeviceInFlight, run,
		last, now-last)
}

// lunName returns the LUN's Name, or its index in Config.LUNs when it has none.
func (r *runner) lunName(q blockQueue) string {
	for i, x := range r.queues {
		if x == q {
			if n := r.cfg.LUNs[i].Name; n != "" {
				return strconv.Quote(n)
			}
			return strconv.Itoa(i)
		}
	}
	return "?"
}
