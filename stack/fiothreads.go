package stack

import (
	"math"

	"github.com/blkmq/blkmq/sim"
)

// fio's parent process as a task for the scheduler (PlaceFair only).
//
// Besides its jobs, fio runs its parent: backend.c run_threads, once every job has
// started, loops reap_threads (a waitpid(WNOHANG) per job, or a runstate check with
// thread=) and do_usleep(10000) until no job runs. Each usleep ends with an hrtimer
// that fires on the CPU that armed it (the parent's), so the parent is woken there
// (waker = prev): select_task_rq_fair keeps it on that CPU when it is idle and
// otherwise moves it to the first idle CPU after it (select_idle_sibling →
// select_idle_cpu). While the parent runs, its CPU is not idle for the jobs' wake-ups:
// a job woken then on that CPU is placed elsewhere (stack/placement.go).
//
// The helper thread (helper_thread.c: disk_util every DISK_UTIL_MSEC = 250 ms, ETA
// output) is not modelled: 25 times rarer than the parent's loop.
const (
	// FioParentPeriod is the parent's loop period: do_usleep(10000) in run_threads
	// (fio backend.c), plus the hrtimer's default slack (timer_slack_ns, 50 µs,
	// init_task in the kernel). Sourced.
	FioParentPeriod = 10*sim.Millisecond + 50*sim.Microsecond
	// FioParentRunBase and FioParentRunPerJob give the CPU time of one loop
	// (check_for_running_stats, the nanosleep system call and its wake-up, then
	// reap_threads with one waitpid(WNOHANG) per job): assumed 4 µs plus 1 µs per
	// job, the order of a system call and a context switch on a current x86 CPU; not
	// measured (sensitivity ×0.5 / ×2 in bench, stack.fio-parent-run).
	FioParentRunBase   = 4 * sim.Microsecond
	FioParentRunPerJob = 1 * sim.Microsecond
)

// fioParent is fio's parent process.
type fioParent struct {
	r      *runner
	cpu    int
	recent int // 1 + p->recent_used_cpu (select_idle_sibling); 0 = none (started by a shell)
	ev     sim.EventID
}

// startFioParent starts the parent's loop. Its first CPU is Placement.FioParentCPU,
// or by default the least loaded CPU once the jobs are placed, lowest number first
// (placeJobs' rule continued: the parent forks the jobs and SD_BALANCE_FORK's
// find_idlest_cpu sends each to another idle CPU while the parent runs; where the
// parent itself started is the shell's choice, an assumption).
func (r *runner) startFioParent() {
	p := r.cfg.Placement
	if p.random() || !p.FioParent || r.cfg.NrCPUs < 2 {
		return
	}
	fp := &fioParent{r: r, cpu: p.fioParentCPU(r.cfg.NrCPUs, r.parentCPU)}
	r.eng.At(r.eng.Now()+FioParentPeriod, fp)
}

// fioParentCPU returns the parent's first CPU: FioParentCPU − 1 when set, else def.
func (p Placement) fioParentCPU(n, def int) int {
	if p.FioParentCPU > 0 && p.FioParentCPU <= n {
		return p.FioParentCPU - 1
	}
	return def
}

// FioParentRunFor is the default CPU time (ns) of one loop of fio's parent process
// with jobs jobs: FioParentRunBase + FioParentRunPerJob per job.
func FioParentRunFor(jobs int) sim.Time {
	return FioParentRunBase + sim.Time(max(jobs, 0))*FioParentRunPerJob
}

// fioParentRun is the CPU time of one loop of the parent with jobs jobs.
func (p Placement) fioParentRun(jobs int) sim.Time {
	t := FioParentRunFor(jobs)
	if p.FioParentRun > 0 {
		t = p.FioParentRun
	}
	if p.FioParentSlowdown > 1 {
		t = sim.Time(math.Round(float64(t) * p.FioParentSlowdown))
	}
	return t
}

// Fire wakes the parent: it is placed (waker = its own CPU), runs its loop there and
// sleeps again, until every job has finished.
func (fp *fioParent) Fire(now sim.Time) {
	r := fp.r
	live := false
	for _, j := range r.jobs {
		if !j.finished {
			live = true
			break
		}
	}
	if !live {
		return
	}
	fp.cpu = r.selectTaskRq(fp.cpu, fp.cpu, false, r.sched().all, &fp.recent, now)
	s := r.sched()
	s.taskUntil[fp.cpu] = max(s.taskUntil[fp.cpu], now+r.cfg.Placement.fioParentRun(len(r.jobs)))
	r.eng.At(now+FioParentPeriod, fp)
}

// validateTasks checks the fio parent's fields (a placement error names the field and
// its range).
func (p Placement) validateTasks(nrCPUs int) error {
	switch {
	case p.FioParentCPU < 0 || p.FioParentCPU > nrCPUs:
		return configErrorf("Placement.FioParentCPU", "Placement.FioParentCPU %d out of range [0, %d] (1 + CPU, 0 = default)", p.FioParentCPU, nrCPUs)
	case p.FioParentRun < 0 || p.FioParentRun > FioParentPeriod:
		return configErrorf("Placement.FioParentRun", "Placement.FioParentRun %d ns out of range [0, %d] (0 = default)", p.FioParentRun, FioParentPeriod)
	case !(p.FioParentSlowdown >= 0) || p.FioParentSlowdown > 10000:
		return configErrorf("Placement.FioParentSlowdown", "Placement.FioParentSlowdown %v out of range [0, 10000] (≤ 1 = none)", p.FioParentSlowdown)
	}
	return nil
}
