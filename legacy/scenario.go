package legacy

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// StreamConfig is one run of a streaming writeback, optionally beside a
// postmark-like workload, on one disk behind one legacy queue.
type StreamConfig struct {
	Queue     Config
	Disk      device.HDDParams
	Writeback WritebackParams
	// Postmark, when non-nil, runs beside the writer.
	Postmark *PostmarkParams
	// Warmup is discarded before measuring; Duration is measured (ns, > 0).
	Warmup, Duration sim.Time
}

// StreamResult are the figures of one StreamConfig run.
type StreamResult struct {
	// StreamMBps is the writeback throughput (10^6 bytes/s of completed bios).
	StreamMBps float64
	// PostmarkTPS is postmark transactions per second (0 without postmark).
	PostmarkTPS float64
	// PostmarkIOLatency is the mean submit-to-completion time (ns) of postmark's
	// I/Os (0 without postmark).
	PostmarkIOLatency sim.Time
	// Stats are the queue's counters over the measured interval.
	Stats Stats
}

// RunStream builds the disk and the queue on a fresh engine, starts the
// workloads, discards Warmup and measures Duration. Errors name the bad field.
func RunStream(c StreamConfig) (StreamResult, error) {
	if c.Duration <= 0 || c.Warmup < 0 {
		return StreamResult{}, fmt.Errorf("legacy: Duration %v / Warmup %v out of range (0, inf) / [0, inf)", c.Duration, c.Warmup)
	}
	eng := sim.NewEngine()
	disk, err := device.NewHDD(eng, c.Disk)
	if err != nil {
		return StreamResult{}, err
	}
	q, err := New(eng, disk, c.Queue)
	if err != nil {
		return StreamResult{}, err
	}
	w, err := NewWriteback(q, c.Writeback)
	if err != nil {
		return StreamResult{}, err
	}
	var pm *Postmark
	if c.Postmark != nil {
		if pm, err = NewPostmark(q, *c.Postmark); err != nil {
			return StreamResult{}, err
		}
		pm.Start()
	}
	w.Start()
	eng.RunUntil(c.Warmup)
	q.ResetStats()
	b0 := w.Bytes
	var t0, n0 uint64
	var l0 sim.Time
	if pm != nil {
		t0, n0, l0 = pm.Txns, pm.IOs, pm.LatencyNs
	}
	eng.RunUntil(c.Warmup + c.Duration)
	r := StreamResult{Stats: q.Stats()}
	secs := c.Duration.Seconds()
	r.StreamMBps = float64(w.Bytes-b0) / 1e6 / secs
	if pm != nil {
		r.PostmarkTPS = float64(pm.Txns-t0) / secs
		if n := pm.IOs - n0; n > 0 {
			r.PostmarkIOLatency = (pm.LatencyNs - l0) / sim.Time(n)
		}
	}
	return r, nil
}
