package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/vg"
)

func TestSweepCSVDeterministic(t *testing.T) {
	dir := t.TempDir()
	var csvs []string
	for _, p := range []string{"1", "2"} {
		path := filepath.Join(dir, "p"+p+".csv")
		out, err := run(args("sweep", nullJob, nullDevice, "--runtime", "20ms", "--vary", "queue/nr_requests=4..16",
			"--vary", "tags=per-hctx,shared", "--parallel", p, "--csv", path)...)
		if err != nil {
			t.Fatalf("--parallel %s: %v\n%s", p, err, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, string(b))
	}
	if diff := cmp.Diff(csvs[0], csvs[1]); diff != "" {
		t.Errorf("CSV differs between --parallel 1 and 2 (-1 +2):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSpace(csvs[0]), "\n")
	if got, want := lines[0], "queue/nr_requests,tags,job,iops,bw_kib_s,clat_mean_us,clat_p99_us,util_nullb0"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	// 3 nr_requests values × 2 tag modes × 2 jobs.
	if len(lines) != 1+3*2*2 {
		t.Errorf("%d lines, want 13:\n%s", len(lines), csvs[0])
	}
	if !strings.HasPrefix(lines[1], "4,per-hctx,reader,") || !strings.HasPrefix(lines[12], "16,shared,writer,") {
		t.Errorf("row order:\n%s", csvs[0])
	}
}

func TestSweepPlot(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.png", "b.svg"} {
		path := filepath.Join(dir, name)
		out, err := run(args("sweep", nullJob, nullDevice, "--runtime", "10ms", "--vary", "tags=per-hctx,shared",
			"--metric", "clat-p99-us", "--plot", path)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("plot %s not written: %v", name, err)
		}
	}
}

func TestParseVary(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"queue/nr_requests=8..256", []string{"8", "16", "32", "64", "128", "256"}},
		{"queue/nr_requests=8..100", []string{"8", "16", "32", "64", "100"}},
		{"queue/nr_requests=8..32:8", []string{"8", "16", "24", "32"}},
		{"queue/nr_requests=8,16,56", []string{"8", "16", "56"}},
		{"tags=per-hctx,shared", []string{"per-hctx", "shared"}},
		{"device/queue_depth=15..15", []string{"15"}},
	}
	for _, tc := range tests {
		a, err := parseVary(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, a.values); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestSweepBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no-vary", []string{"sweep", nullJob}, "--vary: give one or two (got 0)"},
		{"three-vary", []string{"sweep", nullJob, "--vary", "a=1", "--vary", "b=1", "--vary", "c=1"}, "--vary: give one or two (got 3)"},
		{"range", []string{"sweep", nullJob, "--vary", "queue/nr_requests=64..8"}, `range "64..8": allowed: integers LO <= HI`},
		{"step", []string{"sweep", nullJob, "--vary", "queue/nr_requests=8..64:0"}, `step "0": allowed: an integer >= 1`},
		{"no-equals", []string{"sweep", nullJob, "--vary", "queue/nr_requests"}, `want KEY=LO..HI, KEY=LO..HI:STEP or KEY=V1,V2,...`},
		{"bad-key", []string{"sweep", nullJob, "--vary", "queue/nr=8..16"}, `point queue/nr=8: setup: flags: unknown key "queue/nr"`},
		{"bad-value", []string{"sweep", nullJob, "--vary", "tags=per-hctx,global"}, `point tags=global: setup: flags: tags=global: allowed: per-hctx, shared`},
		{"metric", []string{"sweep", nullJob, "--vary", "tags=shared", "--metric", "lat"}, `--metric "lat": allowed values are iops, bw, clat-mean-us, clat-p99-us`},
		{"plot-ext", []string{"sweep", nullJob, "--vary", "tags=shared", "--plot", "x.jpg"}, `--plot "x.jpg": allowed extensions are .png, .svg`},
		{"parallel", []string{"sweep", nullJob, "--vary", "tags=shared", "--parallel", "-2"}, `--parallel -2: must be >= 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(tc.args...)
			if code := exitCode(err); code != 2 {
				t.Fatalf("exit %d (%v), want 2\n%s", code, err, out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// TestSweepCSVStdoutOnly: with --csv - stdout carries only the CSV (no aligned
// table), so the output can be piped into a CSV reader.
func TestSweepCSVStdoutOnly(t *testing.T) {
	out, err := run(args("sweep", nullJob, nullDevice, "--runtime", "10ms", "--vary", "tags=per-hctx,shared", "--csv", "-")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "blkmq: ") { // warnings and notes go to stderr
			lines = append(lines, l)
		}
	}
	want := []string{"tags,job,iops,bw_kib_s,clat_mean_us,clat_p99_us,util_nullb0"}
	if len(lines) != 1+2*2 || lines[0] != want[0] {
		t.Fatalf("want only a CSV header %q and 4 rows, got:\n%s", want[0], out)
	}
	for _, l := range lines[1:] {
		if strings.Contains(l, "  ") || strings.Count(l, ",") != 6 {
			t.Errorf("not a CSV row: %q\n%s", l, out)
		}
	}
}

// TestSweepOutputPathChecked: an uncreatable --csv or --plot path fails at once
// (exit 2, naming the path) instead of after every point has run.
func TestSweepOutputPathChecked(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		flag []string
		want string
	}{
		{"csv-missing-dir", []string{"--csv", "/nonexistent/dir/x.csv"}, `--csv "/nonexistent/dir/x.csv": directory "/nonexistent/dir" does not exist`},
		{"plot-missing-dir", []string{"--plot", "/nonexistent/dir/x.png"}, `--plot "/nonexistent/dir/x.png": directory "/nonexistent/dir" does not exist`},
		{"csv-is-dir", []string{"--csv", dir}, `is a directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A long runtime: if the points ran first, the test would be slow.
			out, err := run(args("sweep", nullJob, nullDevice, "--runtime", "2s", "--vary", "kernel=4.19,6.1", tc.flag)...)
			if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v (exit %d), want exit 2 with %q\n%s", err, exitCode(err), tc.want, out)
			}
		})
	}
}

func TestCompactNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{625000, "625k"}, {1250000, "1.25M"}, {2e9, "2G"}, {12.5, "12.5"}, {0, "0"},
		{100, "100"}, {50000, "50k"}, {0.25, "0.25"}, {-3000, "-3k"}, {1500, "1.5k"},
	}
	for _, tc := range tests {
		if got := compactNumber(tc.in); got != tc.want {
			t.Errorf("compactNumber(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSweepPlotLayout: Y tick labels are compact (no "625000.00"), and the top of
// the plot, where the legend sits, holds no point.
func TestSweepPlotLayout(t *testing.T) {
	axes := []axis{{key: "queue/nr_requests", values: []string{"4", "8", "16", "32"}}, {key: "tags", values: []string{"per-hctx", "shared"}}}
	var points []*sweepPoint
	hi := 0.0
	for i, n := range axes[0].values {
		for j, tag := range axes[1].values {
			iops := float64(100000*(i+1) + 25000*j)
			hi = max(hi, iops)
			points = append(points, &sweepPoint{vals: []string{n, tag}, rows: []metricRow{{job: "reader", iops: iops}, {job: "writer", iops: iops / 8}}})
		}
	}
	pl, err := buildSweepPlot(axes, points, "iops", "job.fio", plotOptions{yFree: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range pl.Y.Tick.Marker.Ticks(pl.Y.Min, pl.Y.Max) {
		if tk.Label != "" && (strings.Contains(tk.Label, ".00") || len(tk.Label) > 5) {
			t.Errorf("Y tick label %q not compact", tk.Label)
		}
	}
	// 4 legend entries: the top fifth of the Y range must be free of data.
	if free := (pl.Y.Max - hi) / (pl.Y.Max - pl.Y.Min); free < 0.2 {
		t.Errorf("only %.0f%% of the Y range above the highest point (%v of [%v, %v]); the legend would cover it", 100*free, hi, pl.Y.Min, pl.Y.Max)
	}
	if !pl.Legend.Top || !pl.Legend.Left {
		t.Errorf("legend not top-left")
	}
}

// TestSweepPlotYZeroAndSize: a linear Y axis starts at 0 unless --plot-y-free;
// --plot-size takes WIDTHxHEIGHT in cm with a clear error otherwise.
func TestSweepPlotYZeroAndSize(t *testing.T) {
	axes := []axis{{key: "queue/nr_requests", values: []string{"4", "8"}}}
	points := []*sweepPoint{
		{vals: []string{"4"}, rows: []metricRow{{job: "r", iops: 500000}}},
		{vals: []string{"8"}, rows: []metricRow{{job: "r", iops: 600000}}},
	}
	pl, err := buildSweepPlot(axes, points, "iops", "job.fio", plotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Y.Min != 0 {
		t.Errorf("Y axis starts at %v, want 0", pl.Y.Min)
	}
	free, err := buildSweepPlot(axes, points, "iops", "job.fio", plotOptions{yFree: true})
	if err != nil {
		t.Fatal(err)
	}
	if free.Y.Min < 400000 {
		t.Errorf("--plot-y-free: Y axis starts at %v, want near the data (500k)", free.Y.Min)
	}
	if w, h, err := parsePlotSize("24x12"); err != nil || w != 24*vg.Centimeter || h != 12*vg.Centimeter {
		t.Errorf("24x12: %v %v %v", w, h, err)
	}
	for _, bad := range []string{"24", "0x10", "ax b", "200x10"} {
		if _, _, err := parsePlotSize(bad); err == nil {
			t.Errorf("--plot-size %q accepted", bad)
		}
	}
}

// TestSweepDiskUtil: the sweep CSV's util_NAME column is the disk_util util % that
// `blkmq run` reports for the same point (a lightly loaded disk, so below 100: 50 I/Os a second touch at most 50 of the 250 jiffies).
func TestSweepDiskUtil(t *testing.T) {
	job := writeJob(t, t.TempDir(), "light", "[light]\nioengine=libaio\ndirect=1\nrw=randread\niodepth=1\nrate_iops=50\ntime_based\nruntime=1s\n")
	dev := []string{"--device", "null_blk completion_nsec=50000 irqmode=2", "--cpus", "2"}
	out, err := run(args("run", job, dev, "--output-format", "json", "--set", "queue/nr_requests=32")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var o struct {
		DiskUtil []fio.DiskUtil `json:"disk_util"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil || len(o.DiskUtil) != 1 {
		t.Fatalf("run's disk_util: %v %+v", err, o.DiskUtil)
	}
	csvOut, err := run(args("sweep", job, dev, "--vary", "queue/nr_requests=32", "--csv", "-")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, csvOut)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("CSV %v:\n%s", err, csvOut)
	}
	col := slices.Index(rows[0], "util_nullb0")
	if col < 0 {
		t.Fatalf("no util_nullb0 column: %v", rows[0])
	}
	if got, want := rows[1][col], strconv.FormatFloat(o.DiskUtil[0].Util, 'f', 2, 64); got != want {
		t.Errorf("sweep util %s, run's disk_util util %s", got, want)
	}
	if o.DiskUtil[0].Util <= 0 || o.DiskUtil[0].Util >= 100 {
		t.Errorf("util %v: want a lightly loaded disk, in (0, 100)", o.DiskUtil[0].Util)
	}
}
