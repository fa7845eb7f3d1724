package fio

import (
	"fmt"
	"math"
	"time"
)

// DirStats is the per-direction part of a result: fio's "read", "write" or
// "trim" object.
type DirStats struct {
	TotalIOs int64 // completed I/Os in the window
	IOBytes  int64 // bytes of those I/Os
	// Runtime is the measurement window when the direction did I/O, else 0
	// (fio's per-direction runtime); for a group, the longest of its jobs.
	Runtime time.Duration
	IOPS    float64 // TotalIOs per second of Runtime
	BW      float64 // bytes per second of Runtime (fio's bw_bytes)
	// Slat is submission latency, Clat completion latency, Lat their sum
	// (fio's slat_ns, clat_ns, lat_ns), all in ns.
	Slat, Clat, Lat LatStats
	// BWSamples (KiB/s) and IOPSSamples are the interval samples behind
	// fio's bw_min/bw_max/bw_mean/bw_dev and iops_* fields.
	BWSamples, IOPSSamples SampleStats
}

// BWKiB returns the bandwidth in KiB/s, truncated, as fio's JSON "bw".
func (d *DirStats) BWKiB() int64 { return int64(d.BW) / 1024 }

// add merges o into d: sums, longest runtime, merged latencies (fio stat.c,
// sum_thread_stats).
func (d *DirStats) add(o *DirStats) {
	d.TotalIOs += o.TotalIOs
	d.IOBytes += o.IOBytes
	d.Runtime = max(d.Runtime, o.Runtime)
	d.Slat.merge(&o.Slat)
	d.Clat.merge(&o.Clat)
	d.Lat.merge(&o.Lat)
	d.BWSamples.sum(&o.BWSamples)
	d.IOPSSamples.sum(&o.IOPSSamples)
}

// finish derives the rates and the latency summaries.
func (d *DirStats) finish(s *statsConfig) {
	d.IOPS, d.BW = 0, 0
	if d.Runtime > 0 {
		sec := d.Runtime.Seconds()
		d.IOPS = float64(d.TotalIOs) / sec
		d.BW = float64(d.IOBytes) / sec
	}
	d.Slat.finish(s.list(s.slat))
	d.Clat.finish(s.list(s.clat))
	d.Lat.finish(s.list(s.lat))
	d.BWSamples.finish()
	d.IOPSSamples.finish()
}

// statsConfig is which latencies get percentiles, and at which percents.
type statsConfig struct {
	clat, slat, lat bool
	percentiles     []float64
	histBits        int // histogram precision (DefaultHistogramBits)
}

// bitsIf returns the histogram precision for a latency whose percentiles
// are on, else 0 (no histogram).
func (s *statsConfig) bitsIf(on bool) int {
	if !on {
		return 0
	}
	return s.histBits
}

func (s *statsConfig) list(on bool) []float64 {
	if !on {
		return nil
	}
	return s.percentiles
}

// Result is the statistics of one job instance over its measurement window,
// or of a group of them merged (see [Report]).
type Result struct {
	Name    string // fio jobname
	GroupID int
	// Jobs is how many job instances the result covers (1 unless merged).
	Jobs int
	// GroupReporting is the job's group_reporting option.
	GroupReporting bool
	// Window is the measurement window length.
	Window time.Duration
	// Dirs holds the statistics per direction, indexed by Dir.
	Dirs [NrDirs]DirStats
	// Latency is the completion-latency distribution over all directions.
	Latency LatencyDist
	// Options are the job's options as written (Spec.Options), for the
	// JSON "global options" and "job options"; a merged result keeps its
	// first job's.
	Options []Option

	cfg statsConfig
}

// Read returns the statistics of the read direction (fio's "read").
func (r *Result) Read() *DirStats { return &r.Dirs[DirRead] }

// Write returns the statistics of the write direction (fio's "write").
func (r *Result) Write() *DirStats { return &r.Dirs[DirWrite] }

// Trim returns the statistics of the trim direction (always empty here).
func (r *Result) Trim() *DirStats { return &r.Dirs[DirTrim] }

// Total returns the sum over the directions of IOPS and of bandwidth
// (bytes/s).
func (r *Result) Total() (iops, bwBytes float64) {
	for i := range r.Dirs {
		iops += r.Dirs[i].IOPS
		bwBytes += r.Dirs[i].BW
	}
	return iops, bwBytes
}

// Collector gathers the completed I/Os of one job instance. Its memory does
// not depend on the number of I/Os: running moments plus, per direction,
// one histogram per latency whose percentiles are on, fio's log-linear
// histogram at DefaultHistogramBits unless NewCollectorBits says otherwise,
// whose bins are allocated a group (one power of two of values) at a time
// when a value first falls in it. With fio's defaults (clat percentiles
// only) a job holds at most 2 × 14.5 KiB of histogram, and typically a few
// KiB. A Collector is not safe for concurrent use; the simulator calls it
// from its single event loop.
type Collector struct {
	name           string
	groupID        int
	groupReporting bool
	options        []Option
	cfg            statsConfig
	start, end     int64 // record window [start, end), ns
	dirs           [NrDirs]DirStats
	bw, iops       [NrDirs]intervalSampler
	// perIOBW and perIOIOPS: write_bw_log / write_iops_log with log_avg_msec=0,
	// where fio takes the JSON bw / iops samples per completed I/O
	// (account_io_completion's per_unit_log calls) instead of per interval
	perIOBW, perIOIOPS bool
	lat                LatencyDist
	finished           bool
}

// NewCollector returns a collector for the job instance s, with an open
// record window [0, +inf); call SetWindow when the job's window is known.
func NewCollector(s *Spec) *Collector {
	c, _ := NewCollectorBits(s, DefaultHistogramBits)
	return c
}

// NewCollectorBits is NewCollector with a latency histogram of the given
// precision: each power of two of latencies is split into 2^bits bins
// (relative error of a reported percentile below 2^-(bits+1)). bits must be
// in [1, MaxHistogramBits]; fio's own is DefaultHistogramBits. A histogram
// holds up to (36−bits)·2^bits counters of 8 bytes, allocated as values
// reach them.
func NewCollectorBits(s *Spec, bits int) (*Collector, error) {
	if bits < 1 || bits > MaxHistogramBits {
		return nil, fmt.Errorf("fio: histogram bits %d out of range [1, %d]", bits, MaxHistogramBits)
	}
	c := &Collector{
		name:           s.Name,
		groupID:        s.GroupID,
		groupReporting: s.GroupReporting,
		options:        s.Options,
		cfg: statsConfig{clat: s.ClatPercentiles, slat: s.SlatPercentiles, lat: s.LatPercentiles,
			percentiles: cloneSlice(s.PercentileList), histBits: bits},
		end:       math.MaxInt64,
		perIOBW:   s.Logs.BW && s.Logs.AvgMsec == 0,
		perIOIOPS: s.Logs.IOPS && s.Logs.AvgMsec == 0,
	}
	for d := range NrDirs {
		c.bw[d].every = max(int64(s.BWAvgTime), int64(time.Millisecond))
		c.iops[d].every = max(int64(s.IOPSAvgTime), int64(time.Millisecond))
	}
	return c, nil
}

// SetWindow sets the record window to [start, end) in ns: an I/O counts iff
// it completes inside it. start is typically the job's start plus
// ramp_time; end its start plus ramp_time plus runtime (the drain after
// that is not measured), or math.MaxInt64 while unknown. Call it before the
// first Record: the bandwidth and IOPS sampling intervals start at start.
// It panics if end < start.
func (c *Collector) SetWindow(start, end int64) {
	if end < start {
		panic(fmt.Sprintf("fio: Collector.SetWindow: end %d before start %d", end, start))
	}
	c.start, c.end = start, end
}

// Record adds one completed I/O of dir: slatNs is its submission latency,
// clatNs its completion latency (lat is their sum), bytes its size,
// submitNs when fio created it and completeNs when it completed. An I/O that
// completes outside the record window is ignored. Completions must come in
// nondecreasing completeNs order (as a simulator's event loop delivers
// them) for the bandwidth and IOPS interval samples to be exact. Record
// panics on a
// negative latency or size, on completeNs < submitNs, on an unknown
// direction, or after Finish: these are caller bugs.
func (c *Collector) Record(dir Dir, slatNs, clatNs, bytes, submitNs, completeNs int64) {
	switch {
	case c.finished:
		panic("fio: Collector.Record after Finish")
	case dir >= NrDirs:
		panic(fmt.Sprintf("fio: Collector.Record: unknown direction %d", dir))
	case slatNs < 0 || clatNs < 0 || bytes < 0:
		panic(fmt.Sprintf("fio: Collector.Record: negative slat %d, clat %d or bytes %d", slatNs, clatNs, bytes))
	case completeNs < submitNs:
		panic(fmt.Sprintf("fio: Collector.Record: completion %d before submission %d", completeNs, submitNs))
	}
	if completeNs < c.start || completeNs >= c.end {
		return
	}
	d := &c.dirs[dir]
	d.TotalIOs++
	d.IOBytes += bytes
	d.Slat.add(slatNs, c.cfg.bitsIf(c.cfg.slat))
	d.Clat.add(clatNs, c.cfg.bitsIf(c.cfg.clat))
	d.Lat.add(slatNs+clatNs, c.cfg.bitsIf(c.cfg.lat))
	c.lat.add(clatNs)
	if c.perIOBW {
		d.BWSamples.add(perIOBandwidth(bytes, clatNs))
	} else {
		c.bw[dir].add(completeNs, c.start, bytes, true, &d.BWSamples)
	}
	if c.perIOIOPS {
		d.IOPSSamples.add(1) // add_iops_sample: one I/O
	} else {
		c.iops[dir].add(completeNs, c.start, 1, false, &d.IOPSSamples)
	}
}

// perIOBandwidth is fio's per-I/O bandwidth sample (stat.c add_bw_sample, called
// for every completion when write_bw_log has log_avg_msec=0): bytes × 10^6 over
// the I/O's completion latency in ns, truncated — bytes per ms, which fio keeps
// with the KiB/s interval samples as they are; 0 for a zero latency.
func perIOBandwidth(bytes, clatNs int64) int64 {
	if clatNs <= 0 {
		return 0
	}
	return bytes * 1_000_000 / clatNs
}

// Finish closes the collector and returns the job's result over the window
// [windowStart, windowEnd) in ns, whose length is the runtime the rates are
// divided by. Use the window given to SetWindow (or, for a job that ended
// before its runtime, its last completion as windowEnd). Finish panics if
// windowEnd < windowStart or if called twice.
func (c *Collector) Finish(windowStart, windowEnd int64) *Result {
	if c.finished {
		panic("fio: Collector.Finish called twice")
	}
	if windowEnd < windowStart {
		panic(fmt.Sprintf("fio: Collector.Finish: end %d before start %d", windowEnd, windowStart))
	}
	c.finished = true
	for d := range NrDirs {
		if !c.perIOBW {
			c.bw[d].finish(c.start, windowEnd, true, &c.dirs[d].BWSamples)
		}
		if !c.perIOIOPS {
			c.iops[d].finish(c.start, windowEnd, false, &c.dirs[d].IOPSSamples)
		}
	}
	r := &Result{Name: c.name, GroupID: c.groupID, Jobs: 1, GroupReporting: c.groupReporting,
		Window: time.Duration(windowEnd - windowStart), Dirs: c.dirs, Latency: c.lat, Options: c.options, cfg: c.cfg}
	for i := range r.Dirs {
		d := &r.Dirs[i]
		if d.TotalIOs > 0 {
			d.Runtime = r.Window
		}
		d.finish(&r.cfg)
	}
	return r
}

// Merge returns the results rs merged into one, as fio merges the jobs of a
// group (stat.c, sum_thread_stats): counts and bytes add up, runtime is the
// longest, latencies are pooled, rates are recomputed over the pooled
// counts and the longest runtime. Name, GroupID, GroupReporting and the
// percentile settings are the first result's. The inputs are not modified.
// Merge panics when rs is empty.
func Merge(rs ...*Result) *Result {
	if len(rs) == 0 {
		panic("fio: Merge of no results")
	}
	m := &Result{Name: rs[0].Name, GroupID: rs[0].GroupID, GroupReporting: rs[0].GroupReporting,
		Options: rs[0].Options, cfg: rs[0].cfg}
	for _, r := range rs {
		m.Jobs += r.Jobs
		m.Window = max(m.Window, r.Window)
		m.Latency.sum(&r.Latency)
		for i := range m.Dirs {
			m.Dirs[i].add(&r.Dirs[i])
		}
	}
	for i := range m.Dirs {
		m.Dirs[i].finish(&m.cfg)
	}
	return m
}
