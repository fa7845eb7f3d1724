package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// TestPre415ParkUnmergeable is §5.6/§9(c) on a LUN of queue_depth 1 with mq-deadline:
// while the LUN is full, a v4.13 queue run that makes no progress pulls a request out
// of the elevator, gets BUSY from scsi_queue_rq and parks it at the HEAD of
// hctx->dispatch, where a later contiguous bio cannot merge; v4.15 takes budget first,
// so the request stays in the elevator and the bio merges.
func TestPre415ParkUnmergeable(t *testing.T) {
	for _, tc := range []struct {
		name         string
		kernel       func() (Options, error)
		wantMerges   uint64
		wantParked   []int64 // hctx->dispatch offsets, head first, while A is in flight
		wantCommands int     // commands the device received for the 4 bios
	}{
		{"9c/v4.13-dequeue-before-budget", func() (Options, error) { return KernelPre415("4.13") }, 0, []int64{2 << 20, 1 << 20}, 3 + 1},
		{"9c/v4.15-budget-before-dequeue", func() (Options, error) { return Kernel("4.15") }, 1, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.kernel()
			if err != nil {
				t.Fatal(err)
			}
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 4, Options: o, CPU: CPUModel{Off: true}},
				testLUN{QueueDepth: 1, Elevator: "mq-deadline"}, device.NullParams{CompletionNsec: sim.Millisecond})
			var c counter
			bios := make([]Bio, 4)
			submit := func(i int, off int64) {
				bios[i] = Bio{Op: device.OpRead, Offset: off, Length: 4096, Sync: true, End: &c}
				rig.q.SubmitBio(&bios[i], 0, true, nil)
				rig.eng.RunUntil(rig.eng.Now() + 200*sim.Microsecond)
			}
			submit(0, 0)       // A: dispatched, the LUN is full
			submit(1, 1<<20)   // B
			submit(2, 2<<20)   // C
			var parked []int64 // hctx->dispatch after the runs that B and C triggered
			for rq := rig.q.hctxs[0].dispatch.head; rq != nil; rq = rq.next {
				parked = append(parked, rq.Offset)
			}
			submit(3, 1<<20+4096) // D: contiguous behind B
			rig.eng.Run()
			if d := cmp.Diff(tc.wantParked, parked); d != "" {
				t.Errorf("hctx->dispatch while A in flight (-want +got):\n%s", d)
			}
			st := rig.q.Stats()
			if st.Merges != tc.wantMerges || len(rig.dev.order) != tc.wantCommands || c.n != 4 {
				t.Errorf("merges %d commands %d completed %d, want %d, %d, 4", st.Merges, len(rig.dev.order), c.n, tc.wantMerges, tc.wantCommands)
			}
		})
	}
}

// TestPre415NrRequests: with an elevator v4.11–v4.14 default nr_requests to 256
// (2 × BLKDEV_MAX_RQ); v4.15 to 2 × min(queue_depth, 128); without an elevator both
// keep the tag-set depth.
func TestPre415NrRequests(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kernel   func() (Options, error)
		elevator string
		want     int
	}{
		{"9c/v4.13-mq-deadline", func() (Options, error) { return KernelPre415("4.13") }, "mq-deadline", 256},
		{"9c/v4.15-mq-deadline", func() (Options, error) { return Kernel("4.15") }, "mq-deadline", 124},
		{"9c/v4.13-none", func() (Options, error) { return KernelPre415("4.13") }, "none", 62},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.kernel()
			if err != nil {
				t.Fatal(err)
			}
			rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 62, Options: o},
				testLUN{QueueDepth: 62, Elevator: tc.elevator}, device.NullParams{})
			if got := rig.q.NrRequests(); got != tc.want {
				t.Errorf("nr_requests %d, want %d", got, tc.want)
			}
		})
	}
}

// TestPre415NoDispatchBusy: on a single-hctx queue without elevator a synchronous bio
// with budget free is issued directly from v4.19 on (dispatch_busy clear) but inserted
// and run asynchronously in v4.13, which has no dispatch_busy.
func TestPre415NoDispatchBusy(t *testing.T) {
	for _, tc := range []struct {
		name       string
		kernel     func() (Options, error)
		wantDirect uint64
	}{
		{"9c/v4.13-insert", func() (Options, error) { return KernelPre415("4.13") }, 0},
		{"9c/v4.19-direct-issue", func() (Options, error) { return Kernel("4.19") }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.kernel()
			if err != nil {
				t.Fatal(err)
			}
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 4, Options: o, CPU: CPUModel{Off: true}},
				testLUN{QueueDepth: 4, Elevator: "none"}, device.NullParams{CompletionNsec: sim.Microsecond})
			var c counter
			b := Bio{Op: device.OpRead, Length: 4096, Sync: true, End: &c}
			rig.q.SubmitBio(&b, 0, true, nil)
			rig.eng.Run()
			if st := rig.q.Stats(); st.DirectIssues != tc.wantDirect || c.n != 1 {
				t.Errorf("direct issues %d completed %d, want %d, 1", st.DirectIssues, c.n, tc.wantDirect)
			}
		})
	}
}
