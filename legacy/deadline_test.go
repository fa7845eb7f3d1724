package legacy

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

type dreq struct {
	op  device.Op
	off int64
	at  sim.Time // insertion time
}

func mkReq(seq uint64, r dreq) *Request {
	return &Request{op: r.op, offset: r.off, length: 4096, seq: seq, sync: r.op == device.OpRead, tag: -1}
}

// dispatchAll inserts the requests and dispatches until empty at time now,
// returning "R<off>"/"W<off>" in dispatch order.
func dispatchAll(t *testing.T, p DeadlineParams, reqs []dreq, now sim.Time) []string {
	t.Helper()
	if p == (DeadlineParams{}) {
		p = DefaultDeadlineParams()
	}
	d, err := NewDeadline(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		d.Add(mkReq(uint64(i+1), r), r.at)
	}
	var out []string
	for rq := d.Dispatch(now); rq != nil; rq = d.Dispatch(now) {
		c := "W"
		if rq.op == device.OpRead {
			c = "R"
		}
		out = append(out, c+itoa(rq.offset/4096))
	}
	if d.Queued() != 0 {
		t.Fatalf("%d requests left", d.Queued())
	}
	return out
}

func itoa(v int64) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

func TestDeadlineDispatchOrder(t *testing.T) {
	const R, W = device.OpRead, device.OpWrite
	pg := int64(4096)
	tests := []struct {
		name string
		p    DeadlineParams
		reqs []dreq
		now  sim.Time
		want []string
	}{
		{
			name: "batch/sector-order-from-fifo-head",
			reqs: []dreq{{W, 5 * pg, 0}, {W, 1 * pg, 0}, {W, 9 * pg, 0}, {W, 7 * pg, 0}},
			// First batch starts at the FIFO head (5), then ascending; the end of the
			// sort list restarts at the FIFO head (1).
			want: []string{"W5", "W7", "W9", "W1"},
		},
		{
			name: "batch/fifo_batch-limits-then-direction-choice",
			p:    dp(func(p *DeadlineParams) { p.FifoBatch = 2 }),
			reqs: []dreq{{W, 1 * pg, 0}, {W, 2 * pg, 0}, {W, 3 * pg, 0}, {R, 50 * pg, 0}},
			// Reads are preferred at the first choice; after the read batch ends
			// (nothing after R50) writes are chosen.
			want: []string{"R50", "W1", "W2", "W3"},
		},
		{
			name: "writes_starved/2-read-batches-then-writes",
			p:    dp(func(p *DeadlineParams) { p.FifoBatch = 1 }),
			reqs: []dreq{{R, 1 * pg, 0}, {R, 10 * pg, 0}, {R, 20 * pg, 0}, {R, 30 * pg, 0}, {W, 5 * pg, 0}},
			want: []string{"R1", "R10", "W5", "R20", "R30"},
		},
		{
			name: "writes_starved/0-alternates",
			p:    dp(func(p *DeadlineParams) { p.FifoBatch, p.WritesStarved = 1, 0 }),
			reqs: []dreq{{R, 1 * pg, 0}, {R, 10 * pg, 0}, {W, 5 * pg, 0}, {W, 6 * pg, 0}},
			// starved (0) >= writes_starved (0) at the first choice: writes first.
			want: []string{"W5", "W6", "R1", "R10"},
		},
		{
			name: "expiry/expired-read-fifo-head-beats-sort-successor",
			p:    dp(func(p *DeadlineParams) { p.FifoBatch = 1 }),
			// FIFO order 10, 30, 20. At 600 ms all are expired: each new batch takes
			// the FIFO head (30) instead of the sort successor (20).
			reqs: []dreq{{R, 10 * pg, 0}, {R, 30 * pg, 0}, {R, 20 * pg, 0}},
			now:  600 * sim.Millisecond,
			want: []string{"R10", "R30", "R20"},
		},
		{
			name: "expiry/unexpired-follows-sort-order",
			p:    dp(func(p *DeadlineParams) { p.FifoBatch = 1 }),
			reqs: []dreq{{R, 10 * pg, 0}, {R, 30 * pg, 0}, {R, 20 * pg, 0}},
			now:  100 * sim.Millisecond,
			want: []string{"R10", "R20", "R30"},
		},
		{
			name: "expiry/expired-write-served-by-fifo",
			p:    dp(func(p *DeadlineParams) { p.FifoBatch, p.WritesStarved = 1, 100 }),
			reqs: []dreq{{W, 40 * pg, 0}, {W, 45 * pg, 0}, {W, 2 * pg, 0}},
			now:  6 * sim.Second,
			want: []string{"W40", "W45", "W2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dispatchAll(t, tc.p, tc.reqs, tc.now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("dispatch order (-want +got):\n%s", diff)
			}
		})
	}
}

// Unexpired requests: with fifo_batch 1 a new batch continues at the sort
// successor while the FIFO head has not expired, and jumps to the FIFO head once
// it has.
func TestDeadlineSortSuccessorVersusExpiredHead(t *testing.T) {
	pg := int64(4096)
	for _, tc := range []struct {
		name string
		now  sim.Time
		want []string
	}{
		{"expiry/not-expired", 100 * sim.Millisecond, []string{"W1", "W2", "W3", "W0"}},
		{"expiry/expired", 6 * sim.Second, []string{"W1", "W0", "W2", "W3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := NewDeadline(dp(func(p *DeadlineParams) { p.FifoBatch = 1 }))
			// FIFO order: 1, 0, 2, 3.
			for i, off := range []int64{1, 0, 2, 3} {
				d.Add(mkReq(uint64(i+1), dreq{device.OpWrite, off * pg, 0}), 0)
			}
			var got []string
			for rq := d.Dispatch(tc.now); rq != nil; rq = d.Dispatch(tc.now) {
				got = append(got, "W"+itoa(rq.offset/pg))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewDeadlineErrors(t *testing.T) {
	for _, p := range []DeadlineParams{{ReadExpire: -1, FifoBatch: 1}, {WriteExpire: -1, FifoBatch: 1}, {WritesStarved: -1, FifoBatch: 1}, {FifoBatch: 0}} {
		if _, err := NewDeadline(p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func dp(f func(*DeadlineParams)) DeadlineParams {
	p := DefaultDeadlineParams()
	f(&p)
	return p
}

// deadline_merged_requests: the survivor takes the earlier deadline and the
// absorbed request's FIFO position; the absorbed request leaves sort list and FIFO.
func TestDeadlineMergeRequestsKeepsEarlierDeadline(t *testing.T) {
	d, _ := NewDeadline(DefaultDeadlineParams())
	pg := int64(4096)
	next := mkReq(1, dreq{device.OpWrite, 1 * pg, 0})
	other := mkReq(2, dreq{device.OpWrite, 50 * pg, 0})
	rq := mkReq(3, dreq{device.OpWrite, 0, 0})
	d.Add(next, 0)
	d.Add(other, 500*sim.Millisecond)
	d.Add(rq, sim.Second)
	rq.length += next.length // the queue appends next to rq
	d.MergeRequests(rq, next)
	if rq.fifoTime != 5*sim.Second {
		t.Errorf("survivor expiry %v, want next's 5s", rq.fifoTime)
	}
	if got := d.Queued(); got != 2 {
		t.Fatalf("Queued = %d, want 2", got)
	}
	if d.fifo[device.OpWrite][0] != rq {
		t.Errorf("survivor is not at the FIFO head")
	}
	if d.Latter(rq) != other || d.Former(other) != rq || d.Former(rq) != nil {
		t.Errorf("sort neighbours wrong after the merge")
	}
}
