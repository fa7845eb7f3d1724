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
// CPU 0 (each charging its Submit cost), with mq-deadline. Without the option the
// kblockd worker waits for the CPU and one run takes the submissions queued
// meanwhile; with it, a submitter that ran longer than the wake-up granularity
// (23.1 µs on 2 CPUs) since the worker's last run is preempted after every
// submission (one run each, two context switches each); a submitter whose first
// submission stays below the granularity leaves the work pending, and later
// submissions find it pending (no new wake-up, so no new preemption check) and
// coalesce as without the option; without an elevator the submission issues
// directly and wakes no worker.
func TestKblockdWakeupPreempt(t *testing.T) {
	const n = 40
	type got struct {
		Runs, PreemptRuns, Dispatched uint64
		SwitchTime                    sim.Time // CPU 0 busy time beyond the run without switches
	}
	tests := []struct {
		name      string
		on        bool
		elevator  string
		submit    sim.Time
		wantRuns  func(g got) bool
		wantExact *got
	}{
		{name: "off/slow-submitter-coalesces", elevator: "mq-deadline", submit: 100 * sim.Microsecond,
			wantRuns: func(g got) bool { return g.PreemptRuns == 0 && g.Runs < n/4 && g.Dispatched == n }},
		{name: "on/slow-submitter-run-per-submission", on: true, elevator: "mq-deadline", submit: 100 * sim.Microsecond,
			wantExact: &got{Runs: n, PreemptRuns: n, Dispatched: n, SwitchTime: n * 2 * sim.Microsecond}},
		{name: "on/fast-submitter-below-granularity-coalesces", on: true, elevator: "mq-deadline", submit: 5 * sim.Microsecond,
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
					CPU: CPUModel{Costs: c}, Options: Options{NoKblockdWakeupPreempt: !tt.on}},
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
