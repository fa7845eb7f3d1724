package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestPlug: sequential bios merge in the plug (last request); non-contiguous ones are
// held until Finish, and a plug reaching BLK_MAX_REQUEST_COUNT is flushed first.
func TestPlug(t *testing.T) {
	tests := []struct {
		name         string
		offsets      []int64 // 4 KiB units
		maxPlug      int
		wantBefore   int // commands at the device before Finish
		wantCommands int
	}{
		{"sequential-merge-to-one", []int64{0, 1, 2, 3}, 32, 0, 1},
		{"random-held-until-finish", []int64{0, 10, 20, 30}, 32, 0, 4},
		{"max-request-count-flush", []int64{0, 10, 20, 30, 40}, 4, 4, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 2, CanQueue: 64, Options: Options{MaxPlugRequests: tt.maxPlug}},
				testLUN{QueueDepth: 32, Elevator: "none"}, device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
			var c counter
			var p Plug
			p.Start(len(tt.offsets))
			for _, off := range tt.offsets {
				b := &Bio{Op: device.OpWrite, Offset: off * 4096, Length: 4096, Sync: true, End: &c}
				rig.q.SubmitBioPlug(b, 0, true, nil, &p)
			}
			if got := len(rig.dev.order); got != tt.wantBefore {
				t.Errorf("commands before Finish = %d, want %d", got, tt.wantBefore)
			}
			p.Finish(0)
			rig.eng.Run()
			if got := len(rig.dev.order); got != tt.wantCommands {
				t.Errorf("commands = %d, want %d", got, tt.wantCommands)
			}
			if c.n != len(tt.offsets) {
				t.Errorf("completed bios = %d, want %d", c.n, len(tt.offsets))
			}
		})
	}
}
