package stack

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// steadyState is fio's steadystate= (ss=) check (steadystate.c): once per
// second after ss_ramp, the IOPS and bandwidth (bytes/s) of the last second are
// stored in rings of ss_dur entries, as fio's steadystate_check does; once the
// ring is full the job ends as soon as the criterion holds: every sample within
// the limit of the samples' mean (steadystate_deviation: max |x − mean|, in
// percent of the mean with N%), or the least-squares slope of the samples within
// the limit (steadystate_slope: |slope|, in percent of the mean with N%). The
// rings, head and tail move as fio's do, so the JSON "steadystate" object
// (fio.SteadyStateResult) lists the samples in fio's order.
type steadyState struct {
	cfg        fio.SteadyState
	n          int // samples in the window (ss_dur in seconds)
	next       sim.Time
	ios, bytes int64 // completed so far
	lastIOs    int64
	lastBytes  int64
	// fio's steadystate_data: the rings, head and tail, whether the ring was
	// full once, and the last criterion, deviation and slope computed
	iops, bw   []uint64
	head, tail int
	full       bool
	attained   bool
	criterion  float64
	deviation  float64
	slope      float64
}

const ssInterval = sim.Second // fio's steadystate_check period (the helper thread's second)

func (ss *steadyState) init(s *fio.Spec, start sim.Time) {
	ss.cfg = s.SteadyState
	ss.n = int(s.SteadyState.Dur / 1e9)
	ss.next = start + sim.Time(s.SteadyState.Ramp) + ssInterval
	ss.iops = make([]uint64, max(ss.n, 0))
	ss.bw = make([]uint64, max(ss.n, 0))
	ss.head, ss.tail, ss.full, ss.attained = 0, 0, false, false
}

// completed counts one reaped I/O and returns why the job is steady ("" if
// not yet).
func (ss *steadyState) completed(n int64, now sim.Time) string {
	if !ss.cfg.Set || ss.n < 2 || ss.attained {
		return ""
	}
	ss.ios++
	ss.bytes += n
	for now >= ss.next {
		// one second's IOPS and bytes/s: 1000 × delta / 1000 ms
		iops, bw := uint64(ss.ios-ss.lastIOs), uint64(ss.bytes-ss.lastBytes)
		ss.lastIOs, ss.lastBytes = ss.ios, ss.bytes
		ss.next += ssInterval
		if ss.add(iops, bw) {
			return ss.why(now)
		}
	}
	return ""
}

// add stores one sample and evaluates the criterion once the ring is full
// (steadystate_slope / steadystate_deviation); it reports whether it holds.
func (ss *steadyState) add(iops, bw uint64) bool {
	ss.iops[ss.tail], ss.bw[ss.tail] = iops, bw
	if ss.full || ss.tail-ss.head == ss.n-1 {
		ss.full = true
		data := ss.iops
		if ss.cfg.BW {
			data = ss.bw
		}
		var sum float64
		for _, v := range data {
			sum += float64(v)
		}
		mean := sum / float64(ss.n)
		if ss.cfg.Slope {
			// x = 0 … n−1 from the oldest sample (head)
			n := float64(ss.n)
			var sx, sxx, sxy float64
			for i := range ss.n {
				x := float64(i)
				sx, sxx = sx+x, sxx+x*x
				sxy += x * float64(data[(ss.head+i)%ss.n])
			}
			ss.slope = (sxy - sx*sum/n) / (sxx - sx*sx/n)
			ss.criterion = ss.slope
		} else {
			ss.deviation = 0
			for _, v := range data {
				ss.deviation = math.Max(ss.deviation, math.Abs(float64(v)-mean))
			}
			ss.criterion = ss.deviation
		}
		if ss.cfg.Percent {
			ss.criterion = 100 * ss.criterion / mean
		}
		if math.Abs(ss.criterion) < ss.cfg.Limit {
			ss.attained = true
			return true
		}
	}
	ss.tail = (ss.tail + 1) % ss.n
	if ss.tail <= ss.head {
		ss.head = (ss.head + 1) % ss.n
	}
	return false
}

func (ss *steadyState) why(now sim.Time) string {
	what := "deviation"
	if ss.cfg.Slope {
		what = "slope"
	}
	unit, kind := "IOPS", "iops"
	if ss.cfg.BW {
		unit, kind = "B/s", "bw"
	}
	if ss.cfg.Percent {
		unit = "% of the mean"
	}
	r := ss.result()
	mean := float64(r.IOPSMean)
	if ss.cfg.BW {
		mean = float64(r.BWMean)
	}
	return fmt.Sprintf("steady state reached at %v (ss=%s: %s %.4g %s < %g over the last %d s, mean %.4g)",
		now, kind, what, math.Abs(ss.criterion), unit, ss.cfg.Limit, ss.n, mean)
}

// result is the state as fio's JSON "steadystate" object holds it (stat.c
// show_thread_status_json): the rings from the oldest sample, their integer
// means over ss_dur, the last criterion. nil when ss= is not set.
func (ss *steadyState) result() *fio.SteadyStateResult {
	if !ss.cfg.Set || ss.n < 2 {
		return nil
	}
	r := &fio.SteadyStateResult{Config: ss.cfg, Attained: ss.attained, Criterion: ss.criterion,
		MaxDeviation: ss.deviation, Slope: ss.slope}
	j := ss.head
	if !ss.attained && ss.full {
		j = (ss.head + ss.n - 1) % ss.n
	}
	var sumI, sumB uint64
	for l := range ss.n {
		k := (j + l) % ss.n
		r.IOPS = append(r.IOPS, ss.iops[k])
		r.BW = append(r.BW, ss.bw[k])
		sumI += ss.iops[k]
		sumB += ss.bw[k]
	}
	r.IOPSMean, r.BWMean = sumI/uint64(ss.n), sumB/uint64(ss.n)
	return r
}
