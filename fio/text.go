package fio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText writes a short fio-like text summary (fio's normal output,
// stat.c show_thread_status_normal and show_group_stats): per job entry its
// IOPS, bandwidth, slat/clat/lat summaries and clat percentiles, then one
// "Run status group" block per group. Numbers use fio's compact notation
// (num2str: at most 4 digits, k/M/G or Ki/Mi/Gi prefixes).
func (r *Report) WriteText(w io.Writer) error { return r.WriteTextWith(w, TextOptions{}) }

// TextOptions adds what fio's normal output shows beyond the results.
type TextOptions struct {
	// Specs, when set, are the run's job instances: the text starts with
	// fio's job header lines ("a: (g=0): rw=randread, bs=(R) 4096B-4096B,
	// ..., ioengine=libaio, iodepth=16", "..." for further clones), the
	// version and "Starting N processes", and each entry gets its "issued
	// rwts" and "latency" lines.
	Specs []Spec
	// Depths, when set, are the depth distributions of the input results
	// (as OutputOptions.Depths): each entry gets fio's "IO depths",
	// "submit" and "complete" lines.
	Depths []*DepthStats
	// SteadyState, when set, holds the steadystate= state of the input
	// results (as OutputOptions.SteadyState): a job with ss= gets fio's
	// "steadystate  :" line.
	SteadyState []*SteadyStateResult
	// DiskUtil, when set, is written as fio's "Disk stats (read/write):" block
	// after the run status groups (diskutil.go).
	DiskUtil []DiskUtil
}

// WriteTextWith is WriteText with o's additions.
func (r *Report) WriteTextWith(w io.Writer, o TextOptions) error {
	bw := bufio.NewWriter(w)
	if len(o.Specs) > 0 {
		writeHeaders(bw, o.Specs)
	}
	for i, res := range r.Jobs {
		r.writeJobText(bw, res)
		if o.Depths != nil && i < len(r.Sources) {
			var d DepthStats
			for _, k := range r.Sources[i] {
				if k < len(o.Depths) && o.Depths[k] != nil {
					d.Add(o.Depths[k])
				}
			}
			writeDepthText(bw, &d)
		}
		if len(o.Specs) > 0 && i < len(r.Sources) && len(r.Sources[i]) > 0 && r.Sources[i][0] < len(o.Specs) {
			fmt.Fprintf(bw, "     issued rwts: total=%d,%d,%d,0 short=0,0,0,0 dropped=0,0,0,0\n",
				res.Dirs[DirRead].TotalIOs, res.Dirs[DirWrite].TotalIOs, res.Dirs[DirTrim].TotalIOs)
			fmt.Fprintf(bw, "     latency   : target=0, window=0, percentile=100.00%%, depth=%d\n", o.Specs[r.Sources[i][0]].EffectiveIODepth)
		}
		if i < len(r.Sources) {
			var ss *SteadyStateResult
			for _, k := range r.Sources[i] {
				if k < len(o.SteadyState) && o.SteadyState[k] != nil {
					ss = o.SteadyState[k]
				}
			}
			if ss != nil {
				writeSteadyStateText(bw, ss)
			}
		}
	}
	for _, g := range r.Groups {
		writeGroupText(bw, g)
	}
	writeDiskUtilText(bw, o.DiskUtil)
	return bw.Flush()
}

func (rep *Report) writeJobText(w *bufio.Writer, r *Result) {
	fmt.Fprintf(w, "%s: (groupid=%d, jobs=%d): err= 0: pid=0\n", r.Name, r.GroupID, r.Jobs)
	for i := range r.Dirs {
		d := &r.Dirs[i]
		if d.TotalIOs == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s: IOPS=%s, BW=%s (%s)(%s/%dmsec)\n", Dir(i),
			num2str(uint64(d.IOPS), 4, 1000, ""),
			num2str(uint64(d.BW), 4, 1024, "B/s"), num2str(uint64(d.BW), 4, 1000, "B/s"),
			num2str(uint64(d.IOBytes), 4, 1024, "B"), d.Runtime.Milliseconds())
		writeLatText(w, "slat", &d.Slat)
		writeLatText(w, "clat", &d.Clat)
		writeLatText(w, " lat", &d.Lat)
		writePercentilesText(w, "slat", &d.Slat)
		writePercentilesText(w, "clat", &d.Clat)
		writePercentilesText(w, "lat", &d.Lat)
		writeSamplesText(w, &d.BWSamples, &d.IOPSSamples, rep.bwAggPercent(r, Dir(i)))
	}
	writeLatencyDistText(w, &r.Latency, r.Dirs[DirRead].TotalIOs+r.Dirs[DirWrite].TotalIOs+r.Dirs[DirTrim].TotalIOs)
}

// writeSamplesText prints fio's "bw (KiB/s)" and "iops" interval lines
// (stat.c, show_ddir_status), switching bandwidth to MiB/s above 1 GiB/s.
func writeSamplesText(w *bufio.Writer, bw, iops *SampleStats, per float64) {
	if bw.N > 0 {
		unit, div := "KiB", 1.0
		if bw.Mean > 1024*1024 {
			unit, div = "MiB", 1024
		}
		fmt.Fprintf(w, "   bw (%5s/s): min=%5d, max=%5d, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, samples=%d\n",
			unit, int64(float64(bw.Min)/div), int64(float64(bw.Max)/div), per, bw.Mean/div, bw.Stddev/div, bw.N)
	}
	if iops.N > 0 {
		fmt.Fprintf(w, "   iops        : min=%5d, max=%5d, avg=%5.02f, stdev=%5.02f, samples=%d\n",
			iops.Min, iops.Max, iops.Mean, iops.Stddev, iops.N)
	}
}

// latScale picks the unit fio prints a latency summary in (stat.h,
// nsec_to_msec / nsec_to_usec): msec when min > 2 ms, max > 100 ms and
// stdev > 1 ms; else usec when min > 2 us, max > 100 us and stdev > 1 us;
// else nsec.
func latScale(l *LatStats) (string, int64) {
	switch {
	case l.Min > 2_000_000 && l.Max > 99_999_999 && l.Stddev > 1e6:
		return "msec", 1_000_000
	case l.Min > 2000 && l.Max > 99_999 && l.Stddev > 1000:
		return "usec", 1000
	}
	return "nsec", 1
}

func writeLatText(w *bufio.Writer, name string, l *LatStats) {
	if l.N == 0 {
		return
	}
	unit, div := latScale(l)
	fmt.Fprintf(w, "    %s (%s): min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, unit,
		num2str(uint64(l.Min/div), 6, 1000, ""), num2str(uint64(l.Max/div), 6, 1000, ""),
		l.Mean/float64(div), l.Stddev/float64(div))
}

// writePercentilesText prints the percentiles as fio's show_clat_percentiles
// (stat.c) does: msec when the smallest value is over 2 ms and the largest
// over 100 ms, usec for over 2 us and 100 us, else nsec; values rounded up
// in the unit; four per line.
func writePercentilesText(w *bufio.Writer, name string, l *LatStats) {
	if len(l.Percentiles) == 0 {
		return
	}
	lo, hi := l.Percentiles[0].Value, l.Percentiles[0].Value
	for _, p := range l.Percentiles {
		lo, hi = min(lo, p.Value), max(hi, p.Value)
	}
	unit, div := "nsec", int64(1)
	switch {
	case lo > 2_000_000 && hi > 99_999_999:
		unit, div = "msec", 1_000_000
	case lo > 2000 && hi > 99_999:
		unit, div = "usec", 1000
	}
	width := max(5, len(strconv.FormatInt(hi/div, 10)))
	perLine := (80 - 7) / (2 + 10 + width)
	fmt.Fprintf(w, "    %s percentiles (%s):\n", strings.TrimSpace(name), unit)
	for i, p := range l.Percentiles {
		if i%perLine == 0 {
			w.WriteString("     |")
		}
		fmt.Fprintf(w, " %5.2fth=[%*d]", p.Percent, width, (p.Value+div-1)/div)
		switch {
		case i == len(l.Percentiles)-1:
			w.WriteString("\n")
		case i%perLine == perLine-1:
			w.WriteString(",\n")
		default:
			w.WriteString(",")
		}
	}
}

func writeGroupText(w *bufio.Writer, g *GroupStatus) {
	fmt.Fprintf(w, "\nRun status group %d (all jobs):\n", g.GroupID)
	for i := range g.Dirs {
		d := &g.Dirs[i]
		if d.MaxRuntime == 0 {
			continue
		}
		fmt.Fprintf(w, "  %5s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%d-%dmsec\n",
			strings.ToUpper(Dir(i).String()),
			num2str(uint64(d.AggBW), 4, 1024, "B/s"), num2str(uint64(d.AggBW), 4, 1000, "B/s"),
			num2str(uint64(d.MinBW), 4, 1024, "B/s"), num2str(uint64(d.MaxBW), 4, 1024, "B/s"),
			num2str(uint64(d.MinBW), 4, 1000, "B/s"), num2str(uint64(d.MaxBW), 4, 1000, "B/s"),
			num2str(uint64(d.IOBytes), 4, 1024, "B"), num2str(uint64(d.IOBytes), 4, 1000, "B"),
			d.MinRuntime.Milliseconds(), d.MaxRuntime.Milliseconds())
	}
}

// num2str formats n the way fio's num2str (lib/num2str.c) does: divide by
// base (1000 or 1024) until at most maxDigits digits remain; if there is room
// for two or more characters more, show the remainder as decimals, else
// round the last division. Base 1024 uses Ki, Mi, ... prefixes; base 1000
// k, M, ... . unit is appended after the prefix ("B/s").
func num2str(n uint64, maxDigits int, base uint64, unit string) string {
	prefixes := []string{"", "k", "M", "G", "T", "P"}
	if base == 1024 {
		prefixes = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi"}
	}
	post, rem, divided := 0, uint64(0), false
	for len(strconv.FormatUint(n, 10)) > maxDigits && post < len(prefixes)-1 {
		rem = n % base
		n /= base
		post++
		divided = true
	}
	s := strconv.FormatUint(n, 10)
	if divided {
		room := maxDigits - len(s)
		if room <= 1 {
			if rem >= base/2 {
				n++
			}
			s = strconv.FormatUint(n, 10)
		} else {
			frac := strconv.FormatFloat(float64(rem)/float64(base), 'f', room-1, 64)
			s += "." + frac[2:]
		}
	}
	return s + prefixes[post] + unit
}

// writeHeaders prints fio's job lines before the run (init.c, add_job: one per
// job section, "..." for its further clones), its version and the process count.
func writeHeaders(w *bufio.Writer, specs []Spec) {
	bs := func(n int64) string { return num2str(uint64(n), 4, 1024, "B") }
	for i := range specs {
		s := &specs[i]
		switch {
		case s.Index == 0:
			r, wr := s.MinBlockSize(DirRead), s.MinBlockSize(DirWrite)
			rmax, wmax := s.BlockSizeFor(DirRead), s.BlockSizeFor(DirWrite)
			if m := s.MaxBlockSizeAll(); s.BSRangeMax > 0 || len(s.BSSplit) > 0 {
				rmax, wmax = m, m
			}
			fmt.Fprintf(w, "%s: (g=%d): rw=%s, bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, ioengine=%s, iodepth=%d\n",
				// trim: handle_option gives off3 the last value given (bs=4k,8k is
				// trim 8k), the write one unless a third is given, which the
				// parser does not keep (no pattern trims)
				s.Name, s.GroupID, s.RW, bs(r), bs(rmax), bs(wr), bs(wmax), bs(wr), bs(wmax), s.IOEngine, s.IODepth)
		case s.Index == 1:
			w.WriteString("...\n")
		}
	}
	fmt.Fprintf(w, "%s\n", DefaultFioVersion)
	proc := "processes"
	if len(specs) == 1 {
		proc = "process"
	}
	fmt.Fprintf(w, "Starting %d %s\n\n", len(specs), proc)
}

// writeDepthText prints fio's "IO depths", "submit" and "complete" lines
// (stat.c show_thread_status_normal).
func writeDepthText(w *bufio.Writer, d *DepthStats) {
	level, submit, complete := d.jsonMaps()
	line := func(m map[string]float64, keys []string) string {
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%3.1f%%", k, m[k]))
		}
		return strings.Join(parts, ", ")
	}
	batch := []string{"0", "4", "8", "16", "32", "64", ">=64"}
	fmt.Fprintf(w, "  cpu          : usr=0.00%%, sys=0.00%%, ctx=0, majf=0, minf=0\n")
	fmt.Fprintf(w, "  IO depths    : %s\n", line(level, []string{"1", "2", "4", "8", "16", "32", ">=64"}))
	fmt.Fprintf(w, "     submit    : %s\n", line(submit, batch))
	fmt.Fprintf(w, "     complete  : %s\n", line(complete, batch))
}

// writeSteadyStateText prints fio's steadystate line (stat.c show_ss_normal):
// attained, the samples' mean bandwidth and IOPS, and the last criterion.
func writeSteadyStateText(w *bufio.Writer, ss *SteadyStateResult) {
	attained, kind, what, pct := "no", "bw", " mean dev", ""
	if ss.Attained {
		attained = "yes"
	}
	if !ss.Config.BW {
		kind = "iops"
	}
	if ss.Config.Slope {
		what = " slope"
	}
	if ss.Config.Percent {
		pct = "%"
	}
	fmt.Fprintf(w, "  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n", attained,
		num2str(ss.BWMean, 4, 1024, "B/s"), num2str(ss.BWMean, 4, 1000, "B/s"), num2str(ss.IOPSMean, 4, 1000, ""),
		kind, what, cFloat(ss.Criterion), pct)
}
