package dispatch_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// refuseTwice is a budget-less driver that answers BLK_STS_DEV_RESOURCE to its first
// two queue_rq calls (the direct issue, then the run it makes inline: the request is
// parked on hctx->dispatch with SCHED_RESTART set, waiting for
// a restart: no rerun is armed) and accepts every later one,
// recording the CPU and time of each accepted queue_rq. It never completes a command.
type refuseTwice struct {
	eng     *sim.Engine
	refused int
	cpus    []int
	at      []sim.Time
}

func (d *refuseTwice) QueueRQ(_ *dispatch.Hctx, _ *dispatch.Request, _ bool, cpu int) dispatch.Status {
	if d.refused < 2 {
		d.refused++
		return dispatch.BlkStsDevResource
	}
	d.cpus = append(d.cpus, cpu)
	d.at = append(d.at, d.eng.Now())
	return dispatch.BlkStsOK
}
func (d *refuseTwice) CommitRQs(*dispatch.Hctx, int)                    {}
func (d *refuseTwice) Complete(*dispatch.Request, int)                  {}
func (d *refuseTwice) Timeout(*dispatch.Request) dispatch.TimeoutAction { return dispatch.BlkEHDone }
func (d *refuseTwice) InitHctx(*dispatch.Hctx) error                    { return nil }
func (d *refuseTwice) EndBio(*dispatch.Bio, sim.Time, error)            {}

var _ dispatch.Ops = (*refuseTwice)(nil)

// TestSyncRunOutsideCPUMaskPunts: a synchronous blk_mq_run_hw_queues issued from a CPU
// outside an hctx's cpumask does not dispatch that hctx inline; v6.1's
// __blk_mq_delay_run_hw_queue queues its kblockd work on blk_mq_hctx_next_cpu, so the
// parked request is sent later, by a CPU of the hctx. Issued from a CPU of the hctx the
// same run dispatches at once on that CPU. A BLK_MQ_F_BLOCKING tag set never runs
// inline, so it is not counted as a punt.
func TestSyncRunOutsideCPUMaskPunts(t *testing.T) {
	tests := []struct {
		name       string
		fromHctx   bool // the run is issued from a CPU of the request's hctx
		flags      dispatch.TagSetFlags
		wantPunted uint64
		inline     bool
	}{
		{"outside-cpumask/punted", false, 0, 1, false},
		{"inside-cpumask/inline", true, 0, 0, true},
		{"blocking/always-kblockd", true, dispatch.BlkMqFBlocking, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 2, CanQueue: 8, Flags: tt.flags})
			if err != nil {
				t.Fatal(err)
			}
			drv := &refuseTwice{eng: eng}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			const sub = 2
			hx := q.HctxOf(sub)
			from := sub
			if !tt.fromHctx {
				for c := range 4 {
					if q.HctxOf(c) != hx {
						from = c
						break
					}
				}
			}
			b := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
			q.SubmitBio(&b, sub, true, nil)
			eng.RunUntil(sim.Millisecond) // refused: parked on hctx->dispatch
			if hx.DispatchLen() != 1 || len(drv.cpus) != 0 {
				t.Fatalf("after the refusal: dispatch list %d, accepted %d; want 1, 0", hx.DispatchLen(), len(drv.cpus))
			}
			h.OnCPU(from)
			q.RunHwQueues(from, false)
			ranInline := len(drv.cpus) == 1
			eng.RunUntil(2 * sim.Millisecond)
			if got := hx.Stats().Punted; got != tt.wantPunted {
				t.Errorf("Punted = %d, want %d", got, tt.wantPunted)
			}
			if ranInline != tt.inline {
				t.Errorf("dispatched inline = %v, want %v", ranInline, tt.inline)
			}
			if len(drv.cpus) != 1 {
				t.Fatalf("accepted %d commands by 2 ms, want 1", len(drv.cpus))
			}
			if q.HctxOf(drv.cpus[0]) != hx {
				t.Errorf("queue_rq ran on CPU %d, outside the hctx's CPUs %v", drv.cpus[0], hx.CPUs())
			}
			if !tt.inline {
				if d := drv.at[0] - sim.Millisecond; d <= 0 || d > 30*sim.Microsecond+sim.Microsecond {
					t.Errorf("kblockd run %v after the request, want within the kblockd delay (5-30 us)", d)
				}
			} else if diff := cmp.Diff([]int{from}, drv.cpus); diff != "" {
				t.Errorf("inline run CPU (-want +got):\n%s", diff)
			}
		})
	}
}

// acceptAll is a budget-less driver that accepts every command and records the CPU
// that ran each queue_rq (Request.IssueCPU) and the cpu argument it was given. It
// never completes a command.
type acceptAll struct{ cpus, args []int }

func (d *acceptAll) QueueRQ(_ *dispatch.Hctx, rq *dispatch.Request, _ bool, cpu int) dispatch.Status {
	d.cpus = append(d.cpus, rq.IssueCPU())
	d.args = append(d.args, cpu)
	return dispatch.BlkStsOK
}
func (d *acceptAll) CommitRQs(*dispatch.Hctx, int)                    {}
func (d *acceptAll) Complete(*dispatch.Request, int)                  {}
func (d *acceptAll) Timeout(*dispatch.Request) dispatch.TimeoutAction { return dispatch.BlkEHDone }
func (d *acceptAll) InitHctx(*dispatch.Hctx) error                    { return nil }
func (d *acceptAll) EndBio(*dispatch.Bio, sim.Time, error)            {}

// TestKblockdCPU: the CPU whose kblockd worker runs an asynchronous queue run
// (blk_mq_hctx_next_cpu). With mq-deadline every submission inserts and runs the hctx
// asynchronously. On a queue with one hw queue v6.1's blk_mq_hctx_next_cpu returns
// WORK_CPU_UNBOUND, so the per-CPU kblockd queues the work on the submitting CPU:
// each command is sent from the CPU that submitted it. With two hw queues the work
// goes to a CPU of the hctx (its first, for fewer than BLK_MQ_CPU_WORK_BATCH runs).
// In both, the cpu argument of queue_rq is the CPU running the dispatch.
func TestKblockdCPU(t *testing.T) {
	from := []int{3, 1, 2, 0}
	tests := []struct {
		name    string
		nrHwQ   int
		wantCPU []int
	}{
		{"single-hw-queue/submitting-cpu", 1, []int{3, 1, 2, 0}},
		// group_cpus_evenly: hctx 0 = CPUs 0-1, hctx 1 = CPUs 2-3.
		{"two-hw-queues/first-cpu-of-hctx", 2, []int{2, 0, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: tt.nrHwQ, CanQueue: 8})
			if err != nil {
				t.Fatal(err)
			}
			drv := &acceptAll{}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "mq-deadline"})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range from {
				h.OnCPU(c)
				b := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
				q.SubmitBio(&b, c, true, nil)
				eng.RunUntil(sim.Time(i+1) * sim.Millisecond)
			}
			if diff := cmp.Diff(tt.wantCPU, drv.cpus); diff != "" {
				t.Errorf("queue_rq CPUs for submissions from %v (-want +got):\n%s", from, diff)
			}
			// The dispatch run hands the driver (budget hint, restarts) the CPU it runs on.
			if diff := cmp.Diff(drv.cpus, drv.args); diff != "" {
				t.Errorf("queue_rq cpu argument vs running CPU (-running +argument):\n%s", diff)
			}
		})
	}
}

// TestKblockdCPUSingleQueueRequeue: on a single hw queue a run queued from another CPU
// while the work is pending moves it to that CPU's kblockd worker
// (mod_delayed_work_on(WORK_CPU_UNBOUND) grabs the pending work and queues it locally).
// The kblockd wake-up preemption is off: with it the first submission's own worker
// preempts its submitter and dispatches at once, leaving no pending work to move.
func TestKblockdCPUSingleQueueRequeue(t *testing.T) {
	eng := sim.NewEngine()
	h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 1, CanQueue: 8,
		Options: dispatch.Options{NoKblockdWakeupPreempt: true}})
	if err != nil {
		t.Fatal(err)
	}
	drv := &acceptAll{}
	q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "mq-deadline"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{1, 3} { // both before the 5-30 us kblockd delay elapses
		h.OnCPU(c)
		b := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
		q.SubmitBio(&b, c, true, nil)
	}
	eng.RunUntil(sim.Millisecond)
	if len(drv.cpus) == 0 {
		t.Fatal("no command sent by 1 ms")
	}
	for i, c := range drv.cpus {
		if c != 3 {
			t.Errorf("command %d sent from CPU %d, want 3 (the last CPU to queue the run)", i, c)
		}
	}
}

// TestKblockdQueuedAfterChargedCPU: a kblockd run is due the kblockd delay after the
// queueing CPU reaches the call, not after the start of the path that makes it: a
// completion frees the budget early but runs scsi_run_queue_async last, after its
// other work. Every hctx run that one asynchronous blk_mq_run_hw_queues call queues is
// due from the same point (the wake-up cost of each queueing is CPU time on the waker,
// not a delay of the next kworker).
func TestKblockdQueuedAfterChargedCPU(t *testing.T) {
	tests := []struct {
		name    string
		charged sim.Time // CPU time charged to the queueing CPU before the call
	}{
		{"idle-cpu", 0},
		{"cpu-busy-200us", 200 * sim.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 2, CanQueue: 8})
			if err != nil {
				t.Fatal(err)
			}
			drv := &refuseTwice{eng: eng}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			const sub = 2
			b := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
			q.SubmitBio(&b, sub, true, nil)
			eng.RunUntil(sim.Millisecond) // refused twice: parked on hctx->dispatch
			h.OnCPU(sub)
			h.Charge(tt.charged)
			q.RunHwQueues(sub, true)
			eng.RunUntil(2 * sim.Millisecond)
			if len(drv.at) != 1 {
				t.Fatalf("accepted %d commands by 2 ms, want 1", len(drv.at))
			}
			d := drv.at[0] - sim.Millisecond - tt.charged
			if d < 5*sim.Microsecond || d > 30*sim.Microsecond+sim.Microsecond {
				t.Errorf("kblockd run %v after the charged CPU time, want within the kblockd delay (5-30 us)", d)
			}
		})
	}
}
