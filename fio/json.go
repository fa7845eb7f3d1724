package fio

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
)

// DefaultFioVersion is the "fio version" written when OutputOptions leaves
// it empty: the fio release whose JSON layout Output follows.
const DefaultFioVersion = "fio-3.33"

// Output is fio's JSON output (--output-format=json or json+), as written
// by fio 3.33 (stat.c, show_thread_status_json). It unmarshals real fio
// output too. Fields this package does not compute are kept when
// unmarshalled: CPU use (usr_cpu, sys_cpu, ctx, majf, minf) is written as
// zero, depth distributions (iodepth_*) and disk_util only when set.
// Units are fio's: ms for runtime and job_runtime, s for elapsed, ns for
// *_ns, KiB/s for bw, bytes/s for bw_bytes. iops, bw and bw_bytes are
// computed from the ns window (fio divides by its ms runtime), so they can
// differ from fio's formula by at most one part in the runtime in ms.
type Output struct {
	FioVersion    string            `json:"fio version"`
	Timestamp     int64             `json:"timestamp"`
	TimestampMs   int64             `json:"timestamp_ms"`
	Time          string            `json:"time"`
	GlobalOptions map[string]string `json:"global options,omitempty"`
	Jobs          []JobOutput       `json:"jobs"`
	DiskUtil      []json.RawMessage `json:"disk_util,omitempty"`
	// Blkmq is what the model adds to fio's layout (fio's own tools ignore
	// unknown keys): the run's warnings, e.g. options accepted but not
	// modelled.
	Blkmq *BlkmqOutput `json:"blkmq,omitempty"`
}

// BlkmqOutput is the "blkmq" object of Output.
type BlkmqOutput struct {
	// Warnings are the run's warning lines, as printed on stderr.
	Warnings []string `json:"warnings,omitempty"`
	// Notes are the run's note lines (fio's own remarks on values it adjusts, and
	// the model's on what it runs differently), as printed on stderr.
	Notes []string `json:"notes,omitempty"`
	// Stopped maps a job instance ("name.index") to why it stopped early.
	Stopped map[string]string `json:"stopped,omitempty"`
}

// JobOutput is one entry of Output.Jobs: a job, or a group with
// group_reporting.
type JobOutput struct {
	JobName    string            `json:"jobname"`
	GroupID    int               `json:"groupid"`
	Error      int               `json:"error"`
	Eta        int               `json:"eta"`
	Elapsed    int64             `json:"elapsed"` // s
	JobOptions map[string]string `json:"job options,omitempty"`
	Read       DirOutput         `json:"read"`
	Write      DirOutput         `json:"write"`
	Trim       DirOutput         `json:"trim"`
	Sync       *SyncOutput       `json:"sync,omitempty"`
	JobRuntime int64             `json:"job_runtime"` // ms
	UsrCPU     float64           `json:"usr_cpu"`
	SysCPU     float64           `json:"sys_cpu"`
	Ctx        int64             `json:"ctx"`
	Majf       int64             `json:"majf"`
	Minf       int64             `json:"minf"`

	IODepthLevel    map[string]float64 `json:"iodepth_level,omitempty"`
	IODepthSubmit   map[string]float64 `json:"iodepth_submit,omitempty"`
	IODepthComplete map[string]float64 `json:"iodepth_complete,omitempty"`
	LatencyNs       map[string]float64 `json:"latency_ns,omitempty"`
	LatencyUs       map[string]float64 `json:"latency_us,omitempty"`
	LatencyMs       map[string]float64 `json:"latency_ms,omitempty"`

	// SteadyState is fio's "steadystate" object, written for a job with ss=.
	SteadyState *SteadyStateOutput `json:"steadystate,omitempty"`

	LatencyDepth      int     `json:"latency_depth,omitempty"`
	LatencyTarget     int64   `json:"latency_target,omitempty"`
	LatencyPercentile float64 `json:"latency_percentile,omitempty"`
	LatencyWindow     int64   `json:"latency_window,omitempty"`
}

// SyncOutput is fio's "sync" object (fsync statistics; never computed here).
type SyncOutput struct {
	TotalIOs int64     `json:"total_ios"`
	Lat      LatOutput `json:"lat_ns"`
}

// DirOutput is fio's per-direction object ("read", "write", "trim").
type DirOutput struct {
	IOBytes  int64     `json:"io_bytes"`
	IOKBytes int64     `json:"io_kbytes"`
	BWBytes  int64     `json:"bw_bytes"` // bytes/s
	BW       int64     `json:"bw"`       // KiB/s
	IOPS     float64   `json:"iops"`
	Runtime  int64     `json:"runtime"` // ms
	TotalIOs int64     `json:"total_ios"`
	ShortIOs int64     `json:"short_ios"`
	DropIOs  int64     `json:"drop_ios"`
	Slat     LatOutput `json:"slat_ns"`
	Clat     LatOutput `json:"clat_ns"`
	Lat      LatOutput `json:"lat_ns"`

	// Interval bandwidth (KiB/s) and IOPS samples over bwavgtime /
	// iopsavgtime windows (see SampleStats), or per I/O under write_bw_log /
	// write_iops_log with log_avg_msec=0 as fio takes them (Collector); bw_agg
	// is the percentage of the group's aggregate bandwidth.
	BWMin       int64   `json:"bw_min"`
	BWMax       int64   `json:"bw_max"`
	BWAgg       float64 `json:"bw_agg"`
	BWMean      float64 `json:"bw_mean"`
	BWDev       float64 `json:"bw_dev"`
	BWSamples   int64   `json:"bw_samples"`
	IOPSMin     int64   `json:"iops_min"`
	IOPSMax     int64   `json:"iops_max"`
	IOPSMean    float64 `json:"iops_mean"`
	IOPSStddev  float64 `json:"iops_stddev"`
	IOPSSamples int64   `json:"iops_samples"`
}

// LatOutput is fio's latency object (slat_ns, clat_ns, lat_ns), in ns.
type LatOutput struct {
	Min        int64     `json:"min"`
	Max        int64     `json:"max"`
	Mean       float64   `json:"mean"`
	Stddev     float64   `json:"stddev"`
	N          int64     `json:"N"`
	Percentile KeyedInts `json:"percentile,omitempty"` // "99.000000" -> ns
	Bins       KeyedInts `json:"bins,omitempty"`       // json+: "<ns>" -> count
}

// KeyedInts is a JSON object of numeric-string keys to integers (fio's
// percentile and bins objects). It marshals with keys in numeric order, as
// fio writes them.
type KeyedInts map[string]int64

// MarshalJSON writes the object with keys sorted by numeric value.
func (m KeyedInts) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	num := func(k string) float64 {
		f, err := strconv.ParseFloat(k, 64)
		if err != nil {
			return math.Inf(1)
		}
		return f
	}
	slices.SortFunc(keys, func(a, b string) int {
		if fa, fb := num(a), num(b); fa != fb {
			if fa < fb {
				return -1
			}
			return 1
		}
		if a < b {
			return -1
		}
		if a > b {
			return 1
		}
		return 0
	})
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(m[k], 10))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// OutputOptions controls Report.Output.
type OutputOptions struct {
	// Plus selects json+: clat_ns (and, when their percentiles are on,
	// slat_ns and lat_ns) carry "bins".
	Plus bool
	// FioVersion is written as "fio version"; "" = DefaultFioVersion.
	FioVersion string
	// Time is the run's start, written as timestamp, timestamp_ms and time;
	// the zero Time writes the Unix epoch, keeping output deterministic.
	Time time.Time
	// GlobalOptions is written as "global options"; nil = the global
	// options of the first job entry (Result.Options). The parser keeps a
	// job's global options apart (Spec.GlobalOptions): pass
	// GlobalOptionMap(specs).
	GlobalOptions map[string]string
	// Blkmq, when not nil, is written under the "blkmq" key.
	Blkmq *BlkmqOutput
	// Depths, when not nil, holds the depth distributions of the input
	// results (same order as NewReport's input), written as iodepth_level,
	// iodepth_submit and iodepth_complete (summed over a group_reporting
	// entry).
	Depths []*DepthStats
	// SteadyState, when not nil, holds the steadystate= state of the input
	// results (same order as NewReport's input; nil entries for jobs without
	// ss=), written as the "steadystate" object; a group_reporting entry
	// takes its last job's, as fio keeps the group's in its last job.
	SteadyState []*SteadyStateResult
	// DiskUtil, when set, is written as the top-level "disk_util" (diskutil.go).
	DiskUtil []DiskUtil
}

// Output returns the report as fio's JSON structure.
func (r *Report) Output(o OutputOptions) *Output {
	t := o.Time
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	out := &Output{
		FioVersion:    o.FioVersion,
		Timestamp:     t.Unix(),
		TimestampMs:   t.UnixMilli(),
		Time:          t.UTC().Format("Mon Jan _2 15:04:05 2006"),
		GlobalOptions: o.GlobalOptions,
		Jobs:          make([]JobOutput, 0, len(r.Jobs)),
		Blkmq:         o.Blkmq,
		DiskUtil:      diskUtilJSON(o.DiskUtil),
	}
	if out.FioVersion == "" {
		out.FioVersion = DefaultFioVersion
	}
	if out.GlobalOptions == nil && len(r.Jobs) > 0 {
		out.GlobalOptions = optionMap(r.Jobs[0].Options, true)
	}
	for i, res := range r.Jobs {
		jo := r.jobOutput(res, o.Plus)
		// fio writes "sync" for every job; the model issues no fsync (see the
		// fsync= warning), so it is all zero
		jo.Sync = &SyncOutput{}
		if o.Depths != nil && i < len(r.Sources) {
			var d DepthStats
			for _, k := range r.Sources[i] {
				if k < len(o.Depths) && o.Depths[k] != nil {
					d.Add(o.Depths[k])
				}
			}
			jo.IODepthLevel, jo.IODepthSubmit, jo.IODepthComplete = d.jsonMaps()
		}
		if i < len(r.Sources) {
			for _, k := range r.Sources[i] {
				if k < len(o.SteadyState) && o.SteadyState[k] != nil {
					jo.SteadyState = o.SteadyState[k].output()
				}
			}
		}
		out.Jobs = append(out.Jobs, jo)
	}
	return out
}

// WriteJSON writes the report as indented fio JSON (json+ when o.Plus).
func (r *Report) WriteJSON(w io.Writer, o OutputOptions) error {
	// fio writes ">=64" as is: no HTML escaping
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.Output(o)); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func (rep *Report) jobOutput(r *Result, plus bool) JobOutput {
	total := r.Dirs[DirRead].TotalIOs + r.Dirs[DirWrite].TotalIOs + r.Dirs[DirTrim].TotalIOs
	return JobOutput{
		JobName:    r.Name,
		GroupID:    r.GroupID,
		JobOptions: optionMap(r.Options, false),
		Elapsed:    int64(math.Ceil(r.Window.Seconds())),
		Read:       dirOutput(&r.Dirs[DirRead], rep.bwAggPercent(r, DirRead), plus),
		Write:      dirOutput(&r.Dirs[DirWrite], rep.bwAggPercent(r, DirWrite), plus),
		Trim:       dirOutput(&r.Dirs[DirTrim], rep.bwAggPercent(r, DirTrim), plus),
		JobRuntime: r.Window.Milliseconds(),
		LatencyNs:  percents(r.Latency.Ns[:], total),
		LatencyUs:  percents(r.Latency.Us[:], total),
		LatencyMs:  percents(r.Latency.Ms[:], total),
	}
}

func dirOutput(d *DirStats, bwAgg float64, plus bool) DirOutput {
	return DirOutput{
		IOBytes:  d.IOBytes,
		IOKBytes: d.IOBytes >> 10,
		BWBytes:  int64(d.BW),
		BW:       d.BWKiB(),
		IOPS:     d.IOPS,
		Runtime:  d.Runtime.Milliseconds(),
		TotalIOs: d.TotalIOs,
		Slat:     latOutput(&d.Slat, plus),
		Clat:     latOutput(&d.Clat, plus),
		Lat:      latOutput(&d.Lat, plus),

		BWMin:       d.BWSamples.Min,
		BWMax:       d.BWSamples.Max,
		BWAgg:       bwAgg,
		BWMean:      d.BWSamples.Mean,
		BWDev:       d.BWSamples.Stddev,
		BWSamples:   d.BWSamples.N,
		IOPSMin:     d.IOPSSamples.Min,
		IOPSMax:     d.IOPSSamples.Max,
		IOPSMean:    d.IOPSSamples.Mean,
		IOPSStddev:  d.IOPSSamples.Stddev,
		IOPSSamples: d.IOPSSamples.N,
	}
}

func latOutput(l *LatStats, plus bool) LatOutput {
	o := LatOutput{Min: l.Min, Max: l.Max, Mean: l.Mean, Stddev: l.Stddev, N: l.N}
	if len(l.Percentiles) > 0 {
		o.Percentile = make(KeyedInts, len(l.Percentiles))
		for _, p := range l.Percentiles {
			o.Percentile[percentKey(p.Percent)] = p.Value
		}
		if plus {
			bins := l.Bins()
			o.Bins = make(KeyedInts, len(bins))
			for _, b := range bins {
				o.Bins[strconv.FormatInt(b.Value, 10)] = b.Count
			}
		}
	}
	return o
}

// optionMap returns the global (or the job's own) options as fio's JSON
// object of strings, a later setting replacing an earlier one; nil if none.
func optionMap(opts []Option, global bool) map[string]string {
	var m map[string]string
	for _, o := range opts {
		if o.Global != global {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[o.Key] = o.Value
	}
	return m
}
