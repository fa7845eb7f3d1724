package fio

import (
	"bufio"
	"fmt"
	"io"
)

// WriteTerse writes fio's terse output, version 3 (--minimal; stat.c
// show_thread_status_terse_all, the field list in fio's HOWTO "Terse output"):
// one semicolon-separated line per job entry: version, fio version, job name,
// group, error; per direction (read, write) KiB, KiB/s, IOPS, runtime ms, slat,
// clat (min, max, mean, stddev in µs), 20 clat percentiles as "P%=µs", lat, and
// the bandwidth samples (KiB/s min, max, share of the group %, mean, stddev);
// CPU (zero: not modelled); the IO depth distribution (depths, when given, in
// the input results' order as for OutputOptions.Depths); the latency
// distribution in µs and ms buckets. fio prints disk statistics on a separate
// line; the model has none to print.
func (r *Report) WriteTerse(w io.Writer, depths []*DepthStats) error {
	bw := bufio.NewWriter(w)
	us := func(ns float64) float64 { return ns / 1000 }
	for i, e := range r.Jobs {
		fmt.Fprintf(bw, "3;%s;%s;%d;0", DefaultFioVersion, e.Name, e.GroupID)
		for _, d := range []Dir{DirRead, DirWrite} {
			s := &e.Dirs[d]
			fmt.Fprintf(bw, ";%d;%d;%d;%d", s.IOBytes>>10, s.BWKiB(), int64(s.IOPS), s.Runtime.Milliseconds())
			for _, l := range []*LatStats{&s.Slat, &s.Clat} {
				fmt.Fprintf(bw, ";%d;%d;%f;%f", l.Min/1000, l.Max/1000, us(l.Mean), us(l.Stddev))
				if l != &s.Clat {
					continue
				}
				for k := range 20 {
					if k < len(l.Percentiles) {
						fmt.Fprintf(bw, ";%f%%=%d", l.Percentiles[k].Percent, l.Percentiles[k].Value/1000)
					} else {
						bw.WriteString(";0%=0")
					}
				}
			}
			fmt.Fprintf(bw, ";%d;%d;%f;%f", s.Lat.Min/1000, s.Lat.Max/1000, us(s.Lat.Mean), us(s.Lat.Stddev))
			b := &s.BWSamples
			fmt.Fprintf(bw, ";%d;%d;%f%%;%f;%f", b.Min, b.Max, r.bwAggPercent(e, d), b.Mean, b.Stddev)
		}
		bw.WriteString(";0.000000%;0.000000%;0;0;0")
		var ds DepthStats
		if depths != nil && i < len(r.Sources) {
			for _, k := range r.Sources[i] {
				if k < len(depths) && depths[k] != nil {
					ds.Add(depths[k])
				}
			}
		}
		for _, v := range dist(ds.Level[:], ds.totalLevel) {
			fmt.Fprintf(bw, ";%3.1f%%", v)
		}
		total := e.Dirs[DirRead].TotalIOs + e.Dirs[DirWrite].TotalIOs + e.Dirs[DirTrim].TotalIOs
		for _, v := range dist(e.Latency.Us[:], total) {
			fmt.Fprintf(bw, ";%3.1f%%", v)
		}
		for _, v := range dist(e.Latency.Ms[:], total) {
			fmt.Fprintf(bw, ";%3.1f%%", v)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
