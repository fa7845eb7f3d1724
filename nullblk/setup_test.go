package nullblk_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
)

// sharedPair builds null_blk's shared_tags: two devices, each its own request queue,
// on one tag set of two hctxs, each read once from CPU 0 as it is added
// (add_disk's partition scan), at scan (ns, ≤ 0) on a clock that reads clock0 at 0.
func sharedPair(t *testing.T, scan, clock0 sim.Time) (*sim.Engine, [2]*dispatch.Queue) {
	t.Helper()
	eng := sim.NewEngine()
	h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 32})
	if err != nil {
		t.Fatal(err)
	}
	var qs [2]*dispatch.Queue
	for i := range qs {
		dev, err := device.NewNull(eng, device.NullParams{Name: "nullb", CompletionNsec: sim.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		d, err := nullblk.New(h, nullblk.Config{Device: dev, IRQMode: nullblk.IRQTimer, Queue: dispatch.LUNConfig{Elevator: "none"}})
		if err != nil {
			t.Fatal(err)
		}
		qs[i] = d.Queue()
		if err := qs[i].SetupRequest(0, scan, clock0); err != nil {
			t.Fatal(err)
		}
	}
	return eng, qs
}

// active reports, per queue, whether each hctx is an active user of the tags.
func active(qs [2]*dispatch.Queue) [2][2]bool {
	var out [2][2]bool
	for i, q := range qs {
		for j, x := range q.Hctxs() {
			out[i][j] = x.TagState().Active()
		}
	}
	return out
}

// TestSetupScanMarksLaterDisksActive: the first disk's scan finds its tag set not yet
// shared (blk_mq_tag_busy is a no-op), the second disk's marks its hctx of CPU 0
// active, as the guest's debugfs shows before fio (active_queues 1 on hctx0 only).
// With no request in flight, the queue's timeout work idles it at the scan's
// deadline (null_blk's 5 s rq_timeout) rounded up to a whole second of the clock.
func TestSetupScanMarksLaterDisksActive(t *testing.T) {
	eng, qs := sharedPair(t, -1200*sim.Millisecond, 6300*sim.Millisecond)
	want := [2][2]bool{{false, false}, {true, false}}
	if diff := cmp.Diff(want, active(qs)); diff != "" {
		t.Fatalf("active hctxs after the scans (-want +got):\n%s", diff)
	}
	if got := qs[0].Hctxs()[0].Tags().ActiveQueues(); got != 1 {
		t.Fatalf("hctx0 active_queues = %d, want 1", got)
	}
	// scan at clock 5.1 s, deadline 10.1 s, timer at 11 s = engine 4.7 s
	eng.RunUntil(4699 * sim.Millisecond)
	if !qs[1].Hctxs()[0].TagState().Active() {
		t.Fatal("nullb1 hctx0 idle before its timer (engine 4.7 s)")
	}
	eng.RunUntil(4701 * sim.Millisecond)
	if diff := cmp.Diff([2][2]bool{}, active(qs)); diff != "" {
		t.Fatalf("active hctxs after the timeout work (-want +got):\n%s", diff)
	}
}

// TestSetupRequestErrors: a CPU outside the machine or a time in the future is an
// error naming the LUN.
func TestSetupRequestErrors(t *testing.T) {
	_, qs := sharedPair(t, 0, -1)
	for _, tc := range []struct {
		name    string
		cpu     int
		at      sim.Time
		wantErr string
	}{
		{"cpu", 2, 0, "dispatch: lun 1: setup request cpu 2 out of range [0, 2)"},
		{"future", 0, sim.Second, "dispatch: lun 1: setup request at 1s after now 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := qs[1].SetupRequest(tc.cpu, tc.at, -1)
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
