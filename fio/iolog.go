package fio

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// The per-job logs of write_bw_log=, write_lat_log= and write_iops_log=, written
// as fio 3.33 writes them (init.c add_job names the files; stat.c
// add_log_sample, __add_samples and finalize_logs make the entries; iolog.c
// flush_samples writes them):
//
//   - files PREFIX_TYPE.N.log, TYPE one of bw, iops, lat, slat, clat, N the job's
//     number (1 …, every numjobs clone counting), PREFIX the option's value or the
//     job's name; with per_job_logs=0 PREFIX_TYPE.log, each job's entries appended
//     (as fio opens them with "a");
//   - one line per entry: "time, value, direction, block size, priority", with the
//     offset before the priority under log_offset=1; time is ms since the end of
//     ramp_time, direction 0 read / 1 write, the priority is the I/O's ioprio in
//     hex under log_prio=1, else 0/1 for "is real-time" (always 0 here: I/O
//     priorities are not modelled);
//   - the latency logs hold ns, the bandwidth log KiB/s, the IOPS log I/Os per
//     second;
//   - log_avg_msec=0: an entry per completed I/O (IOPS value 1, bandwidth the I/O's
//     bytes × 10^6 / its clat in ns, as add_bw_sample computes it); as in fio the
//     JSON bw_* (write_bw_log) and iops_* (write_iops_log) sample statistics are
//     then these per-I/O values too, not periodic samples (Collector);
//   - log_avg_msec=M: latencies are averaged (log_max_value=1: their maximum) over
//     windows of M ms, an entry (block size and offset 0) written by the first I/O
//     at or past the window's end, and the remainder when the job ends; bandwidth
//     and IOPS are fio's periodic samples every bwavgtime / iopsavgtime (which
//     default to M), the I/Os of each interval × 1000 / its ms, averaged the same
//     way over M, an interval without I/O in a direction writing nothing for it.
//
// Only completions inside the job's measurement window are logged, as fio logs
// nothing during ramp_time.

// LogTypes are the log types in the order fio creates them: write_lat_log's
// lat, slat and clat, then bw and iops.
var LogTypes = []string{"lat", "slat", "clat", "bw", "iops"}

// logMsecSlack is fio's LOG_MSEC_SLACK (stat.c, 1 ms off Windows): a periodic
// sample this close to its window's end closes the window.
const logMsecSlack = 1

// LogFileName returns the name fio gives log typ of job instance number num
// (1-based) of s (init.c gen_log_name, make_log_name): "" when s does not write
// that log.
func LogFileName(s *Spec, typ string, num int) string {
	l := &s.Logs
	var on bool
	var prefix string
	switch typ {
	case "lat", "slat", "clat":
		on, prefix = l.Lat, l.LatPrefix
	case "bw":
		on, prefix = l.BW, l.BWPrefix
	case "iops":
		on, prefix = l.IOPS, l.IOPSPrefix
	}
	if !on {
		return ""
	}
	if prefix == "" {
		prefix = s.Name
	}
	if l.PerJob {
		return prefix + "_" + typ + "." + strconv.Itoa(num) + ".log"
	}
	return prefix + "_" + typ + ".log"
}

// LogSample is one completed I/O as the logs see it (fio's io_u at
// account_io_completion): times and latencies in ns, Offset the byte offset in
// the job's file.
type LogSample struct {
	Dir           Dir
	Slat, Clat    int64
	Bytes, Offset int64
	CompleteNs    int64
	Prio          uint16
}

// JobLogs writes the logs of one job instance. Its memory does not depend on the
// run's length: entries go to the writers as they are made (buffered). Not safe
// for concurrent use.
type JobLogs struct {
	logs       []*jobLog // by LogTypes index; nil = not written
	start, end int64     // window [start, end), ns
	err        error
}

// jobLog is one log file's state.
type jobLog struct {
	typ    string
	w      *bufio.Writer
	offset bool // log_offset
	prio   bool // log_prio
	avg    int64
	max    bool
	// windowed averaging (add_log_sample): per direction the open window's
	// samples, mean and maximum, and the ms the window opened
	n       [NrDirs]int64
	mean    [NrDirs]float64
	maxV    [NrDirs]uint64
	avgLast [NrDirs]int64
	// periodic bandwidth / IOPS sampling (__add_samples): interval ms, the
	// interval's start (ms since the window start), the amounts so far and at
	// the last sample, and the block size logged (the direction's, when fixed)
	every          int64
	last           int64
	total, atLast  [NrDirs]int64
	bs             [NrDirs]int64
	periodic, isBW bool
}

// NewJobLogs returns the logs of job instance s: open is called with each file
// name LogFileName gives (in LogTypes order) and must return where to write it.
// It returns nil, nil when s writes no log.
func NewJobLogs(s *Spec, open func(typ string) (io.Writer, error)) (*JobLogs, error) {
	if !s.Logs.Any() {
		return nil, nil
	}
	jl := &JobLogs{logs: make([]*jobLog, len(LogTypes)), end: math.MaxInt64}
	for i, typ := range LogTypes {
		if LogFileName(s, typ, 1) == "" {
			continue
		}
		w, err := open(typ)
		if err != nil {
			return nil, err
		}
		l := &jobLog{typ: typ, w: bufio.NewWriterSize(w, 64<<10), offset: s.Logs.Offset, prio: s.Logs.Prio,
			avg: int64(s.Logs.AvgMsec), max: s.Logs.MaxValue}
		if (typ == "bw" || typ == "iops") && l.avg > 0 {
			l.periodic, l.isBW = true, typ == "bw"
			every, set := s.IOPSAvgTime, s.Logs.IOPSAvgTimeSet
			if l.isBW {
				every, set = s.BWAvgTime, s.Logs.BWAvgTimeSet
			}
			l.every = max(every.Milliseconds(), 1)
			if set {
				l.avg = min(l.avg, l.every)
			}
			for d := range NrDirs {
				if lo, hi := s.minMaxBS(Dir(d)); lo == hi {
					l.bs[d] = lo
				}
			}
		}
		jl.logs[i] = l
	}
	return jl, nil
}

// minMaxBS returns the smallest and largest block size of direction d.
func (s *Spec) minMaxBS(d Dir) (int64, int64) {
	bs := s.BlockSize
	if d == DirWrite && s.WriteBlockSize > 0 {
		bs = s.WriteBlockSize
	}
	lo, hi := bs, bs
	if s.BSRangeMin > 0 {
		lo, hi = s.BSRangeMin, s.BSRangeMax
	}
	for _, b := range s.BSSplit {
		lo, hi = min(lo, b.Size), max(hi, b.Size)
	}
	return lo, hi
}

// SetWindow sets the measurement window [start, end) in ns (as
// Collector.SetWindow): only completions inside it are logged, times are ms
// since start.
func (jl *JobLogs) SetWindow(start, end int64) {
	jl.start, jl.end = start, end
}

// Record logs one completed I/O. Samples must come in nondecreasing
// CompleteNs order.
func (jl *JobLogs) Record(s LogSample) {
	if s.CompleteNs < jl.start || s.CompleteNs >= jl.end || s.Dir >= NrDirs {
		return
	}
	t := (s.CompleteNs - jl.start) / int64(time.Millisecond)
	for i, l := range jl.logs {
		if l == nil {
			continue
		}
		if l.periodic {
			l.tick(jl, t)
			if l.isBW {
				l.total[s.Dir] += s.Bytes
			} else {
				l.total[s.Dir]++
			}
			continue
		}
		var v uint64
		switch LogTypes[i] {
		case "lat":
			v = uint64(s.Slat + s.Clat)
		case "slat":
			v = uint64(s.Slat)
		case "clat":
			v = uint64(s.Clat)
		case "bw":
			if s.Clat > 0 {
				v = uint64(s.Bytes) * 1_000_000 / uint64(s.Clat)
			}
		case "iops":
			v = 1
		}
		jl.add(l, s.Dir, v, s.Bytes, s.Offset, s.Prio, t)
	}
}

// tick takes the periodic samples due by t ms (fio's helper thread calling
// calc_log_samples every interval).
func (l *jobLog) tick(jl *JobLogs, t int64) {
	for t >= l.last+l.every {
		l.last += l.every
		l.sample(jl, l.every)
	}
}

// sample is __add_samples over an interval of spent ms ending at l.last.
func (l *jobLog) sample(jl *JobLogs, spent int64) {
	for d := range NrDirs {
		delta := l.total[d] - l.atLast[d]
		if delta == 0 {
			continue
		}
		var rate uint64
		if spent > 0 {
			rate = uint64(delta) * 1000 / uint64(spent)
			if l.isBW {
				rate /= 1024
			}
		}
		jl.add(l, Dir(d), rate, l.bs[d], 0, 0, l.last)
		l.atLast[d] = l.total[d]
	}
}

// add is fio's add_log_sample: the sample itself without averaging, else into
// the direction's window, which is written when it has lasted avg ms (a
// periodic sample within logMsecSlack of that closes it too).
func (jl *JobLogs) add(l *jobLog, d Dir, v uint64, bs, offset int64, prio uint16, t int64) {
	if l.avg == 0 {
		jl.line(l, t, v, d, bs, offset, prio)
		return
	}
	l.n[d]++
	l.mean[d] += (float64(v) - l.mean[d]) / float64(l.n[d])
	l.maxV[d] = max(l.maxV[d], v)
	if t < l.avgLast[d] {
		return
	}
	if w := t - l.avgLast[d]; w < l.avg {
		if diff := l.avg - w; !l.periodic || diff > logMsecSlack {
			return
		}
	}
	jl.flushWindow(l, d, t)
	l.avgLast[d] = t - t%l.avg
}

// flushWindow writes direction d's open window, if it holds samples, as one
// entry at t ms (__add_stat_to_log: the mean rounded, or the maximum).
func (jl *JobLogs) flushWindow(l *jobLog, d Dir, t int64) {
	if l.n[d] > 0 {
		v := uint64(l.mean[d] + 0.5)
		if l.max {
			v = l.maxV[d]
		}
		jl.line(l, t, v, d, 0, 0, 0)
	}
	l.n[d], l.mean[d], l.maxV[d] = 0, 0, 0
}

// line writes one entry in flush_samples' format.
func (jl *JobLogs) line(l *jobLog, t int64, v uint64, d Dir, bs, offset int64, prio uint16) {
	if jl.err != nil {
		return
	}
	b := make([]byte, 0, 64)
	b = strconv.AppendInt(b, t, 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, v, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, bs, 10)
	if l.offset {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, offset, 10)
	}
	if l.prio {
		b = fmt.Appendf(b, ", 0x%04x\n", prio)
	} else {
		b = append(b, ", 0\n"...)
	}
	if _, err := l.w.Write(b); err != nil {
		jl.err = err
	}
}

// Close ends the logs at endNs (the job's end: the window's end, or its last
// completion when it stopped early), writing each open averaging window as
// fio's finalize_logs does, and flushes the writers. It returns the first write
// error.
func (jl *JobLogs) Close(endNs int64) error {
	t := max(endNs-jl.start, 0) / int64(time.Millisecond)
	for _, l := range jl.logs {
		if l == nil {
			continue
		}
		if l.periodic {
			l.tick(jl, t)
		}
		if l.avg > 0 {
			for d := range NrDirs {
				jl.flushWindow(l, Dir(d), t)
			}
		}
		if err := l.w.Flush(); err != nil && jl.err == nil {
			jl.err = err
		}
	}
	return jl.err
}

// Err returns the first write error of the logs (Close returns it too).
func (jl *JobLogs) Err() error { return jl.err }
