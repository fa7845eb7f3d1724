package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestR07 is case R07 (CVE-2024-26671, "blk-mq: fix IO hang from sbitmap wakeup
// race"), replayed at the racing interleaving: host-wide tags with one free driver tag,
// two hctxs, mq-deadline. Request X takes the tag; request Y (another hctx) finds none,
// so the CPU running the dispatch hooks Y's hctx's dispatch_wait entry on the tag
// waitqueue and retries; X completes 200 ns later, on X's submitting CPU. With the
// barrier (v6.8+) the hook is visible before the retry and X's free wakes it: Y
// completes. Without it, when X completes on another CPU than the one that hooked, the
// hook becomes visible to it only after the window, X's free wakes nobody, no budget
// failure was recorded, and Y stays on its hctx's dispatch list with nothing in flight:
// a hang (watchdog: 1 s of model time). Three CPUs with hctx 0 on CPUs 0 and 1: X
// submitted on CPU 1 is dispatched by kblockd on CPU 0 and completes on CPU 1.
//
// The same-cpu rows are the R09 hang of the merged model: X submitted and completed on
// the CPU whose dispatch hooked Y's hctx. A CPU sees its own stores and clear_bit is a
// locked instruction, so the free finds the hook even without the barrier: Y completes.
func TestR07(t *testing.T) {
	tests := []struct {
		name       string
		noBarrier  bool
		nrCPUs     int
		xCPU, yCPU int // submitting CPUs of X and Y
		wantDone   int
		hungHctx   int // Y's hctx, left with Y on its dispatch list (wantDone 1)
	}{
		{"R07/barrier-no-hang", false, 3, 1, 2, 2, 0},
		{"R07/5266caaf5660-missing-hang", true, 3, 1, 2, 1, 1},
		{"R07/same-cpu/barrier-no-hang", false, 2, 1, 0, 2, 0},
		{"R07/same-cpu/5266caaf5660-missing-no-hang", true, 2, 1, 0, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fixed := 10 * sim.Microsecond
			rig := newRig(t, HostConfig{NrCPUs: tt.nrCPUs, NrHwQueues: 2, CanQueue: 2, HostTagset: true,
				Options: Options{NoTagWaitBarrier: tt.noBarrier},
				Timing:  Timing{KblockdMin: fixed, KblockdMax: fixed, WakeupMin: fixed, WakeupMax: fixed},
				// The replay fixes the racing interleaving to the nanosecond; CPU costs
				// would move X's completion out of the window.
				CPU: CPUModel{Off: true}},
				testLUN{QueueDepth: 2, Elevator: "mq-deadline"},
				device.NullParams{Name: "scsi_debug", CompletionNsec: 200 * sim.Nanosecond})
			if tag := rig.q.hctxs[0].th.Tags().Get(0, false); tag < 0 { // leave one driver tag
				t.Fatal("no tag to hold")
			}
			var c counter
			x := Bio{Op: device.OpRead, Offset: 0, Length: 4096, Sync: true, End: &c}
			y := Bio{Op: device.OpRead, Offset: 1 << 30, Length: 4096, Sync: true, End: &c}
			rig.q.SubmitBio(&x, tt.xCPU, true, nil)
			rig.q.SubmitBio(&y, tt.yCPU, true, nil)
			rig.eng.RunUntil(sim.Second)
			if c.n != tt.wantDone {
				t.Errorf("completed %d, want %d", c.n, tt.wantDone)
			}
			if tt.wantDone == 1 {
				h := rig.q.hctxs[tt.hungHctx]
				if h.DispatchLen() != 1 || h.RunPending() || deviceBusy(rig.q) != 0 {
					t.Errorf("hang state: dispatch %d, run pending %v, busy %d", h.DispatchLen(), h.RunPending(), deviceBusy(rig.q))
				}
			}
		})
	}
}

// idlingElevator is the R15 scheduler stub: has_work is true while it holds requests,
// but dispatch_request returns nothing until a request has waited idle (9 ms, BFQ's
// slice_idle-like idling).
type idlingElevator struct {
	q    *Queue
	list rqList
	idle sim.Time
}

func (e *idlingElevator) Name() string              { return "idling-stub" }
func (e *idlingElevator) SingleQueue() bool         { return true }
func (e *idlingElevator) HasWork(*Hctx) bool        { return !e.list.empty() }
func (e *idlingElevator) BioMerge(*Bio, int64) bool { return false }
func (e *idlingElevator) LimitDepth(*Bio) int       { return 0 }
func (e *idlingElevator) DepthUpdated(int)          {}
func (e *idlingElevator) FinishRequest(*Request)    {}
func (e *idlingElevator) InsertRequest(rq *Request, _ bool) {
	rq.fifoTime = e.q.eng.Now() + e.idle
	e.list.pushBack(rq)
}
func (e *idlingElevator) DispatchRequest(*Hctx) *Request {
	if rq := e.list.head; rq != nil && rq.fifoTime <= e.q.eng.Now() {
		e.list.remove(rq)
		return rq
	}
	return nil
}

// TestR15 is case R15 ("blk-mq: Rerun dispatching in the case of budget contention",
// v5.8): budget taken and put back because the scheduler returned nothing must be
// followed by a delayed re-run; without it the queued requests stall with nothing in
// flight and no run pending.
func TestR15(t *testing.T) {
	tests := []struct {
		name          string
		noRerun       bool
		wantCompleted int
	}{
		{"R15/delayed-rerun", false, 4},
		{"R15/pre-v5.8-stall", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 8, Options: Options{NoBudgetRerun: tt.noRerun}},
				testLUN{QueueDepth: 1, NewElevator: func(q *Queue) Elevator {
					return &idlingElevator{q: q, idle: 9 * sim.Millisecond}
				}}, device.NullParams{Name: "null", CompletionNsec: 100 * sim.Microsecond})
			var c counter
			bios := make([]Bio, 4)
			for i := range bios {
				bios[i] = Bio{Op: device.OpRead, Offset: int64(i) << 20, Length: 4096, Sync: true, End: &c}
				rig.q.SubmitBio(&bios[i], i%2, true, nil)
			}
			rig.eng.RunUntil(sim.Second)
			if c.n != tt.wantCompleted {
				t.Errorf("completed %d, want %d", c.n, tt.wantCompleted)
			}
			if tt.noRerun {
				pending := false
				for _, h := range rig.q.hctxs {
					pending = pending || h.RunPending()
				}
				if pending || deviceBusy(rig.q) != 0 || rig.eng.Pending() != 0 {
					t.Errorf("stall not clean: run pending %v, busy %d, events %d", pending, deviceBusy(rig.q), rig.eng.Pending())
				}
			}
		})
	}
}

// refuser is a device that refuses its refuseAt-th submission (1-based) with
// SCSI_MLQUEUE_HOST_BUSY, as an LLD does for a transient host resource.
type refuser struct {
	device.Device
	n, refuseAt int
}

func (r *refuser) Submit(cmd *device.Command) device.Status {
	r.n++
	if r.n == r.refuseAt {
		return device.HostBusy
	}
	return r.Device.Submit(cmd)
}

// TestR16 is case R16 ("scsi: core: fix race between handling STS_RESOURCE and
// completion", v5.10), replayed at the racing interleaving: request X (hctx 1) is in
// flight; request Y, parked on hctx 0's dispatch list (so SCHED_RESTART is set), is
// refused by the LLD with host busy; then X completes. With RESOURCE (the fix) hctx 0
// is delay-run after 3 ms and Y completes. With DEV_RESOURCE whenever the LUN has
// commands in flight (v5.10-rc1), Y is left to a completion of the LUN, but X's
// completion re-runs nothing: no budget failure was counted (restarts 0), the starved
// list is empty, and X belongs to hctx 1: Y hangs with nothing in flight.
func TestR16(t *testing.T) {
	tests := []struct {
		name     string
		rule     DevResourceRule
		wantDone int
	}{
		{"R16/resource-rerun", DevResourceIfBlocked, 2},
		{"R16/ed5dd6a67d5e-dev-resource-hang", DevResourceIfBusy, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			fixed := 10 * sim.Microsecond
			h, err := NewHost(eng, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 64,
				Options: Options{DevResource: tt.rule},
				Timing:  Timing{KblockdMin: fixed, KblockdMax: fixed, WakeupMin: fixed, WakeupMax: fixed}})
			if err != nil {
				t.Fatal(err)
			}
			null, _ := device.NewNull(eng, device.NullParams{Name: "hisi_sas", CompletionNsec: 100 * sim.Microsecond})
			q, err := addTestLUN(h, testLUN{Device: &refuser{Device: null, refuseAt: 2}, QueueDepth: 32, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			var c counter
			x := Bio{Op: device.OpWrite, Offset: 0, Length: 1 << 20, Sync: true, End: &c}
			q.SubmitBio(&x, 1, true, nil) // direct issue on hctx 1: accepted
			eng.RunUntil(20 * sim.Microsecond)
			y := Bio{Op: device.OpWrite, Offset: 1 << 20, Length: 1 << 20, Sync: true, End: &c}
			h0 := q.hctxs[0]
			rq := q.initRequest(h0, 0, h0.th.GetDriverTag(0, false), &y)
			h0.dispatch.pushBack(rq)
			h0.runHwQueue(false) // refused by the LLD while X is in flight
			eng.RunUntil(sim.Second)
			if c.n != tt.wantDone {
				t.Errorf("completed %d, want %d", c.n, tt.wantDone)
			}
			if tt.wantDone == 1 && (h0.DispatchLen() != 1 || h0.RunPending() || deviceBusy(q) != 0) {
				t.Errorf("hang state: dispatch %d, run pending %v, busy %d", h0.DispatchLen(), h0.RunPending(), deviceBusy(q))
			}
		})
	}
}

// TestR07Randomized runs the R07 setup (host-wide tags of depth 1, 4 hctxs,
// mq-deadline, 40 queue-depth-1 random readers/writers migrating between two CPUs, a
// device without delay) under 20 seeds of kblockd and wake-up timing, with the barrier:
// I/O must keep completing until the end of each 200 ms run (no stranded request).
func TestR07Randomized(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		rig := newRig(t, HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 1, HostTagset: true, Seed: seed},
			testLUN{QueueDepth: 1, NrRequests: 64}, device.NullParams{Name: "scsi_debug"})
		var tasks []*loopTask
		for i := 0; i < 40; i++ {
			l := newLoopTask(rig, []int{i % 4, (i + 1) % 4}, seed*100+uint64(i))
			tasks = append(tasks, l)
			l.submit()
		}
		const limit = 200 * sim.Millisecond
		rig.eng.RunUntil(limit)
		var last sim.Time
		total := 0
		for _, l := range tasks {
			last = max(last, l.last)
			total += l.done
		}
		if total == 0 || last < limit-10*sim.Millisecond {
			t.Errorf("R07/randomized seed %d: hang: %d completions, last at %v of %v", seed, total, last, limit)
		}
	}
}
