package fio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteText writes a short fio-like text summary (fio's normal output,
// stat.c show_thread_status_normal and show_group_stats): per job entry its
// IOPS, bandwidth, slat/clat/lat summaries and clat percentiles, then one
// "Run status group" block per group. Numbers use fio's compact notation
// (num2str: at most 4 digits, k/M/G or KiB/MiB/GiB prefixes).
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, res := range r.Jobs {
		writeJobText(bw, res)
	}
	for _, g := range r.Groups {
		writeGroupText(bw, g)
	}
	return bw.Flush()
}

func writeJobText(w *bufio.Writer, r *Result) {
	fmt.Fprintf(w, "%s: (groupid=%d, jobs=%d): err= 0: pid=0\n", r.Name, r.GroupID, r.Jobs)
	for i := range r.Dirs {
		d := &r.Dirs[i]
		if d.TotalIOs == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s: IOPS=%s, BW=%s (%s)(%s/%dmsec)\n", Dir(i),
			num2str(uint64(d.IOPS+0.5), 1000, ""),
			num2str(uint64(d.BW), 1024, "B/s"), num2str(uint64(d.BW), 1000, "B/s"),
			num2str(uint64(d.IOBytes), 1024, "B"), d.Runtime.Milliseconds())
		writeLatText(w, "slat", &d.Slat)
		writeLatText(w, "clat", &d.Clat)
		writeLatText(w, " lat", &d.Lat)
		writePercentilesText(w, "clat", &d.Clat)
		writePercentilesText(w, "slat", &d.Slat)
		writePercentilesText(w, " lat", &d.Lat)
	}
}

// latUnit picks the unit fio would print a latency in: nsec, usec or msec,
// by the size of its minimum.
func latUnit(min int64) (string, float64) {
	switch {
	case min >= 10*int64(time.Millisecond):
		return "msec", 1e6
	case min >= 10*int64(time.Microsecond):
		return "usec", 1e3
	}
	return "nsec", 1
}

func writeLatText(w *bufio.Writer, name string, l *LatStats) {
	if l.N == 0 {
		return
	}
	unit, div := latUnit(l.Min)
	fmt.Fprintf(w, "    %s (%s): min=%s, max=%s, avg=%.2f, stdev=%.2f\n", name, unit,
		num2str(uint64(float64(l.Min)/div), 1000, ""), num2str(uint64(float64(l.Max)/div), 1000, ""),
		l.Mean/div, l.Stddev/div)
}

func writePercentilesText(w *bufio.Writer, name string, l *LatStats) {
	if len(l.Percentiles) == 0 {
		return
	}
	unit, div := latUnit(l.Percentiles[0].Value)
	fmt.Fprintf(w, "    %s percentiles (%s):\n", strings.TrimSpace(name), unit)
	for i, p := range l.Percentiles {
		if i%4 == 0 {
			w.WriteString("     |")
		}
		fmt.Fprintf(w, " %5.2fth=[%5d]", p.Percent, int64(float64(p.Value)/div+0.5))
		switch {
		case i == len(l.Percentiles)-1:
			w.WriteString("\n")
		case i%4 == 3:
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
			num2str(uint64(d.AggBW), 1024, "B/s"), num2str(uint64(d.AggBW), 1000, "B/s"),
			num2str(uint64(d.MinBW), 1024, "B/s"), num2str(uint64(d.MaxBW), 1024, "B/s"),
			num2str(uint64(d.MinBW), 1000, "B/s"), num2str(uint64(d.MaxBW), 1000, "B/s"),
			num2str(uint64(d.IOBytes), 1024, "B"), num2str(uint64(d.IOBytes), 1000, "B"),
			d.MinRuntime.Milliseconds(), d.MaxRuntime.Milliseconds())
	}
}

// num2str formats n the way fio's num2str (lib/num2str.c) does with four
// digits: divide by base until at most four digits remain, then show as
// many decimals as fit in four digits. base 1024 uses Ki, Mi, ... prefixes;
// base 1000 uses k, M, ... . unit is appended after the prefix ("B/s").
func num2str(n uint64, base uint64, unit string) string {
	const maxDigits = 4
	prefixes := []string{"", "k", "M", "G", "T", "P", "E"}
	if base == 1024 {
		prefixes = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	}
	post, rem, divided := 0, uint64(0), false
	for len(strconv.FormatUint(n, 10)) > maxDigits && post < len(prefixes)-1 {
		rem = n % base
		n /= base
		post++
		divided = true
	}
	s := strconv.FormatUint(n, 10)
	if decimals := maxDigits - len(s) - 1; divided && decimals > 0 {
		scale := uint64(1)
		for range decimals {
			scale *= 10
		}
		frac := rem * scale / base
		s += "." + fmt.Sprintf("%0*d", decimals, frac)
	}
	return s + prefixes[post] + unit
}
