package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// logLine is one parsed log entry: time ms, value, direction, block size, then
// offset (log_offset=1) and priority as written.
type logLine struct {
	t, v, dir, bs int64
	rest          []string
}

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	var out []logLine
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(l, ", ")
		if len(f) < 5 {
			t.Fatalf("%s: line %q: want at least 5 comma-separated fields (fio 3.33 flush_samples)", path, l)
		}
		var n [4]int64
		for i := range n {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("%s: line %q: field %d: %v", path, l, i+1, err)
			}
			n[i] = v
		}
		out = append(out, logLine{n[0], n[1], n[2], n[3], f[4:]})
	}
	return out
}

// runLogged runs job in a fresh directory (the logs land in the current
// directory, as fio writes them) and returns the fio JSON.
func runLogged(t *testing.T, dir, job string) fio.Output {
	t.Helper()
	o, _ := runLoggedOut(t, dir, job)
	return o
}

// runLoggedOut is runLogged returning the command's output too.
func runLoggedOut(t *testing.T, dir, job string) (fio.Output, string) {
	t.Helper()
	t.Chdir(dir)
	path := writeJob(t, dir, "job", job)
	out, err := run("run", path, "--output-format", "json", "--device", "null_blk irqmode=2 completion_nsec=100000")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	var o fio.Output
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &o); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	return o, out
}

// TestWriteLogsAveraged: rate_iops=1000 with log_avg_msec=1000 logs about 1000 per
// line in the IOPS log and 4000 KiB/s in the bandwidth log, one line a second, as
// fio's periodic samples; the latency logs hold each second's mean (ns), block size
// and offset 0 as fio's averaged entries; log_prio=1 writes the priority in hex.
func TestWriteLogsAveraged(t *testing.T) {
	dir := t.TempDir()
	o := runLogged(t, dir, "[a]\nioengine=libaio\nrw=randread\niodepth=4\nrate_iops=1000\ntime_based\nruntime=3\n"+
		"write_iops_log=a\nwrite_bw_log=a\nwrite_lat_log=a\nlog_avg_msec=1000\nlog_offset=1\nlog_prio=1\n")
	for _, c := range []struct {
		typ  string
		want float64
	}{{"iops", 1000}, {"bw", 4000}} {
		lines := readLog(t, filepath.Join(dir, "a_"+c.typ+".1.log"))
		if len(lines) != 3 {
			t.Fatalf("%s log: %d lines, want 3 (one per second of 3)", c.typ, len(lines))
		}
		for i, l := range lines {
			if l.t != int64(i+1)*1000 || math.Abs(float64(l.v)-c.want) > c.want/100 || l.dir != 0 || l.bs != 0 {
				t.Errorf("%s log line %d: %+v, want time %d, value %g ± 1%%, read, bs 0", c.typ, i+1, l, (i+1)*1000, c.want)
			}
			if len(l.rest) != 2 || l.rest[0] != "0" || l.rest[1] != "0x0000" {
				t.Errorf("%s log line %d: offset and prio %q, want 0 and 0x0000", c.typ, i+1, l.rest)
			}
		}
	}
	clat := readLog(t, filepath.Join(dir, "a_clat.1.log"))
	slat := readLog(t, filepath.Join(dir, "a_slat.1.log"))
	lat := readLog(t, filepath.Join(dir, "a_lat.1.log"))
	if len(clat) != 3 || len(slat) != 3 || len(lat) != 3 {
		t.Fatalf("latency logs: %d, %d, %d lines, want 3 each", len(clat), len(slat), len(lat))
	}
	var sum float64
	for i := range clat {
		if d := lat[i].v - slat[i].v - clat[i].v; d < -1 || d > 1 {
			t.Errorf("second %d: lat %d != slat %d + clat %d (± rounding)", i+1, lat[i].v, slat[i].v, clat[i].v)
		}
		sum += float64(clat[i].v)
	}
	if mean := o.Jobs[0].Read.Clat.Mean; math.Abs(sum/3-mean) > mean/100 {
		t.Errorf("clat log mean %g, JSON clat mean %g", sum/3, mean)
	}
}

// TestWriteLogsPerIO: without log_avg_msec every completed I/O is one line: the
// IOPS log has total_ios lines of value 1, the clat log's values average to the
// JSON clat mean, times lie in the runtime, offsets (log_offset=1) are the I/Os'
// block-aligned offsets; write_iops_log without a value is named after the job.
// Nothing is logged during ramp_time and times count from its end, as fio's. As
// fio does (account_io_completion's per-unit calls), the JSON iops_* samples are
// then per I/O too: total_ios samples of 1; no warning says otherwise.
func TestWriteLogsPerIO(t *testing.T) {
	dir := t.TempDir()
	o, out := runLoggedOut(t, dir, "[r]\nioengine=libaio\nrw=randread\niodepth=4\nramp_time=20ms\ntime_based\nruntime=50ms\nwrite_iops_log\nwrite_lat_log=l\nlog_offset=1\n")
	if strings.Contains(out, "log_avg_msec=0") {
		t.Errorf("a warning about log_avg_msec=0 remains, but the JSON samples are per I/O as fio's:\n%s", out)
	}
	n := o.Jobs[0].Read.TotalIOs
	if r := o.Jobs[0].Read; r.IOPSSamples != n || r.IOPSMin != 1 || r.IOPSMax != 1 || r.IOPSMean != 1 {
		t.Errorf("JSON iops samples %d (min %d, max %d, mean %g), want per I/O: %d samples of 1", r.IOPSSamples, r.IOPSMin, r.IOPSMax, r.IOPSMean, n)
	}
	iops := readLog(t, filepath.Join(dir, "r_iops.1.log"))
	clat := readLog(t, filepath.Join(dir, "l_clat.1.log"))
	if int64(len(iops)) != n || int64(len(clat)) != n {
		t.Fatalf("%d IOPS and %d clat lines, want total_ios %d each", len(iops), len(clat), n)
	}
	var sum float64
	last := int64(0)
	for i, l := range iops {
		off, _ := strconv.ParseInt(l.rest[0], 10, 64)
		if l.v != 1 || l.bs != 4096 || l.t < last || l.t > 50 || off%4096 != 0 || l.rest[1] != "0" {
			t.Fatalf("IOPS line %d: %+v, want value 1, bs 4096, time in [%d, 50], aligned offset, prio 0", i+1, l, last)
		}
		last = l.t
		sum += float64(clat[i].v)
	}
	if mean := o.Jobs[0].Read.Clat.Mean; math.Abs(sum/float64(n)-mean) > 1e-6*mean {
		t.Errorf("clat log mean %g, JSON clat mean %g: the log holds the same latencies", sum/float64(n), mean)
	}
}

// TestWriteLogsShared: per_job_logs=0 gives one file per kind for the clones,
// without the job number, each appending (fio opens it with "a": a second run
// doubles it); log_max_value=1 logs each window's maximum, so one window over the
// whole run logs the JSON clat max.
func TestWriteLogsShared(t *testing.T) {
	dir := t.TempDir()
	job := "[w]\nioengine=libaio\nrw=write\niodepth=2\ntime_based\nruntime=20ms\nnumjobs=2\nwrite_lat_log=s\nper_job_logs=0\n"
	o := runLogged(t, dir, job)
	total := o.Jobs[0].Write.TotalIOs + o.Jobs[1].Write.TotalIOs
	if got := int64(len(readLog(t, filepath.Join(dir, "s_clat.log")))); got != total {
		t.Errorf("shared clat log: %d lines, want both clones' %d", got, total)
	}
	runLogged(t, dir, job)
	if got := int64(len(readLog(t, filepath.Join(dir, "s_clat.log")))); got != 2*total {
		t.Errorf("after a second run: %d lines, want %d (appended, as fio's per_job_logs=0)", got, 2*total)
	}
	dir2 := t.TempDir()
	o = runLogged(t, dir2, "[m]\nioengine=libaio\nrw=randread\niodepth=4\ntime_based\nruntime=200ms\nwrite_lat_log=m\nlog_avg_msec=1000\nlog_max_value=1\n")
	lines := readLog(t, filepath.Join(dir2, "m_clat.1.log"))
	if len(lines) != 1 || lines[0].v != o.Jobs[0].Read.Clat.Max || lines[0].t != 200 {
		t.Errorf("max log %+v, want one line at 200 ms with the JSON clat max %d", lines, o.Jobs[0].Read.Clat.Max)
	}
}
