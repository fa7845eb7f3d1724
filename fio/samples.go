package fio

import "math"

// SampleStats summarises a job's interval samples of bandwidth (KiB/s) or
// IOPS, as fio's bw_stat and iops_stat: one sample per bwavgtime (or
// iopsavgtime) interval of the measurement window in which the job
// completed I/O in that direction (fio stat.c, __add_samples, skips empty
// intervals), each the truncated integer rate over the interval.
type SampleStats struct {
	N            int64 // samples
	Min, Max     int64
	Mean, Stddev float64 // Stddev: sample standard deviation (N-1)

	m2 float64
}

func (s *SampleStats) add(v int64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if v > s.Max {
		s.Max = v
	}
	s.N++
	d := float64(v) - s.Mean
	s.Mean += d / float64(s.N)
	s.m2 += d * (float64(v) - s.Mean)
}

// sum adds o to s the way fio's sum_stat does with pure_sum for group
// reporting: a group's bandwidth is the sum of its jobs', so min, max,
// mean, the squared-deviation sum and the sample count all add up.
func (s *SampleStats) sum(o *SampleStats) {
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		*s = *o
		return
	}
	s.Min += o.Min
	s.Max += o.Max
	s.N += o.N
	s.Mean += o.Mean
	s.m2 += o.m2
}

func (s *SampleStats) finish() {
	s.Stddev = 0
	if s.N > 1 {
		s.Stddev = math.Sqrt(s.m2 / float64(s.N-1))
	}
}

// intervalSampler accumulates one direction's bytes or I/Os over fixed
// intervals of the window and emits one sample per non-empty interval.
type intervalSampler struct {
	every int64 // interval length, ns (>= 1 ms)
	cur   int64 // index of the interval being accumulated
	acc   int64 // bytes or I/Os in it
}

// add accounts v (bytes or 1 I/O) completed at t, emitting the previous
// interval into out when t falls in a later one. perKiB selects KiB/s
// (bandwidth) over units/s (IOPS). Completions are expected in time order;
// one that is earlier than the current interval counts in it.
func (s *intervalSampler) add(t, start, v int64, perKiB bool, out *SampleStats) {
	if k := (t - start) / s.every; k > s.cur {
		s.flush(perKiB, out)
		s.cur = k
	}
	s.acc += v
}

// flush emits the current interval's rate, if it had any I/O, as fio does:
// delta * 1000 / spent_ms (/ 1024 for KiB/s), truncated.
func (s *intervalSampler) flush(perKiB bool, out *SampleStats) {
	if s.acc == 0 {
		return
	}
	ms := max(s.every/1e6, 1)
	rate := s.acc * 1000 / ms
	if perKiB {
		rate /= 1024
	}
	out.add(rate)
	s.acc = 0
}

// finish emits the current interval if it ends within the window.
func (s *intervalSampler) finish(start, end int64, perKiB bool, out *SampleStats) {
	if start+(s.cur+1)*s.every <= end {
		s.flush(perKiB, out)
	}
}
