package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// lockRun runs loops queue-depth-1 random 4 KiB loops, loop i on CPU cpuOf(i), on an
// 8-CPU host with one hardware queue, no elevator and a LUN queue depth of 2, so that
// most requests miss the budget on direct issue and go through the software queues
// (ctx->lock) and hctx->dispatch (hctx->lock). It returns the contention counters by
// name after 1 ms of model time.
func lockRun(t *testing.T, m CPUModel, loops int, cpuOf func(int) int) map[string]ContentionStat {
	t.Helper()
	rig := newRig(t, HostConfig{NrCPUs: 8, NrHwQueues: 1, CanQueue: 64, CPU: m},
		testLUN{QueueDepth: 2, Elevator: "none"},
		device.NullParams{Name: "null", CompletionNsec: 5 * sim.Microsecond})
	for i := 0; i < loops; i++ {
		newLoopTask(rig, []int{cpuOf(i)}, uint64(i+1)).submit()
	}
	rig.eng.RunUntil(sim.Millisecond)
	out := map[string]ContentionStat{}
	for _, c := range rig.host.Contention() {
		out[c.Name] = c
	}
	return out
}

// TestListLocks checks the software-queue and dispatch-list spinlocks: submitters on
// one CPU never move ctx->lock; submitters on eight CPUs hand it (and hctx->lock) to
// the CPU running the hardware queue, so their lines transfer; the Uncontended model
// has no such lock at all.
func TestListLocks(t *testing.T) {
	for _, tt := range []struct {
		name          string
		m             CPUModel
		cpuOf         func(int) int
		wantCtx       bool // ctx->lock counters present
		wantTransfers bool // ctx->lock moved between CPUs
	}{
		{"one-cpu", CPUModel{}, func(int) int { return 0 }, true, false},
		{"eight-cpus", CPUModel{}, func(i int) int { return i }, true, true},
		{"uncontended-model", CPUModel{Costs: func() CPUCosts { c := DefaultCPUCosts(); c.Uncontended = true; return c }()},
			func(i int) int { return i }, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := lockRun(t, tt.m, 8, tt.cpuOf)
			ctx, ok := st[lockCtx]
			if ok != tt.wantCtx {
				t.Fatalf("%s present = %v, want %v (counters %v)", lockCtx, ok, tt.wantCtx, st)
			}
			if !ok {
				return
			}
			if ctx.Ops == 0 {
				t.Errorf("%s: no operations", lockCtx)
			}
			if got := ctx.Transfers > 0; got != tt.wantTransfers {
				t.Errorf("%s: %d transfers of %d operations, want transfers = %v", lockCtx, ctx.Transfers, ctx.Ops, tt.wantTransfers)
			}
			if tt.wantTransfers {
				if h := st[lockHctx]; h.Ops == 0 {
					t.Errorf("%s: no operations with the budget refusing direct issue", lockHctx)
				}
			}
		})
	}
}

// TestListLocksDeterministic: the same run twice gives the same counters.
func TestListLocksDeterministic(t *testing.T) {
	a := lockRun(t, CPUModel{}, 8, func(i int) int { return i })
	b := lockRun(t, CPUModel{}, 8, func(i int) int { return i })
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s: %+v then %+v", k, v, b[k])
		}
	}
}
