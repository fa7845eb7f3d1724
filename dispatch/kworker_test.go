package dispatch_test

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// TestKworkerBusy: an asynchronous hctx run queued with delay 0 wakes the kblockd
// worker of the hctx's CPU, which is then a task there (idle_cpu fails: the woken
// worker sets ttwu_pending / nr_running) until the run's work is done; other CPUs stay
// idle, and so does every CPU before the queueing and after the run.
func TestKworkerBusy(t *testing.T) {
	eng := sim.NewEngine()
	h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 2, CanQueue: 8})
	if err != nil {
		t.Fatal(err)
	}
	h.TrackKworkers() // what stack does with Placement.KworkerTasks
	drv := &refuseTwice{eng: eng}
	q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
	if err != nil {
		t.Fatal(err)
	}
	const sub = 2
	hx := q.HctxOf(sub)
	b := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
	q.SubmitBio(&b, sub, true, nil)
	eng.RunUntil(sim.Millisecond) // refused twice: parked on hctx->dispatch
	busy := func() []bool {
		var out []bool
		for c := range 4 {
			out = append(out, h.KworkerBusy(c, eng.Now()))
		}
		return out
	}
	for c, b := range busy() {
		if b {
			t.Fatalf("CPU %d busy with a kworker before any async run", c)
		}
	}
	other := 0
	for c := range 4 {
		if q.HctxOf(c) != hx {
			other = c
			break
		}
	}
	h.OnCPU(other)
	q.RunHwQueues(other, true) // async: kblockd on the hctx's CPU
	kw := hx.CPUs()[0]
	for c, b := range busy() {
		if b != (c == kw) {
			t.Errorf("after queueing the run: CPU %d kworker busy = %v, want %v (the hctx's CPU %d)", c, b, c == kw, kw)
		}
	}
	eng.RunUntil(2 * sim.Millisecond)
	if len(drv.cpus) != 1 {
		t.Fatalf("accepted %d commands, want 1 (the kblockd run)", len(drv.cpus))
	}
	for c, b := range busy() {
		if b {
			t.Errorf("after the run: CPU %d still busy with a kworker", c)
		}
	}
	if h.KworkerBusy(-1, eng.Now()) || h.KworkerBusy(4, eng.Now()) {
		t.Error("KworkerBusy true for a CPU out of range")
	}
}
