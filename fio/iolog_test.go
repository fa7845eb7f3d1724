package fio

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// logOf runs completions through a JobLogs of s and returns the text of log typ.
func logOf(t *testing.T, s Spec, typ string, samples []LogSample, end int64) string {
	t.Helper()
	s.fixup()
	bufs := map[string]*bytes.Buffer{}
	jl, err := NewJobLogs(&s, func(ty string) (io.Writer, error) {
		bufs[ty] = &bytes.Buffer{}
		return bufs[ty], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	jl.SetWindow(0, end)
	for _, x := range samples {
		jl.Record(x)
	}
	if err := jl.Close(end); err != nil {
		t.Fatal(err)
	}
	return bufs[typ].String()
}

// everyMs returns one 4 KiB read completing every ms (at k ms + 0.5 ms) for n ms,
// with clat k µs.
func everyMs(n int) []LogSample {
	var out []LogSample
	for k := range n {
		out = append(out, LogSample{Dir: DirRead, Clat: int64(k+1) * 1000, Bytes: 4096, CompleteNs: int64(k)*1e6 + 5e5})
	}
	return out
}

// TestJobLogsWindows: with log_avg_msec=100 the IOPS log writes the periodic
// 100 ms samples (iopsavgtime defaults to log_avg_msec), 1000 I/Os per second;
// with iopsavgtime=20 given, fio's add_job takes the smaller as the window: an
// entry every 20 ms. The clat log writes each window's mean rounded (the I/O at or
// past the window's end closes it and counts in it; the rest when the job ends),
// or with log_max_value its maximum; the file names follow per_job_logs.
func TestJobLogsWindows(t *testing.T) {
	s := DefaultSpec("j")
	s.Logs = LogOptions{IOPS: true, Lat: true, AvgMsec: 100, PerJob: true}
	if got, want := logOf(t, s, "iops", everyMs(300), 300e6), "100, 1000, 0, 0, 0\n200, 1000, 0, 0, 0\n300, 1000, 0, 0, 0\n"; got != want {
		t.Errorf("iops log:\n%s\nwant:\n%s", got, want)
	}
	fast := s
	fast.Logs.IOPSAvgTimeSet, fast.IOPSAvgTime = true, 20*time.Millisecond
	lines := strings.Split(strings.TrimSpace(logOf(t, fast, "iops", everyMs(300), 300e6)), "\n")
	if len(lines) != 15 || lines[0] != "20, 1000, 0, 0, 0" || lines[14] != "300, 1000, 0, 0, 0" {
		t.Errorf("iopsavgtime=20: %d lines %q … %q, want 15 from 20 ms to 300 ms, 1000 each", len(lines), lines[0], lines[len(lines)-1])
	}
	// the I/Os of ms 0 … 100 (clat 1 … 101 µs) make the first window, closed by
	// the one at 100 ms: mean 51 µs
	clat := strings.Split(strings.TrimSpace(logOf(t, s, "clat", everyMs(300), 300e6)), "\n")
	if diff := cmp.Diff([]string{"100, 51000, 0, 0, 0", "200, 151500, 0, 0, 0", "300, 251000, 0, 0, 0"}, clat); diff != "" {
		t.Errorf("clat log (-want +got):\n%s", diff)
	}
	s.Logs.MaxValue = true
	clat = strings.Split(strings.TrimSpace(logOf(t, s, "clat", everyMs(300), 300e6)), "\n")
	if clat[0] != "100, 101000, 0, 0, 0" {
		t.Errorf("log_max_value: first window %q, want its maximum 101000 (the I/O that closed it counts)", clat[0])
	}
	if got := LogFileName(&s, "clat", 3); got != "j_clat.3.log" {
		t.Errorf("name %q", got)
	}
	s.Logs.PerJob, s.Logs.LatPrefix = false, "x"
	if got := LogFileName(&s, "slat", 3); got != "x_slat.log" {
		t.Errorf("per_job_logs=0 name %q", got)
	}
	if got := LogFileName(&s, "bw", 1); got != "" {
		t.Errorf("no bw log asked for, name %q", got)
	}
}
