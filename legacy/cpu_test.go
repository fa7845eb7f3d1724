package legacy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// ledger is a CPU that records what each CPU was charged; llc is the CPUs per
// last-level cache (0: all share one).
type ledger struct {
	cur     int
	llc     int
	charged map[int]sim.Time
	freeAt  map[int]sim.Time
}

func (l *ledger) OnCPU(cpu int)              { l.cur = cpu }
func (l *ledger) Charge(c sim.Time)          { l.charged[l.cur] += c }
func (l *ledger) CPUFreeAt(cpu int) sim.Time { return l.freeAt[cpu] }
func (l *ledger) SameLLC(a, b int) bool      { return l.llc == 0 || a/l.llc == b/l.llc }

// endCPU records the CPU current when a bio ends.
type endCPU struct {
	l    *ledger
	cpus []int
	at   []sim.Time
}

func (e *endCPU) EndIO(_ *Bio, now sim.Time) {
	e.cpus = append(e.cpus, e.l.cur)
	e.at = append(e.at, now)
}

// TestCompletionCPU: a command whose bio came from CPU 3 completes as
// __blk_complete_request decides with rq_affinity=1: on the interrupt CPU 0 when it
// shares a cache with CPU 3, by IPI (charged on CPU 0) on CPU 3 when it does not, and
// on the issuing CPU for a timer-completed device. The completion waits for its CPU to
// finish earlier work; the step costs land on the CPUs that run them.
func TestCompletionCPU(t *testing.T) {
	costs := Costs{Merge: 1, Insert: 2, Elevator: 4, Dispatch: 8, HostCheck: 16, TagGet: 32, QueueRq: 64,
		Completion: 128, TagPut: 256, EndBio: 512, IPI: 1024}
	submit := costs.Insert + costs.Elevator + costs.Dispatch + costs.HostCheck + costs.TagGet + costs.QueueRq
	complete := costs.Completion + costs.TagPut + costs.EndBio
	tests := []struct {
		name    string
		irq     int
		llc     int
		busy    sim.Time // the completion CPU is busy until then
		want    int
		charged map[int]sim.Time
	}{
		{"irq-shares-cache", 0, 0, 0, 0, map[int]sim.Time{3: submit, 0: complete}},
		{"irq-other-socket/ipi", 0, 2, 0, 3, map[int]sim.Time{3: submit + complete, 0: costs.IPI}},
		{"timer-on-issue-cpu", IRQOnIssueCPU, 2, 0, 3, map[int]sim.Time{3: submit + complete}},
		{"busy-completion-cpu-waits", 0, 0, 5 * sim.Microsecond, 0, map[int]sim.Time{3: submit, 0: complete}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ledger{llc: tt.llc, charged: map[int]sim.Time{}, freeAt: map[int]sim.Time{}}
			q, d, eng := newTestQueue(Config{QueueDepth: 4, CPU: l, Costs: costs, IRQCPU: tt.irq})
			e := &endCPU{l: l}
			b := bio(device.OpRead, true, 0, 4096, e)
			b.CPU = 3
			if q.SubmitBio(b, nil) {
				t.Fatal("blocked")
			}
			l.freeAt[tt.want] = tt.busy
			d.complete(0)
			if diff := cmp.Diff([]int{tt.want}, e.cpus); diff != "" {
				t.Errorf("completion CPU (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.charged, l.charged); diff != "" {
				t.Errorf("charges per CPU (-want +got):\n%s", diff)
			}
			if e.at[0] != tt.busy {
				t.Errorf("bio ended at %v, want %v (when its CPU is free)", e.at[0], tt.busy)
			}
			if b.IssuedAt != 0 || eng.Now() != tt.busy {
				t.Errorf("IssuedAt %v (want 0), engine at %v", b.IssuedAt, eng.Now())
			}
		})
	}
}

// lockLedger is a ledger that models spinlocks (Locker): it records each queue_lock
// section instead of charging it.
type lockLedger struct {
	ledger
	sections []section
}

type section struct {
	cpu   int
	hold  sim.Time
	lines int
}

func (l *lockLedger) SpinLock(name string, obj any, hold sim.Time, lines int) {
	if name != "queue_lock" {
		panic("lock " + name)
	}
	l.sections = append(l.sections, section{l.cur, hold, lines})
}

// TestQueueLockSections: one read from CPU 3 completing on CPU 0 takes queue_lock as
// v4.x blk_queue_bio, __blk_run_queue/scsi_request_fn and scsi_end_request do — the
// merge attempt, the insertion, request_fn's entry, the request's start (dispatch and
// tag); then on the completion CPU blk_finish_request (tag put) and the queue run —
// and charges the rest (host checks, queuecommand, completion, bio end) outside it.
func TestQueueLockSections(t *testing.T) {
	costs := Costs{Merge: 1, Insert: 2, Elevator: 4, Dispatch: 8, HostCheck: 16, TagGet: 32, QueueRq: 64,
		Completion: 128, TagPut: 256, EndBio: 512, IPI: 1024, ElevatorLines: 6}
	l := &lockLedger{ledger: ledger{charged: map[int]sim.Time{}, freeAt: map[int]sim.Time{}}}
	q, d, _ := newTestQueue(Config{QueueDepth: 4, CPU: l, Costs: costs})
	b := bio(device.OpRead, true, 0, 4096, &endCPU{l: &l.ledger})
	b.CPU = 3
	if q.SubmitBio(b, nil) {
		t.Fatal("blocked")
	}
	d.complete(0)
	want := []section{
		{3, 0, 6},                             // elv_merge finds nothing
		{3, costs.Insert + costs.Elevator, 6}, // __elv_add_request
		{3, 0, 0},                             // __blk_run_queue → request_fn (or its last relock, whose peek finds nothing)
		{3, costs.Dispatch + costs.TagGet, 6}, // peek, start tag, start request
		{0, costs.TagPut, 0},                  // blk_finish_request
		{0, 0, 0},                             // scsi_run_queue → request_fn
	}
	if diff := cmp.Diff(want, l.sections, cmp.AllowUnexported(section{})); diff != "" {
		t.Errorf("queue_lock sections (-want +got):\n%s", diff)
	}
	wantCharged := map[int]sim.Time{3: costs.HostCheck + costs.QueueRq, 0: costs.Completion + costs.EndBio}
	if diff := cmp.Diff(wantCharged, l.charged); diff != "" {
		t.Errorf("charges outside the lock (-want +got):\n%s", diff)
	}
}
