package fio

import (
	"fmt"
	"math"
)

// SteadyStateResult is a job's steadystate= (ss=) state at its end, as fio 3.33
// keeps it (steadystate.c) and writes it in the JSON "steadystate" object
// (stat.c show_thread_status_json).
type SteadyStateResult struct {
	// Config is the job's ss= criterion.
	Config SteadyState
	// Attained reports that the criterion held (the job ended there).
	Attained bool
	// Criterion is the last value compared with the limit (percent of the
	// mean with N%); MaxDeviation the last max |sample − mean| (deviation
	// criteria; 0 for slope ones) and Slope the last least-squares slope
	// (slope criteria; 0 for deviation ones), in IOPS or bytes/s per second.
	Criterion, MaxDeviation, Slope float64
	// IOPS and BW are the ss_dur one-second samples (I/Os per second,
	// bytes/s) in fio's order; IOPSMean and BWMean their integer means over
	// ss_dur (samples not yet taken count as 0, as fio's).
	IOPS, BW         []uint64
	IOPSMean, BWMean uint64
}

// SteadyStateOutput is fio's JSON "steadystate" object of a job.
type SteadyStateOutput struct {
	SS           string          `json:"ss"`       // e.g. "iops_slope:0.500000%"
	Duration     int             `json:"duration"` // ss_dur, s
	Attained     int             `json:"attained"` // 0 or 1
	Criterion    string          `json:"criterion"`
	MaxDeviation float64         `json:"max_deviation"`
	Slope        float64         `json:"slope"`
	Data         SteadyStateData `json:"data"`
}

// SteadyStateData is the "data" object of SteadyStateOutput.
type SteadyStateData struct {
	BWMean   uint64   `json:"bw_mean"`   // bytes/s
	IOPSMean uint64   `json:"iops_mean"` // I/Os per second
	IOPS     []uint64 `json:"iops"`
	BW       []uint64 `json:"bw"`
}

// output is the JSON object, formatted as fio formats it ("%s%s:%f%s" for ss,
// the limit and criterion as C floats).
func (r *SteadyStateResult) output() *SteadyStateOutput {
	kind, slope, pct := "bw", "", ""
	if !r.Config.BW {
		kind = "iops"
	}
	if r.Config.Slope {
		slope = "_slope"
	}
	if r.Config.Percent {
		pct = "%"
	}
	attained := 0
	if r.Attained {
		attained = 1
	}
	f32 := func(v float64) float64 { return float64(float32(v)) }
	return &SteadyStateOutput{
		SS:           fmt.Sprintf("%s%s:%f%s", kind, slope, f32(r.Config.Limit), pct),
		Duration:     int(r.Config.Dur.Seconds()),
		Attained:     attained,
		Criterion:    fmt.Sprintf("%f%s", cFloat(f32(r.Criterion)), pct),
		MaxDeviation: jsonFloat(r.MaxDeviation),
		Slope:        jsonFloat(r.Slope),
		Data:         SteadyStateData{BWMean: r.BWMean, IOPSMean: r.IOPSMean, IOPS: nonNil(r.IOPS), BW: nonNil(r.BW)},
	}
}

// cFloat keeps a value printf's %f can write as C prints it ("inf", "nan" are
// written by Go as "+Inf", "NaN": fio would write "inf" / "nan"; they are
// written as 0 here so the string stays a number).
func cFloat(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return v
}

// jsonFloat is v, or 0 where JSON has no number (infinite, NaN).
func jsonFloat(v float64) float64 { return cFloat(v) }

func nonNil(v []uint64) []uint64 {
	if v == nil {
		return []uint64{}
	}
	return v
}
