package stack

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// Job ordering as fio's run_threads does it: a job with stonewall starts once
// every job before it has finished, and so does every job after it (fio stops
// starting jobs at a stonewall until the running ones exit); a job with
// wait_for=NAME starts once every instance of the job named NAME has
// finished. A job that finishes with exitall stops every other job (those not
// yet started never start), as fio's terminate_threads does.

// linkJobs records each job's dependencies. It returns whether any job has
// one (the run then ends when every job has finished, not at a precomputed
// time).
func (r *runner) linkJobs() bool {
	any := false
	wall := 0 // jobs before the latest stonewall
	for i, j := range r.jobs {
		if j.spec.Stonewall && i > 0 {
			wall = i
		}
		for _, k := range r.jobs[:wall] {
			j.deps = append(j.deps, k)
		}
		if w := j.spec.WaitFor; w != "" {
			for _, k := range r.jobs[:i] {
				if k.spec.Name == w {
					j.deps = append(j.deps, k)
				}
			}
		}
		for _, k := range j.deps {
			k.waiters = append(k.waiters, j)
		}
		any = any || len(j.deps) > 0
	}
	for _, j := range r.jobs {
		// jobs that may stop early end the run when they have all finished
		any = any || j.spec.ExitAll || j.spec.RateMin != [2]int64{} || j.spec.RateIOPSMin != [2]int{} || j.spec.SteadyState.Active()
	}
	return any
}

// jobFinished is called once when job j has finished (nothing more to issue,
// nothing in flight): exitall stops the others, and the jobs waiting on j
// start when all they wait for has finished.
func (r *runner) jobFinished(j *job, now sim.Time) {
	r.lastFinish = max(r.lastFinish, now)
	if j.spec.ExitAll {
		for _, k := range r.jobs {
			if k == j || k.finished {
				continue
			}
			k.stopEarly(now, fmt.Sprintf("stopped by exitall when job %s finished at %v", j.spec.Instance(), now))
			if !k.started {
				k.finished = true
				k.windowStart, k.stopAt = now, now
			}
		}
	}
	for _, w := range j.waiters {
		if w.started || w.finished {
			continue
		}
		ready := true
		for _, d := range w.deps {
			ready = ready && d.finished
		}
		if ready {
			w.startNow(now)
		}
	}
}

// runPhased runs a run whose jobs start one after another (stonewall,
// wait_for) or stop each other (exitall) until every job has finished: in
// steps of the watchdog's quarter (time-bound jobs end at their runtime, so
// the run goes on past the known end while a later job is still to start or
// running), with the watchdog's checks of runTimeBound.
func (r *runner) runPhased() error {
	for {
		end, pending := sim.Time(0), false
		for _, j := range r.jobs {
			switch {
			case !j.started && !j.finished:
				pending = true
			case j.started && j.stopAt != sim.MaxTime:
				end = max(end, j.stopAt)
			case j.started && !j.finished:
				return r.runSizeBound() // a size-bound job: the engine runs every phase to the end
			}
		}
		if !pending && r.allFinished() {
			return nil
		}
		if end > r.eng.Now() {
			// one watchdog step at a time, so a run whose jobs all finished
			// early (exitall, rate_min) stops there
			step := max(r.cfg.watchdog()/4, 1)
			if end-r.eng.Now() > step {
				step = min(step, 100*sim.Millisecond)
			}
			if err := r.runTimeBound(min(end, r.eng.Now()+step)); err != nil {
				return err
			}
			continue
		}
		if !pending {
			return nil
		}
		// the jobs before a wall are past their runtime and drain: run until
		// one more job starts (or the watchdog period ends without progress)
		started := r.nStarted()
		limit := r.eng.Now() + r.cfg.watchdog()
		for r.nStarted() == started && r.eng.Now() < limit && r.eng.Pending() > 0 {
			r.eng.Step()
		}
		if r.nStarted() == started {
			return r.runSizeBound()
		}
	}
}

func (r *runner) nStarted() int {
	n := 0
	for _, j := range r.jobs {
		if j.started || j.finished {
			n++
		}
	}
	return n
}

func (r *runner) allFinished() bool {
	for _, j := range r.jobs {
		if !j.finished {
			return false
		}
	}
	return true
}

// phasedEnd is the end of a phased run: when its last job finished, or now.
func (r *runner) phasedEnd() sim.Time {
	if r.allFinished() && r.lastFinish > 0 {
		return r.lastFinish
	}
	return r.eng.Now()
}
