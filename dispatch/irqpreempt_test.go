package dispatch_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// holdAll accepts every command and keeps it until the test completes it; Complete
// records when the completion ran and ends the request.
type holdAll struct {
	q      *dispatch.Queue
	eng    *sim.Engine
	rqs    []*dispatch.Request
	doneAt []sim.Time
}

func (d *holdAll) QueueRQ(_ *dispatch.Hctx, rq *dispatch.Request, _ bool, _ int) dispatch.Status {
	d.rqs = append(d.rqs, rq)
	return dispatch.BlkStsOK
}
func (d *holdAll) CommitRQs(*dispatch.Hctx, int) {}
func (d *holdAll) Complete(rq *dispatch.Request, _ int) {
	d.doneAt = append(d.doneAt, d.eng.Now())
	d.q.EndRequest(rq)
}
func (d *holdAll) Timeout(*dispatch.Request) dispatch.TimeoutAction { return dispatch.BlkEHDone }
func (d *holdAll) InitHctx(*dispatch.Hctx) error                    { return nil }
func (d *holdAll) EndBio(*dispatch.Bio, sim.Time, error)            {}

// TestIRQPreemptCompletion: a completion arriving while its CPU runs 50 µs of task
// work. First come, first served (default) it runs when the work is done; with
// Timing.IRQPreempt it runs at once as an interrupt, and the task work it preempted
// finishes later by the completion's CPU time. Two completions at the same instant
// run in the order they arrive: the second starts after the first's interrupt work
// (interrupts do not nest; Queue.completeIRQ).
func TestIRQPreemptCompletion(t *testing.T) {
	const busy = 50 * sim.Microsecond
	c := dispatch.DefaultCPUCosts()
	first := c.EndBio + c.TagPut + c.Transfer.Self
	type got struct {
		DoneAt []sim.Time // after t0
		FreeAt sim.Time   // CPU 0's end of work after t0, less the completions' CPU time
	}
	tests := []struct {
		name    string
		preempt bool
		n       int
		want    got
	}{
		{"default/one", false, 1, got{[]sim.Time{busy}, busy}},
		{"irq-preempt/one", true, 1, got{[]sim.Time{0}, busy}},
		{"default/two", false, 2, got{[]sim.Time{busy, busy}, busy}},
		// the second interrupt waits for the first's work: bio_endio, the tag put
		// and its owned line's RMW
		{"irq-preempt/two", true, 2, got{[]sim.Time{0, first}, busy}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 1, CanQueue: 8,
				Timing: dispatch.Timing{IRQPreempt: tt.preempt}})
			if err != nil {
				t.Fatal(err)
			}
			drv := &holdAll{eng: eng}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			drv.q = q
			bios := make([]dispatch.Bio, tt.n)
			for i := range bios {
				bios[i] = dispatch.Bio{Op: device.OpRead, Offset: int64(i) << 20, Length: 4096, Sync: true, End: drv}
				q.SubmitBio(&bios[i], 0, true, nil)
			}
			const t0 = sim.Millisecond
			eng.RunUntil(t0)
			if len(drv.rqs) != tt.n {
				t.Fatalf("%d commands issued, want %d", len(drv.rqs), tt.n)
			}
			h.OnCPU(0)
			h.Charge(busy) // the task's work in progress
			before := h.CPUBusy()[0]
			for _, rq := range drv.rqs {
				q.CompleteRequest(rq, 0)
			}
			eng.RunUntil(2 * t0)
			var g got
			for _, at := range drv.doneAt {
				g.DoneAt = append(g.DoneAt, at-t0)
			}
			// both rules: the task's work and the completions' own work, in
			// either order
			g.FreeAt = h.CPUFreeAt(0) - t0 - (h.CPUBusy()[0] - before)
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if h.CPUBusy()[0] == before {
				t.Error("the completions charged no CPU time")
			}
		})
	}
}

// TestIRQPreemptKworkerWaiting: a kblockd run due on CPU 1 while CPU 1 runs 50 µs of
// task work waits for that work (the task's preemption point) in both rules; with
// Timing.IRQPreempt Host.KworkerWaiting reports the woken worker meanwhile, so a task
// about to take its next step there yields to it, and stops once the run is done.
func TestIRQPreemptKworkerWaiting(t *testing.T) {
	const d, busy = 10 * sim.Microsecond, 50 * sim.Microsecond
	type got struct {
		Dispatched       sim.Time // after t0
		Waiting, WaitEnd bool     // KworkerWaiting(1) at t0+30 µs and t0+60 µs
	}
	tests := []struct {
		name    string
		preempt bool
		want    got
	}{
		{"default", false, got{busy, false, false}},
		{"irq-preempt", true, got{busy, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 8,
				Timing: dispatch.Timing{KblockdMin: d, KblockdMax: d, IRQPreempt: tt.preempt}})
			if err != nil {
				t.Fatal(err)
			}
			drv := &gate{eng: eng, at: map[int]sim.Time{}}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			bio := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
			q.SubmitBio(&bio, 1, true, nil)
			const t0 = sim.Millisecond
			eng.RunUntil(t0) // parked on hctx 1's dispatch list
			drv.open = true
			h.OnCPU(1)
			h.Charge(busy)
			h.OnCPU(0)
			q.RunHwQueues(0, true)
			var g got
			eng.RunUntil(t0 + 30*sim.Microsecond)
			g.Waiting = h.KworkerWaiting(1)
			eng.RunUntil(t0 + 60*sim.Microsecond)
			g.WaitEnd = h.KworkerWaiting(1)
			eng.RunUntil(2 * t0)
			g.Dispatched = drv.at[1] - t0
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// resubmitter is a Bio.End that submits the next bios from inside the completion, as
// the package's QD1 loops do; errEnd records how those bios end.
type resubmitter struct {
	q    *dispatch.Queue
	next []*dispatch.Bio
	res  []dispatch.SubmitResult
}

func (r *resubmitter) EndBio(*dispatch.Bio, sim.Time, error) {
	for _, b := range r.next {
		r.res = append(r.res, r.q.SubmitBio(b, 0, true, nil))
	}
	r.next = nil
}

type errEnd struct{ errs []error }

func (e *errEnd) EndBio(_ *dispatch.Bio, _ sim.Time, err error) { e.errs = append(e.errs, err) }

// TestIRQPreemptResubmitFromCompletion: two tags, both held; the first completes
// while CPU 0 runs 50 µs of task work, and its Bio.End submits two REQ_NOWAIT bios.
// By default the completion waits for the task work and its callback submits at
// once, before the request's tag is freed: both would block. Under
// Timing.IRQPreempt the callback runs in the interrupt, but the submissions are the
// task's (Host.deferSubmit): SubmitBio returns Deferred, they run once CPU 0 has done
// the task work and the interrupt, after the tag put, so the first gets the freed tag
// and the second, finding none, ends with ErrAgain.
func TestIRQPreemptResubmitFromCompletion(t *testing.T) {
	const busy = 50 * sim.Microsecond
	type got struct {
		Results []dispatch.SubmitResult
		Issued  int
		Errs    int // bios ended with ErrAgain
	}
	tests := []struct {
		name    string
		preempt bool
		want    got
	}{
		{"default", false, got{[]dispatch.SubmitResult{dispatch.WouldBlock, dispatch.WouldBlock}, 2, 0}},
		{"irq-preempt", true, got{[]dispatch.SubmitResult{dispatch.Deferred, dispatch.Deferred}, 3, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 2,
				Timing: dispatch.Timing{IRQPreempt: tt.preempt}})
			if err != nil {
				t.Fatal(err)
			}
			drv := &holdAll{eng: eng}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			drv.q = q
			var ends errEnd
			next := []*dispatch.Bio{
				{Op: device.OpRead, Offset: 8 << 20, Length: 4096, Sync: true, End: &ends},
				{Op: device.OpRead, Offset: 9 << 20, Length: 4096, Sync: true, End: &ends},
			}
			rs := &resubmitter{q: q, next: next}
			first := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: rs}
			other := dispatch.Bio{Op: device.OpRead, Offset: 1 << 20, Length: 4096, Sync: true, End: drv}
			q.SubmitBio(&first, 0, true, nil)
			q.SubmitBio(&other, 0, true, nil)
			const t0 = sim.Millisecond
			eng.RunUntil(t0)
			h.OnCPU(0)
			h.Charge(busy) // the task's work in progress
			q.CompleteRequest(drv.rqs[0], 0)
			eng.RunUntil(2 * t0)
			g := got{Results: rs.res, Issued: len(drv.rqs)}
			for _, e := range ends.errs {
				if errors.Is(e, dispatch.ErrAgain) {
					g.Errs++
				}
			}
			// issued after the task work and the interrupt's own CPU time
			if at := next[0].IssuedAt; at > 0 && at < t0+busy {
				t.Errorf("resubmitted bio issued %v after the completion, before the task work (%v) was done", at-t0, busy)
			}
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
