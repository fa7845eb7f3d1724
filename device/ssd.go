package device

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/sim"
)

// SSDParams configures an SSD (or a RAM-backed storage target) as three stages: a
// controller that spends a fixed time on every command, one after another; media made of
// ParallelUnits independent units (dies, channels, target threads); and a host link
// shared by all transfers. Because the controller cost is per command and the media and
// link costs are per byte, merging small requests into large commands raises throughput
// until the link or the media bandwidth binds — the effect source 002 measures.
type SSDParams struct {
	Name string // reported by the device's Name method

	// ParallelUnits is the number of media units that serve chunks concurrently, in
	// [1, 65536].
	ParallelUnits int
	// ControllerOverhead is the controller time per command (ns, in [0, MaxCommandTime]); commands pass
	// the controller one at a time, so 1/ControllerOverhead is the command-rate cap.
	ControllerOverhead sim.Time
	// ReadLatency and WriteLatency are the media access times per chunk (ns, in [0, MaxCommandTime]), before
	// the chunk's transfer at the unit's share of InternalBytesPerSec.
	ReadLatency, WriteLatency sim.Time
	// ChunkBytes is the striping unit: a command of n bytes is split into
	// ceil(n / ChunkBytes) chunks, each served by the earliest free unit (bytes,
	// >= 512, one sector).
	ChunkBytes int64
	// InternalBytesPerSec is the media bandwidth of all units together (bytes/s, >= 1);
	// one unit transfers at InternalBytesPerSec / ParallelUnits.
	InternalBytesPerSec float64
	// LinkBytesPerSec is the host link bandwidth (bytes/s, >= 1), one transfer at a time:
	// reads cross it after the media, writes before.
	LinkBytesPerSec float64
	// MaxQueue is the number of commands the device holds; above it Submit answers
	// Busy. 0 means unlimited.
	MaxQueue int
}

// ExampleSSDParams is an illustrative fast storage target (a RAM-backed remote target
// behind a ~2.4 GB/s link): 7 µs of controller time per command, 64 parallel units,
// 10 µs media latency, 128 KiB chunks, 8 GB/s inside, 2.41 GB/s link, no queue limit.
// It is not a data sheet: the controller time and the link are the values
// bench.SRP002Params calibrates on source 002's own tables, and the rest are
// assumptions (see there). Use it as a starting point and set your device's figures.
func ExampleSSDParams() SSDParams {
	return SSDParams{
		Name:                "example-ssd",
		ParallelUnits:       64,
		ControllerOverhead:  7 * sim.Microsecond,
		ReadLatency:         10 * sim.Microsecond,
		WriteLatency:        10 * sim.Microsecond,
		ChunkBytes:          128 << 10,
		InternalBytesPerSec: 8e9,
		LinkBytesPerSec:     2.41e9,
	}
}

// maxSSDUnits bounds ParallelUnits (one free time each): far above any real drive's
// dies or a target's threads, and small enough that NewSSD's memory is bounded.
const maxSSDUnits = 1 << 16

// Validate checks the parameters and returns an error naming the first bad field
// and its allowed range.
func (p SSDParams) Validate() error {
	bad := func(field string, v any, rng string) error {
		return fmt.Errorf("device: ssd %q: %s %v out of range %s", p.Name, field, v, rng)
	}
	switch {
	case p.ParallelUnits < 1 || p.ParallelUnits > maxSSDUnits:
		return bad("ParallelUnits", p.ParallelUnits, fmt.Sprintf("[1, %d]", maxSSDUnits))
	case p.ControllerOverhead < 0 || p.ControllerOverhead > MaxCommandTime:
		return bad("ControllerOverhead", p.ControllerOverhead, fmt.Sprintf("[0, %v]", MaxCommandTime))
	case p.ReadLatency < 0 || p.ReadLatency > MaxCommandTime:
		return bad("ReadLatency", p.ReadLatency, fmt.Sprintf("[0, %v]", MaxCommandTime))
	case p.WriteLatency < 0 || p.WriteLatency > MaxCommandTime:
		return bad("WriteLatency", p.WriteLatency, fmt.Sprintf("[0, %v]", MaxCommandTime))
	case p.ChunkBytes < 512:
		return bad("ChunkBytes", p.ChunkBytes, "[512, inf)")
	case !(p.InternalBytesPerSec >= minBytesPerSec) || math.IsInf(p.InternalBytesPerSec, 0):
		return bad("InternalBytesPerSec", p.InternalBytesPerSec, "[1, inf)")
	case !(p.LinkBytesPerSec >= minBytesPerSec) || math.IsInf(p.LinkBytesPerSec, 0):
		return bad("LinkBytesPerSec", p.LinkBytesPerSec, "[1, inf)")
	case p.MaxQueue < 0:
		return bad("MaxQueue", p.MaxQueue, "[0 (unlimited), inf)")
	}
	return nil
}

// SSD is a parallel-unit device with a serial controller and link. See SSDParams.
// Resources are reserved when a command is accepted (each stage serves commands in
// acceptance order), so completions may come out of order.
type SSD struct {
	p          SSDParams
	eng        *sim.Engine
	ctrlFree   sim.Time
	linkFree   sim.Time
	unitFree   []sim.Time
	units      []int32 // unit indices as a min-heap on (unitFree, index)
	nsPerBUnit float64
	nsPerBLink float64
	inFlight   int
	events     pool[ssdDone]
}

type ssdDone struct {
	d   *SSD
	cmd *Command
}

func (e *ssdDone) Fire(now sim.Time) {
	d, cmd := e.d, e.cmd
	d.events.put(e)
	d.inFlight--
	cmd.Done.Complete(cmd, now)
}

// NewSSD builds an SSD on eng. It returns Validate's error for bad parameters.
func NewSSD(eng *sim.Engine, p SSDParams) (*SSD, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkEngine("ssd", p.Name, eng); err != nil {
		return nil, err
	}
	units := make([]int32, p.ParallelUnits)
	for i := range units {
		units[i] = int32(i) // all free at 0: index order is a valid heap
	}
	return &SSD{
		p:          p,
		eng:        eng,
		units:      units,
		unitFree:   make([]sim.Time, p.ParallelUnits),
		nsPerBUnit: 1e9 * float64(p.ParallelUnits) / p.InternalBytesPerSec,
		nsPerBLink: 1e9 / p.LinkBytesPerSec,
	}, nil
}

// Name returns SSDParams.Name.
func (d *SSD) Name() string { return d.p.Name }

// InFlight returns the accepted, not yet completed commands.
func (d *SSD) InFlight() int { return d.inFlight }

// Params returns the device's parameters.
func (d *SSD) Params() SSDParams { return d.p }

// Submit accepts cmd unless MaxQueue commands are held (Busy) and schedules its
// completion: controller, then (write) link and media, or (read) media and link.
func (d *SSD) Submit(cmd *Command) Status {
	checkCommand(d.p.Name, cmd)
	if d.p.MaxQueue > 0 && d.inFlight >= d.p.MaxQueue {
		return Busy
	}
	now := d.eng.Now()
	cmd.Submitted = now
	d.inFlight++
	t := addTime(max(now, d.ctrlFree), d.p.ControllerOverhead)
	d.ctrlFree = t
	if cmd.Op == OpWrite {
		t = d.media(d.link(t, cmd.Length), cmd.Length, d.p.WriteLatency)
	} else {
		t = d.link(d.media(t, cmd.Length, d.p.ReadLatency), cmd.Length)
	}
	ev := d.events.get()
	ev.d, ev.cmd = d, cmd
	d.eng.At(t, ev)
	return Accepted
}

// link reserves the host link for n bytes from t and returns the transfer's end.
func (d *SSD) link(t sim.Time, n int64) sim.Time {
	start := max(t, d.linkFree)
	d.linkFree = addTime(start, xferTime(n, d.nsPerBLink))
	return d.linkFree
}

// Each stage's time saturates at sim.MaxTime: a very slow device completes at the
// end of the clock rather than wrapping to a negative time.

// media splits n bytes into chunks, gives each to the earliest free unit from t (the
// lowest-numbered one among equals), and returns the end of the last chunk. The
// units are a heap, so a command costs O(chunks × log ParallelUnits).
func (d *SSD) media(t sim.Time, n int64, lat sim.Time) sim.Time {
	end := t
	for n > 0 {
		c := min(n, d.p.ChunkBytes)
		n -= c
		u := d.units[0]
		fin := addTime(addTime(max(t, d.unitFree[u]), lat), xferTime(c, d.nsPerBUnit))
		d.unitFree[u] = fin
		d.siftDown()
		end = max(end, fin)
	}
	return end
}

// unitLess orders units by free time, then index.
func (d *SSD) unitLess(a, b int32) bool {
	fa, fb := d.unitFree[a], d.unitFree[b]
	return fa < fb || fa == fb && a < b
}

// siftDown restores the heap after the root unit's free time grew.
func (d *SSD) siftDown() {
	h := d.units
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && d.unitLess(h[r], h[l]) {
			m = r
		}
		if !d.unitLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
