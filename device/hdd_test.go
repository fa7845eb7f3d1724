package device_test

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestHDDRandomReadQD1: 4 KiB random reads over the whole disk at queue depth 1 take
// command overhead + average seek + half a revolution + transfer (the data-sheet
// arithmetic for a random I/O).
func TestHDDRandomReadQD1(t *testing.T) {
	p := device.Cheetah15K7Params()
	p.QueuedReordering = false
	eng := sim.NewEngine()
	d, err := device.NewHDD(eng, p)
	if err != nil {
		t.Fatal(err)
	}
	g := newLoad(eng, d, 1, 3)
	g.span = p.CapacityBytes
	g.run(100*sim.Millisecond, 60*sim.Second)
	t.Logf("QD1 4k random read: mean %v over %d samples, %.0f IOPS", sim.Time(g.meanLat()), g.done, g.iops())
	rev := p.RevolutionTime()
	// Mean media rate over LBA is the mean of the zone rates.
	meanRate := (p.OuterBytesPerSec + p.InnerBytesPerSec) / 2
	xfer := float64(4096) / meanRate * 1e9
	want := float64(p.CommandOverhead+p.AverageSeek+rev/2) + xfer
	if !within(g.meanLat(), want, 0.03) {
		t.Errorf("mean latency %v, want overhead %v + avg seek %v + rev/2 %v + transfer %.0fns = %v ± 3%% (%d samples)",
			sim.Time(g.meanLat()), p.CommandOverhead, p.AverageSeek, rev/2, xfer, sim.Time(want), g.done)
	}
}

// TestHDDSequentialWriteCacheOff: with the write cache off, a sequential writer at
// depth 1 misses its sector by the command overhead and loses a revolution per command;
// at depth 2 the next command is queued in the drive and the media streams.
func TestHDDSequentialWriteCacheOff(t *testing.T) {
	p := device.Cheetah15K7Params()
	p.WriteCache = false
	rev := p.RevolutionTime()
	const size = 64 << 10
	measure := func(depth int) *loadGen {
		eng := sim.NewEngine()
		d, err := device.NewHDD(eng, p)
		if err != nil {
			t.Fatal(err)
		}
		g := newLoad(eng, d, depth, 1)
		g.op, g.size, g.seq = device.OpWrite, size, true
		g.run(50*sim.Millisecond, 2*sim.Second)
		return g
	}
	qd1, qd2 := measure(1), measure(2)
	t.Logf("64k sequential writes WCE off: QD1 %.1f MB/s (%v per command), QD2 %.1f MB/s", qd1.bps()/1e6, sim.Time(qd1.meanLat()), qd2.bps()/1e6)
	outerXfer := float64(size) / p.OuterBytesPerSec * 1e9
	if want := float64(rev) + outerXfer; !within(qd1.meanLat(), want, 0.03) {
		t.Errorf("QD1 latency %v, want a revolution + transfer = %v ± 3%%", sim.Time(qd1.meanLat()), sim.Time(want))
	}
	if r := qd2.bps() / qd1.bps(); r < 2 {
		t.Errorf("QD2/QD1 throughput ratio %.2f, want >= 2 (QD1 %.1f MB/s, QD2 %.1f MB/s)", r, qd1.bps()/1e6, qd2.bps()/1e6)
	}
	if qd2.bps() < 0.95*p.OuterBytesPerSec {
		t.Errorf("QD2 streams at %.1f MB/s, want >= 95%% of the outer media rate %.0f MB/s", qd2.bps()/1e6, p.OuterBytesPerSec/1e6)
	}
}

// TestHDDWriteCacheAndReordering checks the two optional features against their
// expected direction: the write cache makes depth-1 sequential writes stream, and
// queued reordering raises random-read IOPS at depth 32.
func TestHDDWriteCacheAndReordering(t *testing.T) {
	run := func(p device.HDDParams, op device.Op, depth int, seq bool, size int64) *loadGen {
		eng := sim.NewEngine()
		d, err := device.NewHDD(eng, p)
		if err != nil {
			t.Fatal(err)
		}
		g := newLoad(eng, d, depth, 5)
		g.op, g.size, g.seq, g.span = op, size, seq, p.CapacityBytes
		g.run(200*sim.Millisecond, 5*sim.Second)
		return g
	}
	base := device.Cheetah15K7Params()
	wce := base
	wce.WriteCache = true
	if g := run(wce, device.OpWrite, 1, true, 64<<10); g.bps() < 0.9*base.OuterBytesPerSec {
		t.Errorf("WCE on, QD1 sequential writes: %.1f MB/s, want >= 90%% of media rate", g.bps()/1e6)
	}
	fifo := base
	fifo.QueuedReordering = false
	f, s := run(fifo, device.OpRead, 32, false, 4096), run(base, device.OpRead, 32, false, 4096)
	t.Logf("QD32 4k random read: FIFO %.0f IOPS, reordering %.0f IOPS", f.iops(), s.iops())
	if s.iops() < 1.5*f.iops() {
		t.Errorf("QD32 random read: reordering %.0f IOPS vs FIFO %.0f, want >= 1.5×", s.iops(), f.iops())
	}
	// FIFO at depth 32 is no faster than depth 1 (nothing overlaps but the overhead).
	if one := run(fifo, device.OpRead, 1, false, 4096); f.iops() > 1.1*one.iops() {
		t.Errorf("FIFO QD32 %.0f IOPS vs QD1 %.0f: want within 10%%", f.iops(), one.iops())
	}
}

// TestHDDAgingLimit: with reordering, a random reader behind a sequential write stream
// starves without an aging limit (the next write is always under the head) and is
// served within the limit with one.
func TestHDDAgingLimit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		aging      sim.Time
		wantReads  bool
		maxLatency sim.Time
	}{
		{"no-limit-starves", 0, false, 0},
		{"limit-100ms", 100 * sim.Millisecond, true, 100*sim.Millisecond + 20*sim.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := device.Cheetah15K3Params()
			p.QueuedReordering, p.AgingLimit = true, tc.aging
			eng := sim.NewEngine()
			d, err := device.NewHDD(eng, p)
			if err != nil {
				t.Fatal(err)
			}
			w := newLoad(eng, d, 8, 1)
			w.op, w.size, w.seq = device.OpWrite, 64<<10, true
			r := newLoad(eng, d, 1, 2)
			r.span, r.keepLats = p.CapacityBytes, true
			r.winStart, r.winEnd = 100*sim.Millisecond, 2*sim.Second // after the stream builds up
			r.start()
			w.run(0, 2*sim.Second)
			if got := r.done > 0; got != tc.wantReads {
				t.Fatalf("reads completed: %d (want any: %v)", r.done, tc.wantReads)
			}
			for _, l := range r.lats {
				if l > tc.maxLatency {
					t.Fatalf("read latency %v above aging limit + %v", l, tc.maxLatency-tc.aging)
				}
			}
			t.Logf("reads %d, writes %.1f MB/s", r.done, w.bps()/1e6)
		})
	}
}
