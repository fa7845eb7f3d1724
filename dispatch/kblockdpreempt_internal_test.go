package dispatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestKblockdPreemptGranularity: sysctl_sched_wakeup_granularity (1 ms × (1 +
// ilog2(min(nr_cpus, 8)))) in the virtual time of a nice -20 entity (× 1024 / 88761).
func TestKblockdPreemptGranularity(t *testing.T) {
	tests := []struct {
		name   string
		nrCPUs int
		want   sim.Time
	}{
		{"0-cpus-as-1", 0, 11536},
		{"1-cpu", 1, 11536},
		{"2-cpus", 2, 23073},
		{"3-cpus", 3, 23073},
		{"4-cpus", 4, 34609},
		{"8-cpus", 8, 46146},
		{"64-cpus-capped-at-8", 64, 46146},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, KblockdPreemptGranularity(tt.nrCPUs)); d != "" {
				t.Errorf("KblockdPreemptGranularity(%d) (-want +got):\n%s", tt.nrCPUs, d)
			}
		})
	}
}

// TestKblockdWakeupPreempt: n unplugged submissions made back to back by one task on
// CPU 0 (each charging its Submit cost), with mq-deadline. Without the preemption the
// kblockd worker waits for the CPU and one run takes the submissions queued
// meanwhile; with it (the default), the woken worker is place_entity's credit (6 ms of
// vruntime on 2 CPUs) behind the submitter, far past the wake-up granularity (23.1 µs),
// and preempts it after every submission (one run each, two context switches each),
// however little the submitter ran between two of them. Under NoPlaceEntityCredit (the
// rule of rounds 6-8: the lead is the CPU time run since the worker's last run) a
// submitter that ran longer than the granularity is preempted each time, and one whose
// first submission stays below it leaves the work pending, so later submissions find
// it pending (no new wake-up, so no new preemption check) and coalesce as without the
// preemption; without an elevator the submission issues directly and wakes no worker.
func TestKblockdWakeupPreempt(t *testing.T) {
	const n = 40
	type got struct {
		Runs, PreemptRuns, Dispatched uint64
		SwitchTime                    sim.Time // CPU 0 busy time beyond the run without switches
	}
	tests := []struct {
		name      string
		on        bool
		noCredit  bool
		elevator  string
		submit    sim.Time
		wantRuns  func(g got) bool
		wantExact *got
	}{
		{name: "off/slow-submitter-coalesces", elevator: "mq-deadline", submit: 100 * sim.Microsecond,
			wantRuns: func(g got) bool { return g.PreemptRuns == 0 && g.Runs < n/4 && g.Dispatched == n }},
		{name: "on/slow-submitter-run-per-submission", on: true, elevator: "mq-deadline", submit: 100 * sim.Microsecond,
			wantExact: &got{Runs: n, PreemptRuns: n, Dispatched: n, SwitchTime: n * 2 * sim.Microsecond}},
		{name: "on/fast-submitter-run-per-submission", on: true, elevator: "mq-deadline", submit: 5 * sim.Microsecond,
			wantExact: &got{Runs: n, PreemptRuns: n, Dispatched: n, SwitchTime: n * 2 * sim.Microsecond}},
		{name: "no-credit/slow-submitter-run-per-submission", on: true, noCredit: true, elevator: "mq-deadline", submit: 100 * sim.Microsecond,
			wantExact: &got{Runs: n, PreemptRuns: n, Dispatched: n, SwitchTime: n * 2 * sim.Microsecond}},
		{name: "no-credit/fast-submitter-below-granularity-coalesces", on: true, noCredit: true, elevator: "mq-deadline", submit: 5 * sim.Microsecond,
			wantRuns: func(g got) bool { return g.PreemptRuns == 0 && g.Runs < n/4 && g.Dispatched == n }},
		{name: "on/none-issues-directly", on: true, elevator: "none", submit: 100 * sim.Microsecond,
			wantExact: &got{Dispatched: n}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			measure := func(sw sim.Time) (got, sim.Time) {
				c := DefaultCPUCosts()
				c.Submit, c.Switch = tt.submit, sw
				rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 256,
					CPU: CPUModel{Costs: c}, Options: Options{NoKblockdWakeupPreempt: !tt.on, NoPlaceEntityCredit: tt.noCredit}},
					testLUN{QueueDepth: 64, NrRequests: 64, Elevator: tt.elevator},
					device.NullParams{Name: "null", CompletionNsec: 10 * sim.Millisecond})
				var cnt counter
				var tw TagWaiter
				tw.S = &loopTask{cpus: []int{0}}
				for i := 0; i < n; i++ {
					b := &Bio{Op: device.OpRead, Offset: int64(i) * 8 << 20, Length: 4096, Sync: true, End: &cnt}
					rig.q.SubmitBio(b, 0, false, &tw)
				}
				rig.eng.Run()
				st := rig.q.Stats()
				return got{Runs: st.Runs, PreemptRuns: rig.host.kbPreempt.runs, Dispatched: st.Dispatched},
					rig.host.CPUBusy()[0]
			}
			g, busy := measure(sim.Microsecond)
			_, busy0 := measure(0)
			g.SwitchTime = busy - busy0
			if tt.wantExact != nil {
				if d := cmp.Diff(*tt.wantExact, g); d != "" {
					t.Errorf("runs (-want +got):\n%s", d)
				}
				return
			}
			if !tt.wantRuns(g) {
				t.Errorf("runs %+v", g)
			}
		})
	}
}

// TestKblockdPreemptMMSwitch: a preempting kblockd run hands the CPU to another
// runnable task when SetOtherTasks reports one there, and that switch between two
// processes costs CPUCosts.MMSwitch on the CPU; with no such task, or no hook, or a
// zero cost, nothing more is charged.
func TestKblockdPreemptMMSwitch(t *testing.T) {
	const n = 20
	const mm = 3 * sim.Microsecond
	type got struct {
		PreemptRuns, MMSwitches uint64
		Extra                   sim.Time // CPU 0 busy time beyond the run without MMSwitch
	}
	tests := []struct {
		name   string
		others func(cpu int, now sim.Time) bool
		cost   sim.Time
		want   got
	}{
		{"other-task-on-cpu", func(cpu int, _ sim.Time) bool { return cpu == 0 }, mm, got{n, n, n * mm}},
		{"other-task-elsewhere", func(cpu int, _ sim.Time) bool { return cpu == 1 }, mm, got{n, 0, 0}},
		{"no-hook", nil, mm, got{n, 0, 0}},
		{"zero-cost", func(int, sim.Time) bool { return true }, 0, got{n, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			measure := func(cost sim.Time) (got, sim.Time) {
				c := DefaultCPUCosts()
				c.Submit, c.MMSwitch = 100*sim.Microsecond, cost
				rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 256, CPU: CPUModel{Costs: c}},
					testLUN{QueueDepth: 64, NrRequests: 64, Elevator: "mq-deadline"},
					device.NullParams{Name: "null", CompletionNsec: 10 * sim.Millisecond})
				if tt.others != nil {
					rig.host.SetOtherTasks(tt.others)
				}
				var cnt counter
				var tw TagWaiter
				tw.S = &loopTask{cpus: []int{0}}
				for i := 0; i < n; i++ {
					b := &Bio{Op: device.OpRead, Offset: int64(i) * 8 << 20, Length: 4096, Sync: true, End: &cnt}
					rig.q.SubmitBio(b, 0, false, &tw)
				}
				rig.eng.Run()
				p := rig.host.kbPreempt
				return got{PreemptRuns: p.runs, MMSwitches: p.mm}, rig.host.CPUBusy()[0]
			}
			g, busy := measure(tt.cost)
			_, busy0 := measure(0)
			g.Extra = busy - busy0
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestKblockdPlaceCredit: sysctl_sched_latency (6 ms × (1 + ilog2(min(nr_cpus, 8))))
// halved by GENTLE_FAIR_SLEEPERS, place_entity's credit to a waking entity.
func TestKblockdPlaceCredit(t *testing.T) {
	tests := []struct {
		name   string
		nrCPUs int
		want   sim.Time
	}{
		{"0-cpus-as-1", 0, 3 * sim.Millisecond},
		{"1-cpu", 1, 3 * sim.Millisecond},
		{"2-cpus", 2, 6 * sim.Millisecond},
		{"4-cpus", 4, 9 * sim.Millisecond},
		{"8-cpus", 8, 12 * sim.Millisecond},
		{"64-cpus-capped-at-8", 64, 12 * sim.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, KblockdPlaceCredit(tt.nrCPUs)); d != "" {
				t.Errorf("KblockdPlaceCredit(%d) (-want +got):\n%s", tt.nrCPUs, d)
			}
		})
	}
}

// TestKblockdLag: the woken worker's lag behind min_vruntime on a 2-CPU host. A worker
// asleep since before the run is the whole credit (6 ms) behind; the nice-0 time run
// on its CPU adds to the lag, and the cap applies at each wake-up; the worker's own
// run takes its time × 1024 / 88761 off. Only a worker that ran about 87 times the
// credit on its CPU with no nice-0 time between (520 ms) comes back within the
// granularity (23.1 µs), where a 5 µs submission no longer preempts; under
// NoPlaceEntityCredit the lead is the CPU time since the last run whatever the
// history.
func TestKblockdLag(t *testing.T) {
	type step struct {
		run    sim.Time // the worker's run on CPU 0 (kblockdRan), then
		submit sim.Time // nice-0 time before the wake-up
		want   sim.Time // the lead at that wake-up
	}
	credit := 6 * sim.Millisecond
	long := 520 * sim.Millisecond
	tests := []struct {
		name     string
		noCredit bool
		steps    []step
	}{
		{"asleep-since-before-the-run", false, []step{{0, 5 * sim.Microsecond, credit}}},
		{"short-runs-keep-the-credit", false, []step{
			{0, 0, credit},
			{20 * sim.Microsecond, 5 * sim.Microsecond, credit}, // 20 µs at nice -20: 0.23 µs of vruntime, 5 µs of nice-0 time gives it back
			{20 * sim.Microsecond, 0, credit - 20*sim.Microsecond*1024/88761},
		}},
		{"long-run-drains-the-lag", false, []step{
			{0, 0, credit},
			{long, 5 * sim.Microsecond, credit - long*1024/88761 + 5*sim.Microsecond},
		}},
		{"no-credit-lead-since-last-run", true, []step{
			{0, 5 * sim.Microsecond, 5 * sim.Microsecond},
			{20 * sim.Microsecond, 30 * sim.Microsecond, 30 * sim.Microsecond},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 64,
				Options: Options{NoPlaceEntityCredit: tt.noCredit}},
				testLUN{QueueDepth: 64, NrRequests: 64, Elevator: "mq-deadline"},
				device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
			h := rig.host
			h.onCPU(0)
			p := h.kbPreemptState()
			for i, s := range tt.steps {
				if s.run > 0 {
					start := h.busyUntilTime(0)
					h.charge(s.run)
					h.kblockdRan(0, start, h.busyUntilTime(0))
				}
				h.charge(s.submit)
				if got := p.lead(h, 0); got != s.want {
					t.Errorf("step %d: lead %v, want %v", i, got, s.want)
				}
			}
		})
	}
}
