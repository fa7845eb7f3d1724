package dispatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

// TestKworkerRunning: under Timing.KblockdTTWU a kblockd run queued while the target
// CPU's worker is running a work item (the item's charged work not yet done) is taken
// by that worker when the item ends (insert_work wakes no worker while
// pool->nr_running; worker_thread's keep_working loop); a run its own item queues is
// due at the queueing point; once the item is done, or without the switch, the
// worker must be woken again.
func TestKworkerRunning(t *testing.T) {
	const item = 50 * sim.Microsecond
	type got struct {
		End sim.Time
		OK  bool
	}
	tests := []struct {
		name     string
		ttwu     bool
		at       sim.Time // when the run is queued (the item started at 0 on CPU 1)
		cpu, tgt int
		inRun    bool // queued from inside the item (before kworkerRan)
		want     got
	}{
		{"ttwu/remote/item-running", true, 10 * sim.Microsecond, 0, 1, false, got{item, true}},
		{"ttwu/remote/item-done", true, 60 * sim.Microsecond, 0, 1, false, got{item, false}},
		{"ttwu/remote/other-cpu-idle", true, 10 * sim.Microsecond, 1, 2, false, got{}},
		{"ttwu/own-item", true, 0, 1, 1, true, got{0, true}},
		{"default/remote/item-running", false, 10 * sim.Microsecond, 0, 1, false, got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := NewHost(eng, HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 8,
				Timing: Timing{KblockdTTWU: tt.ttwu}})
			if err != nil {
				t.Fatal(err)
			}
			h.onCPU(1)
			h.kworkerStart(1)
			if tt.inRun {
				var g got
				g.End, g.OK = h.kworkerRunning(tt.cpu, tt.tgt)
				if d := cmp.Diff(tt.want, g); d != "" {
					t.Errorf("kworkerRunning inside the item (-want +got):\n%s", d)
				}
				return
			}
			h.charge(item)
			h.kworkerRan(1)
			eng.RunUntil(tt.at)
			h.onCPU(tt.cpu)
			var g got
			g.End, g.OK = h.kworkerRunning(tt.cpu, tt.tgt)
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("kworkerRunning (-want +got):\n%s", d)
			}
		})
	}
}
