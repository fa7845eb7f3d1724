package stack

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
)

// TestSchedTickPreemptAt: check_preempt_tick's first rescheduling tick (4 ms ticks)
// for the current thread picked at p, from sched_slice (6 ms × (1 + ilog2 CPUs) shared
// by the runnable threads) or, once min_granularity has passed, from the leftmost
// waiter's vruntime lag.
func TestSchedTickPreemptAt(t *testing.T) {
	ms := sim.Millisecond
	tests := []struct {
		name     string
		cpus     int
		parked   int
		picked   sim.Time
		currV    sim.Time
		leftV    sim.Time
		want     sim.Time
		wantLat  sim.Time
		wantGran sim.Time
	}{
		// 2 CPUs: latency 12 ms, two threads share it: 6 ms; picked at a tick,
		// the 8 ms tick is the first past it
		{"two-threads-2cpus", 2, 1, 0, 0, 0, 8 * ms, 12 * ms, 1500 * sim.Microsecond},
		{"two-threads-picked-between-ticks", 2, 1, 3 * ms, 0, 0, 12 * ms, 12 * ms, 1500 * sim.Microsecond},
		// three threads: 4 ms each, first tick past 4 ms
		{"three-threads-2cpus", 2, 2, 0, 0, 0, 8 * ms, 12 * ms, 1500 * sim.Microsecond},
		{"three-threads-picked-1ms", 2, 2, ms, 0, 0, 8 * ms, 12 * ms, 1500 * sim.Microsecond},
		// the waiter lags by more than the slice: rescheduled at the first tick
		// after min_granularity (1.5 ms)
		{"lagging-waiter", 2, 1, 0, 20 * ms, 0, 4 * ms, 12 * ms, 1500 * sim.Microsecond},
		// one CPU: factor 1, 6 ms / 2 = 3 ms, first tick past it
		{"two-threads-1cpu", 1, 1, 0, 0, 0, 4 * ms, 6 * ms, 750 * sim.Microsecond},
		// more than 8 CPUs count as 8: factor 4, latency 24 ms, 12 ms each
		{"two-threads-16cpus", 16, 1, 0, 0, 0, 16 * ms, 24 * ms, 3 * ms},
		// nine threads: above sched_nr_latency the period is 9 × min_granularity,
		// each gets min_granularity (1.5 ms): first tick past it
		{"nine-threads", 2, 8, 0, 0, 0, 4 * ms, 12 * ms, 1500 * sim.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: tt.cpus}, eng: sim.NewEngine()}
			ts := r.tickRQs()
			q := &ts.rq[0]
			q.curr, q.pickedAt = &job{r: r, vrun: tt.currV}, tt.picked
			for i := 0; i < tt.parked; i++ {
				q.parked = append(q.parked, &job{r: r, vrun: tt.leftV})
			}
			got := []sim.Time{ts.preemptAt(q), ts.latency, ts.minGran}
			if d := cmp.Diff([]sim.Time{tt.want, tt.wantLat, tt.wantGran}, got); d != "" {
				t.Errorf("preemptAt, latency, min_granularity (-want +got):\n%s", d)
			}
		})
	}
}

// tickRun runs the job file under emulation (slowdown 70: a 4k null_blk read costs
// about 100 µs of CPU, so two iodepth-32 readers on a 2 ms device never find their
// completions all outstanding) and returns the I/Os per job and the tick switches.
func tickRun(t *testing.T, text string, tick bool) ([]int64, uint64) {
	return tickRunSched(t, text, "none", tick)
}

// tickRunSched is tickRun with the LUN's elevator.
func tickRunSched(t *testing.T, text, sched string, tick bool) ([]int64, uint64) {
	t.Helper()
	cfg := Config{
		NrCPUs: 2,
		Host: Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: DriverNullBlk,
			NullBlk: NullBlk{IRQMode: nullblk.IRQTimer}},
		LUNs: []LUN{{Name: "/dev/nullb0", Scheduler: sched, Device: func(eng *sim.Engine) (device.Device, error) {
			return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 2 * sim.Millisecond})
		}}},
		Submit: SubmitTiming{ReapMin: sim.Microsecond, ReapMax: sim.Microsecond},
		Seed:   1,
	}
	cfg, err := cfg.EmulatedWith(70, EmulationOptions{WakeSplit: true, IssueAtReturn: true, CheckPreemptTick: tick})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := fio.Parse(strings.NewReader(text), "tick.fio")
	if err != nil {
		t.Fatal(err)
	}
	if err := validateRun(&cfg, specs); err != nil {
		t.Fatal(err)
	}
	r := &runner{cfg: cfg, eng: sim.NewEngine(), rnd: sim.NewRand(cfg.jitterSeed()), sub: cfg.Submit.withDefaults()}
	if err := r.assemble(); err != nil {
		t.Fatal(err)
	}
	if err := r.placeJobs(specs); err != nil {
		t.Fatal(err)
	}
	r.linkJobs()
	end := sim.Time(0)
	for _, j := range r.jobs {
		j.start()
		end = max(end, j.stopAt)
	}
	r.startFioParent()
	if err := r.runTimeBound(end); err != nil {
		t.Fatal(err)
	}
	var n []int64
	for _, j := range r.result(end).Jobs {
		n = append(n, j.Fio.Read().TotalIOs)
	}
	return n, r.tick.switches
}

// TestCheckPreemptTick: two CPU-bound readers pinned to one CPU take it in time slices:
// about one tick preemption per 8 ms slice (2 CPUs: 6 ms each, rescheduled at the
// second 4 ms tick), each charging a context switch and, between two processes, the
// process switch, so the two processes complete fewer I/Os than two threads of one
// process (thread=1: no CR3 write), and both fewer than without the switch; the
// readers share the CPU evenly. One reader has nothing to switch to: bit for bit the
// same with and without.
func TestCheckPreemptTick(t *testing.T) {
	const head = "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\ncpus_allowed=1\ntime_based=1\nruntime=400ms\nfilename=/dev/nullb0\n"
	two, one, threads := head+"[r0]\n[r1]\n", head+"[r0]\n", head+"thread=1\n[r0]\n[r1]\n"
	sum := func(n []int64) (s int64) {
		for _, v := range n {
			s += v
		}
		return s
	}
	offTwo, _ := tickRun(t, two, false)
	onTwo, sw := tickRun(t, two, true)
	onThreads, swThreads := tickRun(t, threads, true)
	t.Logf("processes %v (%d switches), threads %v (%d), off %v", onTwo, sw, onThreads, swThreads, offTwo)
	t.Run("slices", func(t *testing.T) {
		// 400 ms of runtime, 8 ms slices
		if sw < 40 || sw > 60 {
			t.Errorf("%d tick preemptions in 400 ms; want about 50 (8 ms slices)", sw)
		}
		if swThreads < 40 || swThreads > 60 {
			t.Errorf("thread=1: %d tick preemptions in 400 ms; want about 50", swThreads)
		}
	})
	t.Run("switch-cost", func(t *testing.T) {
		if !(sum(onTwo) < sum(onThreads) && sum(onThreads) < sum(offTwo)) {
			t.Errorf("I/Os: processes %d, threads %d, no time slice %d; want processes < threads < none", sum(onTwo), sum(onThreads), sum(offTwo))
		}
	})
	t.Run("fair", func(t *testing.T) {
		a, b := float64(onTwo[0]), float64(onTwo[1])
		if a < 0.95*b || b < 0.95*a {
			t.Errorf("I/Os per reader %v; want within 5 %%", onTwo)
		}
	})
	t.Run("mq-deadline-hand-off", func(t *testing.T) {
		// every submission's preempting kblockd run ends in pick_next_entity: the
		// leftmost vruntime is the other reader after about one command, so the
		// readers alternate per command as without the time slice (within 3 %),
		// and no slice expires
		off, _ := tickRunSched(t, two, "mq-deadline", false)
		on, n := tickRunSched(t, two, "mq-deadline", true)
		if r := float64(sum(on)) / float64(sum(off)); r < 0.97 || r > 1.03 || n > 2 {
			t.Errorf("mq-deadline: I/Os %v with the time slice (%d tick preemptions), %v without; want within 3 %%, no tick preemption", on, n, off)
		}
	})
	t.Run("one-reader", func(t *testing.T) {
		off, _ := tickRun(t, one, false)
		on, n := tickRun(t, one, true)
		if d := cmp.Diff(off, on); d != "" || n != 0 {
			t.Errorf("one reader: %d tick preemptions, I/Os (-off +on):\n%s", n, d)
		}
	})
}

// TestSliceWaitJoin: a thread that reaches its submission on a CPU (sliceWait) takes an
// idle CPU, preempts the current thread when it was woken and place_entity leaves it
// more than wakeup_gran (2 ms on 2 CPUs) behind the current one's vruntime, and
// otherwise waits for the current thread's preemption tick.
func TestSliceWaitJoin(t *testing.T) {
	ms := sim.Millisecond
	tests := []struct {
		name       string
		curr       bool     // another thread is current, picked at 0 with vruntime currV
		currV      sim.Time // its vruntime when picked
		minV       sim.Time // the run queue's min_vruntime
		slept      bool     // the joining thread was woken
		vrun       sim.Time // its vruntime
		wantRuns   bool     // it runs now (current)
		wantTurnAt sim.Time // else it waits until then
	}{
		{"idle-cpu", false, 0, 0, false, 0, true, 0},
		{"woken-long-sleep-preempts", true, 10 * ms, 10 * ms, true, 0, true, 0},
		{"woken-short-sleep-waits-for-tick", true, 10 * ms, 10 * ms, true, 9500 * sim.Microsecond, false, 8 * ms},
		{"runnable-waits-for-tick", true, 0, 0, false, 0, false, 8 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{NrCPUs: 2}, eng: sim.NewEngine()}
			ts := r.tickRQs()
			q := &ts.rq[1]
			q.minV = tt.minV
			other := &job{r: r, runCPU: 1, vrun: tt.currV}
			if tt.curr {
				q.curr, q.pickedAt, other.rqCPU = other, 0, 2
			}
			j := &job{r: r, runCPU: 1, slept: tt.slept, vrun: tt.vrun}
			j.fillEv.j = j
			now := ms
			r.eng.RunUntil(now)
			waits := j.sliceWait(now)
			got := []any{!waits && q.curr == j, j.turnAt}
			if d := cmp.Diff([]any{tt.wantRuns, tt.wantTurnAt}, got); d != "" {
				t.Errorf("runs now, waits until (-want +got):\n%s", d)
			}
		})
	}
}
