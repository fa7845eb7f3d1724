package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// cpuRun runs n queue-depth-1 random 4 KiB loops, loop i on the CPUs cpusOf(i), on a
// 16-CPU host with host-wide tags (one shared tag bitmap) and a null device, and
// returns the host after 2 ms of model time.
func cpuRun(t *testing.T, m CPUModel, loops int, cpusOf func(i int) []int) (*Host, int) {
	t.Helper()
	rig := newRig(t, HostConfig{NrCPUs: 16, NrHwQueues: 16, CanQueue: 64, HostTagset: true, CPU: m},
		testLUN{QueueDepth: 64, Elevator: "none"},
		device.NullParams{Name: "null", CompletionNsec: 2 * sim.Microsecond})
	var ls []*loopTask
	for i := 0; i < loops; i++ {
		l := newLoopTask(rig, cpusOf(i), uint64(i+1))
		ls = append(ls, l)
		l.submit()
	}
	rig.eng.RunUntil(2 * sim.Millisecond)
	done := 0
	for _, l := range ls {
		done += l.done
	}
	return rig.host, done
}

func totalBusy(h *Host) sim.Time {
	var s sim.Time
	for _, b := range h.CPUBusy() {
		s += b
	}
	return s
}

// TestCPUSharedLine is the hidden behaviour "a shared structure touched from 16 CPUs is
// slower than one touched from one": the same 16 loops on one host-wide tag bitmap
// cost more CPU per I/O when they run on 16 CPUs (the bitmap words and the budget map
// move between caches) than when they all run on CPU 0 (no transfer at all).
func TestCPUSharedLine(t *testing.T) {
	one, nOne := cpuRun(t, CPUModel{}, 16, func(int) []int { return []int{0} })
	many, nMany := cpuRun(t, CPUModel{}, 16, func(i int) []int { return []int{i} })
	if nOne == 0 || nMany == 0 {
		t.Fatalf("no I/O completed: %d, %d", nOne, nMany)
	}
	perOne := float64(totalBusy(one)) / float64(nOne)
	perMany := float64(totalBusy(many)) / float64(nMany)
	if one.LineTransfers() != 0 {
		t.Errorf("one CPU: %d cache-line transfers, want 0", one.LineTransfers())
	}
	if many.LineTransfers() == 0 {
		t.Errorf("16 CPUs: no cache-line transfer")
	}
	if !(perMany > perOne) {
		t.Errorf("CPU per I/O: 16 CPUs %.0f ns, one CPU %.0f ns; want 16 CPUs slower", perMany, perOne)
	}
}

// TestCPUBound checks that a CPU-bound path is throughput-limited by its cost: 16
// loops all on CPU 0 complete no more I/Os than its busy span / (CPU per I/O), while on 16 CPUs
// they are limited by the device delay instead.
func TestCPUBound(t *testing.T) {
	one, nOne := cpuRun(t, CPUModel{}, 16, func(int) []int { return []int{0} })
	per := totalBusy(one) / sim.Time(nOne)
	// the CPU may have been given work up to one path of each loop beyond 2 ms
	if limit := int(one.CPUFreeAt(0)/per) + 1; nOne > limit {
		t.Errorf("one CPU completed %d I/Os, more than its busy time / %v = %d", nOne, per, limit)
	}
	if busy := one.CPUBusy()[0]; busy < 19*sim.Millisecond/10 {
		t.Errorf("CPU 0 busy %v of 2 ms; want saturated", busy)
	}
	_, nMany := cpuRun(t, CPUModel{}, 16, func(i int) []int { return []int{i} })
	if nMany <= nOne {
		t.Errorf("16 CPUs completed %d I/Os, one CPU %d; want more", nMany, nOne)
	}
}

// TestCPUOff checks the switch: with CPU costs off nothing is charged and the run is
// the same as with a zero-cost table.
func TestCPUOff(t *testing.T) {
	off, nOff := cpuRun(t, CPUModel{Off: true}, 4, func(i int) []int { return []int{i} })
	if d := cmp.Diff(make([]sim.Time, 16), off.CPUBusy()); d != "" {
		t.Errorf("CPU busy with costs off (-want +got):\n%s", d)
	}
	zero := CPUCosts{CPUsPerLLC: 16} // non-zero table whose costs are all 0
	_, nZero := cpuRun(t, CPUModel{Costs: zero}, 4, func(i int) []int { return []int{i} })
	if nOff != nZero {
		t.Errorf("completed %d with costs off, %d with a zero table", nOff, nZero)
	}
}

// TestCPUModelValidate checks the error for a bad cost.
func TestCPUModelValidate(t *testing.T) {
	c := DefaultCPUCosts()
	c.QueueRq = -1
	err := HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 1, CPU: CPUModel{Costs: c}}.Validate()
	if err == nil || err.Error() != "dispatch: CPU cost QueueRq -1ns out of range [0, 1ms]" {
		t.Errorf("Validate = %v", err)
	}
}

// TestCPUCompletionRouting checks where a completion runs: one hw queue (interrupt on
// CPU 0, the first CPU of its mask) on two 4-CPU sockets. A submitter on CPU 2 shares
// CPU 0's cache, so its completion runs on CPU 0; a submitter on CPU 6 does not, so
// CPU 0 only sends an IPI and the completion runs on CPU 6 (rq_affinity=1).
func TestCPUCompletionRouting(t *testing.T) {
	c := DefaultCPUCosts()
	c.CPUsPerLLC = 4
	for _, tt := range []struct {
		name     string
		cpu      int
		wantCPU0 sim.Time // CPU 0's charge for the completion part
	}{
		{"irq/same-socket", 2, c.Completion + c.EndBio},
		{"irq/other-socket-ipi", 6, c.IPI},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 8, NrHwQueues: 1, CanQueue: 8, CPU: CPUModel{Costs: c}},
				testLUN{QueueDepth: 8, Elevator: "none"},
				device.NullParams{Name: "null", CompletionNsec: 10 * sim.Microsecond})
			var n counter
			b := Bio{Op: device.OpRead, Length: 4096, Sync: true, End: &n}
			rig.q.SubmitBio(&b, tt.cpu, true, nil)
			before := rig.host.CPUBusy()
			rig.eng.Run()
			after := rig.host.CPUBusy()
			if n.n != 1 {
				t.Fatalf("completed %d", n.n)
			}
			// CPU 0's charge is the completion path minus the line touches of the
			// tag and budget puts, which depend on the last toucher.
			got := after[0] - before[0]
			if got < tt.wantCPU0 || got > tt.wantCPU0+4*c.LineRemote+c.TagPut+c.BudgetPut+c.Wakeup {
				t.Errorf("CPU 0 charged %v for the completion, want about %v", got, tt.wantCPU0)
			}
			if tt.cpu == 6 && after[6]-before[6] < c.Completion+c.EndBio {
				t.Errorf("CPU 6 charged %v, want the completion path (≥ %v)", after[6]-before[6], c.Completion+c.EndBio)
			}
		})
	}
}

// busyProbe is a device wrapper that records, at every command the device accepts,
// how far each CPU's charged time runs ahead of the model's clock.
type busyProbe struct {
	device.Device
	h     *Host
	ahead sim.Time // largest CPUBusy()[c] - now seen, over every CPU c
}

func (p *busyProbe) Submit(cmd *device.Command) device.Status {
	now := p.h.eng.Now()
	for _, c := range p.h.cpu.cpus {
		p.ahead = max(p.ahead, c.BusyTime()-now)
	}
	return p.Device.Submit(cmd)
}

// TestCPUBoundIRQPreempt is TestCPUBound's rig (QD1 loops all on CPU 0, each
// resubmitting from its Bio.End callback) with and without Timing.IRQPreempt: the
// CPU completes no more I/Os in the run's span than span / (CPU per I/O) allows, and no CPU's
// charged time runs ahead of the clock by more than one path per loop at any
// command. Under IRQPreempt the completion is interrupt work, serialised on the
// CPU's interrupt queue, and the resubmission is the task's (Host.deferSubmit):
// before that rule the resubmission ran inside the interrupt at the device's pace,
// 16000 I/Os in 2 ms against 26 ms of charged work.
func TestCPUBoundIRQPreempt(t *testing.T) {
	for _, tt := range []struct {
		name    string
		preempt bool
		loops   int
	}{
		{"default/1-loop", false, 1},
		{"default/16-loops", false, 16},
		{"irq-preempt/1-loop", true, 1},
		{"irq-preempt/16-loops", true, 16},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := NewHost(eng, HostConfig{NrCPUs: 16, NrHwQueues: 16, CanQueue: 64, HostTagset: true,
				Timing: Timing{IRQPreempt: tt.preempt}})
			if err != nil {
				t.Fatal(err)
			}
			null, err := device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 2 * sim.Microsecond})
			if err != nil {
				t.Fatal(err)
			}
			probe := &busyProbe{Device: null, h: h}
			rec := &recorder{Device: probe}
			q, err := addTestLUN(h, testLUN{Device: rec, QueueDepth: 64, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			rig := &testRig{eng: eng, host: h, q: q, dev: rec}
			var ls []*loopTask
			for i := 0; i < tt.loops; i++ {
				l := newLoopTask(rig, []int{0}, uint64(i+1))
				ls = append(ls, l)
				l.submit()
			}
			const span = 2 * sim.Millisecond
			eng.RunUntil(span)
			n := 0
			for _, l := range ls {
				n += l.done
			}
			if n == 0 {
				t.Fatal("no I/O completed")
			}
			per := totalBusy(h) / sim.Time(n)
			// the CPU may have been given one path of each loop beyond the span
			if limit := int(span/per) + tt.loops; n > limit {
				t.Errorf("CPU 0 completed %d I/Os in %v, more than %v per I/O allows (%d)", n, span, per, limit)
			}
			// one path of each loop may be charged ahead of the clock
			if bound := sim.Time(tt.loops) * per; probe.ahead > bound {
				t.Errorf("a CPU's charged time ran %v ahead of the clock, more than %d path(s) of %v",
					probe.ahead, tt.loops, per)
			}
			if busy := h.CPUBusy()[0]; busy > eng.Now()+sim.Time(tt.loops)*per {
				t.Errorf("CPU 0 charged %v in %v", busy, eng.Now())
			}
			if tt.loops == 16 && h.CPUBusy()[0] < 19*span/20 {
				t.Errorf("CPU 0 busy %v of %v; want saturated", h.CPUBusy()[0], span)
			}
			t.Logf("%d I/Os, %v per I/O, CPU 0 busy %v, at most %v ahead", n, per, h.CPUBusy()[0], probe.ahead)
		})
	}
}
