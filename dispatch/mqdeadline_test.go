package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

func deadlineRig(t *testing.T) (*testRig, *MQDeadline) {
	rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 256},
		testLUN{QueueDepth: 1, NrRequests: 256, Elevator: "mq-deadline"},
		device.NullParams{Name: "null", CompletionNsec: 10 * sim.Microsecond})
	return rig, rig.q.elevator.(*MQDeadline)
}

// TestMQDeadlineOrder: with a LUN depth of 1 every request is chosen individually:
// reads in sector order in batches, a write batch after writes_starved (2) read
// batches, fifo_batch 16 per batch.
func TestMQDeadlineOrder(t *testing.T) {
	rig, dd := deadlineRig(t)
	var c counter
	q := rig.q
	h := q.hctxs[0]
	insert := func(op device.Op, sector int64) {
		b := &Bio{Op: op, Offset: sector * 4096, Length: 4096, Sync: true, End: &c}
		tag := h.th.SchedTags().Get(0, false)
		rq := q.initRequest(h, 0, tag, b)
		dd.InsertRequest(rq, false)
	}
	// 40 reads at descending sectors 1000..961 (sort order ascending), 2 writes.
	for i := int64(0); i < 40; i++ {
		insert(device.OpRead, 1000-i)
	}
	insert(device.OpWrite, 5000)
	insert(device.OpWrite, 5002) // not contiguous: no insert merge
	h.runHwQueue(false)
	rig.eng.Run()
	var got []int64
	for _, o := range rig.dev.order {
		got = append(got, o/4096)
	}
	var want []int64
	// First batch: FIFO head (sector 1000) has not expired, no next_rq yet ⇒ FIFO
	// head; then its sort successors (none above 1000) ⇒ batch ends; and so on.
	want = append(want, 1000)
	// New batch (reads chosen again, starved=1): FIFO head 999, then nothing above
	// 999 but 1000 is gone ⇒ next batch.
	want = append(want, 999)
	// Third choice: writes were starved twice ⇒ writes: 5000, 5002 (sort order).
	want = append(want, 5000, 5002)
	// Then reads: FIFO head 998; successors none (999, 1000 gone); each read is
	// its own batch from the FIFO head, descending.
	for s := int64(998); s >= 961; s-- {
		want = append(want, s)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dispatch order (-want +got):\n%s", diff)
	}
}

// TestMQDeadlineBatchSorted: ascending inserts are served in sort order in batches of
// fifo_batch.
func TestMQDeadlineBatchSorted(t *testing.T) {
	rig, dd := deadlineRig(t)
	var c counter
	q := rig.q
	h := q.hctxs[0]
	for i := int64(0); i < 20; i++ {
		b := &Bio{Op: device.OpRead, Offset: (100 + 2*i) * 4096, Length: 4096, Sync: true, End: &c}
		dd.InsertRequest(q.initRequest(h, 0, h.th.SchedTags().Get(0, false), b), false)
	}
	h.runHwQueue(false)
	rig.eng.Run()
	for i, o := range rig.dev.order {
		if want := (100 + 2*int64(i)) * 4096; o != want {
			t.Fatalf("request %d at %d, want %d", i, o, want)
		}
	}
}

// TestMQDeadlineMerges: back merge, front merge, and a back merge that closes a gap
// merges the two requests and frees one sched tag.
func TestMQDeadlineMerges(t *testing.T) {
	tests := []struct {
		name      string
		bios      []int64 // offsets in 4 KiB units, submitted in order
		maxKB     int
		wantRqs   int
		wantBytes []int64
	}{
		{"back-merge", []int64{0, 1, 2}, 1280, 1, []int64{3 * 4096}},
		{"front-merge", []int64{2, 1, 0}, 1280, 1, []int64{3 * 4096}},
		{"gap-closing-merge", []int64{0, 2, 1}, 1280, 1, []int64{3 * 4096}},
		{"max-sectors", []int64{0, 1, 2}, 8, 2, []int64{8192, 4096}},
		{"no-merge", []int64{0, 2, 4}, 1280, 3, []int64{4096, 4096, 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 64},
				testLUN{QueueDepth: 1, Elevator: "mq-deadline", MaxSectorsKB: tt.maxKB},
				device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
			q := rig.q
			var c counter
			// Occupy the LUN so the following bios stay in the scheduler.
			q.SubmitBio(&Bio{Op: device.OpWrite, Offset: 1 << 30, Length: 4096, Sync: true, End: &c}, 0, true, nil)
			rig.eng.RunUntil(100 * sim.Microsecond)
			for _, off := range tt.bios {
				q.SubmitBio(&Bio{Op: device.OpWrite, Offset: off * 4096, Length: 4096, Sync: true, End: &c}, 0, true, nil)
			}
			dd := q.elevator.(*MQDeadline)
			if dd.Queued() != tt.wantRqs {
				t.Errorf("queued requests %d, want %d", dd.Queued(), tt.wantRqs)
			}
			if used := q.hctxs[0].th.SchedTags().Busy(); used != tt.wantRqs+1 {
				t.Errorf("sched tags in use %d, want %d", used, tt.wantRqs+1)
			}
			var got []int64
			for _, rq := range dd.sorted[device.OpWrite] {
				got = append(got, rq.Length)
			}
			if diff := cmp.Diff(tt.wantBytes, got); diff != "" {
				t.Errorf("request sizes (-want +got):\n%s", diff)
			}
			rig.eng.Run()
			if c.n != len(tt.bios)+1 {
				t.Errorf("completed %d bios, want %d", c.n, len(tt.bios)+1)
			}
		})
	}
}

// TestDeadlineAsyncDepth (§6.4): how many write requests can hold sched tags of a
// queue with nr_requests 56 before a REQ_NOWAIT write fails. Host-wide sched tags are
// one 64-bit word (allocated at MAX_SCHED_RQ), so the v5.14–v6.9 raw per-word limit of
// 42 binds; per-hctx sched tags of 56 use 8-bit words and it never does. The v6.6–v6.7
// rule (d47f9717e5cf) takes 3/4 of the word width instead: 48 of the 64-bit word, 6 of
// each of the seven 8-bit words.
func TestDeadlineAsyncDepth(t *testing.T) {
	tests := []struct {
		name       string
		hostTagset bool
		rule       DeadlineAsyncRule
		want       int
	}{
		{"host-wide/raw-per-word-v5.14", true, DeadlineAsyncRawPerWord, 42},
		{"host-wide/scaled-v6.10", true, DeadlineAsyncScaled, 56},
		{"host-wide/none-v5.13", true, DeadlineAsyncNone, 56},
		{"per-hctx/raw-per-word-v5.14", false, DeadlineAsyncRawPerWord, 56},
		// d47f9717e5cf (v6.6–v6.7): 3/4 of the word width, whatever nr_requests.
		{"host-wide/word-shift-v6.6", true, DeadlineAsyncWordShift, 48},
		{"per-hctx/word-shift-v6.6", false, DeadlineAsyncWordShift, 42},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 1024, HostTagset: tt.hostTagset,
				Options: Options{DeadlineAsyncDepth: tt.rule}},
				testLUN{QueueDepth: 1, NrRequests: 56, Elevator: "mq-deadline"},
				device.NullParams{Name: "null", CompletionNsec: sim.Second})
			var c counter
			n := 0
			for ; n < 100; n++ {
				b := &Bio{Op: device.OpWrite, Offset: int64(n) * 1 << 20, Length: 4096, Sync: true, End: &c}
				if rig.q.SubmitBio(b, 0, true, nil) == WouldBlock {
					break
				}
			}
			if n != tt.want {
				t.Errorf("writes holding sched tags = %d, want %d", n, tt.want)
			}
		})
	}
}

// TestDeadlineAsyncEras: the mainline release of each mq-deadline async_depth rule.
func TestDeadlineAsyncEras(t *testing.T) {
	tests := []struct {
		release string
		want    DeadlineAsyncRule
	}{
		{"5.13", DeadlineAsyncNone},
		{"5.14", DeadlineAsyncRawPerWord},
		{"6.5", DeadlineAsyncRawPerWord},
		{"6.6", DeadlineAsyncWordShift}, // d47f9717e5cf
		{"6.7", DeadlineAsyncWordShift},
		{"6.8", DeadlineAsyncRawPerWord}, // 256aab46e316 reverts it
		{"6.9", DeadlineAsyncRawPerWord},
		{"6.10", DeadlineAsyncScaled}, // 39823b47bbd4
	}
	for _, tt := range tests {
		t.Run(tt.release, func(t *testing.T) {
			o, err := Kernel(tt.release)
			if err != nil {
				t.Fatal(err)
			}
			if o.DeadlineAsyncDepth != tt.want {
				t.Errorf("Kernel(%q).DeadlineAsyncDepth = %d, want %d", tt.release, o.DeadlineAsyncDepth, tt.want)
			}
		})
	}
}

// TestMQDeadlineNextRqKept: with fifo_batch 1 every dispatch chooses a direction
// again. Reads inserted at sectors 10, 40, 30, 20 (FIFO order) and one write: the
// FIFO head 10, its sort successor 20, then the write (reads starved twice). In 6.1
// (v5.14+, "block/mq-deadline: Micro-optimize the batching algorithm") the write's
// deadline_move_request leaves the reads' next_rq at 30, so reads resume in sort
// order (30, 40); before v5.14 (DeadlineMoveClearsNextRq) it was cleared and reads
// restart from their FIFO head (40, then 30).
func TestMQDeadlineNextRqKept(t *testing.T) {
	for _, tt := range []struct {
		name  string
		clear bool
		want  []int64
	}{
		{"v6.1-keeps-the-sort-position", false, []int64{10, 20, 100, 30, 40}},
		{"before-v5.14-restarts-from-fifo-head", true, []int64{10, 20, 100, 40, 30}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 256,
				Options: Options{DeadlineMoveClearsNextRq: tt.clear}},
				testLUN{QueueDepth: 1, NrRequests: 256, Elevator: "mq-deadline"},
				device.NullParams{Name: "null", CompletionNsec: 10 * sim.Microsecond})
			dd := rig.q.elevator.(*MQDeadline)
			dd.FifoBatch = 1
			var c counter
			q := rig.q
			h := q.hctxs[0]
			for _, x := range []struct {
				op     device.Op
				sector int64
			}{{device.OpRead, 10}, {device.OpRead, 40}, {device.OpRead, 30}, {device.OpRead, 20}, {device.OpWrite, 100}} {
				b := &Bio{Op: x.op, Offset: x.sector * 4096, Length: 4096, Sync: true, End: &c}
				dd.InsertRequest(q.initRequest(h, 0, h.th.SchedTags().Get(0, false), b), false)
			}
			h.runHwQueue(false)
			rig.eng.Run()
			var got []int64
			for _, o := range rig.dev.order {
				got = append(got, o/4096)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("dispatch order (-want +got):\n%s", d)
			}
		})
	}
}
