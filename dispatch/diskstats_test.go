package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// TestDiskStatsCountRequests: a 1 MiB read on a queue with max_sectors_kb=128 is 8
// ios of 2048 sectors in all, each tick from allocation to end.
func TestDiskStatsCountRequests(t *testing.T) {
	rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 64},
		testLUN{QueueDepth: 64, Elevator: "none", MaxSectorsKB: 128},
		device.NullParams{CompletionNsec: 100 * sim.Microsecond})
	s := &splitTask{}
	s.tw.S = s
	s.bio = Bio{Op: device.OpRead, Length: 1 << 20, Sync: true, End: s}
	rig.q.SubmitBio(&s.bio, 0, false, &s.tw)
	rig.eng.Run()
	st := rig.q.DiskStats()
	got := []uint64{st.IOs[0], st.IOs[1], st.Sectors[0], st.Merges[0], uint64(st.InFlight), rig.q.Stats().Dispatched}
	if d := cmp.Diff([]uint64{8, 0, 2048, 0, 0, 8}, got); d != "" {
		t.Errorf("[read ios, write ios, read sectors, read merges, in flight, device commands] (-want +got):\n%s", d)
	}
	// every part is allocated at about 0 (after the CPU cost of the parts before
	// it) and ends 100 µs after it is issued (the device is parallel)
	if st.Ticks[0] < 8*100*sim.Microsecond || st.Ticks[0] > 8*st.Busy || st.Busy != s.doneAt {
		t.Errorf("read ticks %v, busy %v; want in [800µs, 8 × busy], busy = the I/O's end %v", st.Ticks[0], st.Busy, s.doneAt)
	}
}

// TestDiskStatsMerges: a bio merged into a queued request is one merge; the request
// is one io.
func TestDiskStatsMerges(t *testing.T) {
	rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 64},
		testLUN{QueueDepth: 1, Elevator: "mq-deadline"}, device.NullParams{CompletionNsec: sim.Millisecond})
	var tasks [3]splitTask
	for i, off := range []int64{0, 1 << 20, 1<<20 + 4096} {
		s := &tasks[i]
		s.tw.S = s
		s.bio = Bio{Op: device.OpWrite, Offset: off, Length: 4096, Sync: true, End: s}
		rig.q.SubmitBio(&s.bio, 0, false, &s.tw)
	}
	rig.eng.Run()
	st := rig.q.DiskStats()
	got := []uint64{st.IOs[1], st.Merges[1], st.Sectors[1], uint64(st.InFlight)}
	if d := cmp.Diff([]uint64{2, 1, 24, 0}, got); d != "" {
		t.Errorf("[write ios, write merges, write sectors, in flight] (-want +got):\n%s", d)
	}
}

// TestDiskStatsUtil: io_ticks follows update_io_ticks's jiffies. A QD1 loop keeps
// the disk busy all the time: util 100 %; one 1 ms I/O every 10 ms (a jiffy of
// 4 ms at HZ 250) counts 1 jiffy at start and the jiffies since at end.
func TestDiskStatsUtil(t *testing.T) {
	rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 64},
		testLUN{QueueDepth: 64, Elevator: "none"}, device.NullParams{CompletionNsec: 50 * sim.Microsecond})
	l := newLoopTask(rig, []int{0}, 1)
	l.limit = 4000
	l.submit()
	rig.eng.Run()
	st := rig.q.DiskStats()
	end := l.last
	if busy := float64(st.Busy) / float64(end); busy < 0.99 {
		t.Errorf("busy fraction %.3f, want ≈ 1", busy)
	}
	// one jiffy at the first start, then every jiffy boundary up to the last end
	if want := (end/jiffy + 1) * jiffy; st.IOTicks != want {
		t.Errorf("io_ticks %v, want %v (end %v)", st.IOTicks, want, end)
	}

	// sparse: 1 ms I/Os at 0, 10 ms, 20 ms … (each in its own jiffy)
	rig = newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 64},
		testLUN{QueueDepth: 64, Elevator: "none"}, device.NullParams{CompletionNsec: sim.Millisecond})
	var tasks [10]splitTask
	for i := range tasks {
		s := &tasks[i]
		s.tw.S = s
		s.bio = Bio{Op: device.OpRead, Offset: int64(i) << 20, Length: 4096, Sync: true, End: s}
		rig.eng.At(sim.Time(i)*10*sim.Millisecond+sim.Microsecond, sim.HandlerFunc(func(sim.Time) { rig.q.SubmitBio(&s.bio, 0, false, &s.tw) }))
	}
	rig.eng.Run()
	st = rig.q.DiskStats()
	// each I/O: +1 jiffy at start (a new jiffy), +0 at end (same jiffy): 10 jiffies
	// = 40 ms counted for 10 ms busy, as the 6.1 formula over-counts short I/Os
	if st.IOTicks != 10*jiffy || st.Busy != 10*sim.Millisecond {
		t.Errorf("io_ticks %v, busy %v; want %v, 10ms", st.IOTicks, st.Busy, 10*jiffy)
	}
}
