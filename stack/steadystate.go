package stack

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// steadyState is fio's steadystate= (ss=) check (steadystate.c): once per
// second after ss_ramp, the IOPS and bandwidth of the last second are
// sampled; when ss_dur seconds of samples are held, the job ends as soon as
// the criterion holds: every sample within the limit of the samples' mean
// (steadystate_deviation: max |x − mean|, in percent of the mean with N%), or
// the least-squares slope of the samples within the limit
// (steadystate_slope: |slope|, in percent of the mean with N%).
type steadyState struct {
	cfg        fio.SteadyState
	n          int // samples in the window (ss_dur in seconds)
	next       sim.Time
	ios, bytes int64 // completed so far
	lastIOs    int64
	lastBytes  int64
	samples    []float64 // ring of the last n samples, oldest first
}

const ssInterval = sim.Second // fio's ss_check_interval default

func (ss *steadyState) init(s *fio.Spec, start sim.Time) {
	ss.cfg = s.SteadyState
	ss.n = int(s.SteadyState.Dur / 1e9)
	ss.next = start + sim.Time(s.SteadyState.Ramp) + ssInterval
	ss.samples = ss.samples[:0]
}

// completed counts one reaped I/O and returns why the job is steady ("" if
// not yet).
func (ss *steadyState) completed(n int64, now sim.Time) string {
	if !ss.cfg.Set || ss.n < 2 {
		return ""
	}
	ss.ios++
	ss.bytes += n
	for now >= ss.next {
		v := float64(ss.ios - ss.lastIOs)
		if ss.cfg.BW {
			v = float64(ss.bytes - ss.lastBytes)
		}
		ss.lastIOs, ss.lastBytes = ss.ios, ss.bytes
		if len(ss.samples) == ss.n {
			copy(ss.samples, ss.samples[1:])
			ss.samples = ss.samples[:ss.n-1]
		}
		ss.samples = append(ss.samples, v)
		ss.next += ssInterval
		if len(ss.samples) == ss.n {
			if why := ss.check(now); why != "" {
				return why
			}
		}
	}
	return ""
}

func (ss *steadyState) check(now sim.Time) string {
	n := float64(ss.n)
	sum := 0.0
	for _, v := range ss.samples {
		sum += v
	}
	mean := sum / n
	var crit float64
	what := "deviation"
	if ss.cfg.Slope {
		what = "slope"
		var sx, sxx, sxy float64
		for i, v := range ss.samples {
			x := float64(i)
			sx, sxx, sxy = sx+x, sxx+x*x, sxy+x*v
		}
		crit = (sxy - sx*sum/n) / (sxx - sx*sx/n)
	} else {
		for _, v := range ss.samples {
			crit = math.Max(crit, math.Abs(v-mean))
		}
	}
	unit := "IOPS"
	if ss.cfg.BW {
		unit = "B/s"
	}
	if ss.cfg.Percent {
		if mean == 0 {
			return ""
		}
		crit = 100 * crit / mean
		unit = "% of the mean"
	}
	if math.Abs(crit) < ss.cfg.Limit {
		kind := "iops"
		if ss.cfg.BW {
			kind = "bw"
		}
		return fmt.Sprintf("steady state reached at %v (ss=%s: %s %.4g %s < %g over the last %d s, mean %.4g)",
			now, kind, what, math.Abs(crit), unit, ss.cfg.Limit, ss.n, mean)
	}
	return ""
}
