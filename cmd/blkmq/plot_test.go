package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestSweepPlotGroupedBars: a categorical --vary (no numeric axis) draws grouped
// bars: one bar chart per series, side by side (distinct offsets, centred on the
// category), each with one bar per category, on a Y axis from 0.
func TestSweepPlotGroupedBars(t *testing.T) {
	axes := []axis{{key: "tags", values: []string{"per-hctx", "shared"}}, {key: "queue/scheduler", values: []string{"none", "mq-deadline"}}}
	var points []*sweepPoint
	for i, tag := range axes[0].values {
		for j, s := range axes[1].values {
			points = append(points, &sweepPoint{vals: []string{tag, s}, rows: []metricRow{{job: "r", iops: float64(1000 + 100*i + 10*j)}}})
		}
	}
	var bars []*plotter.BarChart
	barsDrawn = func(b []*plotter.BarChart) { bars = b }
	defer func() { barsDrawn = nil }()
	pl, err := buildSweepPlot(axes, points, "iops", "job.fio", plotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 2 {
		t.Fatalf("%d bar charts, want 2 (job r × 2 schedulers)", len(bars))
	}
	if bars[0].Offset >= 0 || bars[1].Offset != -bars[0].Offset {
		t.Errorf("offsets %v, %v: want the two bars side by side, centred on the category", bars[0].Offset, bars[1].Offset)
	}
	for i, b := range bars {
		if len(b.Values) != 2 || b.Values[0] != float64(1000+10*i) || b.Values[1] != float64(1100+10*i) {
			t.Errorf("bars %d values %v, want one per tags value", i, b.Values)
		}
	}
	if pl.Y.Min != 0 {
		t.Errorf("bars: Y from %v, want 0", pl.Y.Min)
	}
}

// TestSweepPlotPanels: several metrics get one panel each; --plot-panels job one
// per metric and job, so the shallow writer's panel spans its own values (not
// squashed under the reader's); grouped bars spanning more than a factor 100 split
// per job by themselves.
func TestSweepPlotPanels(t *testing.T) {
	num := []axis{{key: "queue/nr_requests", values: []string{"8", "16"}}}
	cat := []axis{{key: "tags", values: []string{"per-hctx", "shared"}}}
	mk := func(vals []string) []*sweepPoint {
		var ps []*sweepPoint
		for _, v := range vals {
			ps = append(ps, &sweepPoint{vals: []string{v}, rows: []metricRow{{job: "reader", iops: 300000, p99: 150}, {job: "wal", iops: 200, p99: 120}}})
		}
		return ps
	}
	for _, tc := range []struct {
		name    string
		axes    []axis
		metrics []string
		perJob  bool
		want    int
	}{
		{"one metric", num, []string{"iops"}, false, 1},
		{"two metrics", num, []string{"iops", "clat-p99-us"}, false, 2},
		{"per job", num, []string{"iops", "clat-p99-us"}, true, 4},
		{"wide bars split by themselves", cat, []string{"iops"}, false, 2},
		{"close bars stay together", cat, []string{"clat-p99-us"}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			panels, err := buildSweepPanels(tc.axes, mk(tc.axes[0].values), tc.metrics, "job.fio", plotOptions{perJob: tc.perJob})
			if err != nil {
				t.Fatal(err)
			}
			if len(panels) != tc.want {
				t.Fatalf("%d panels, want %d", len(panels), tc.want)
			}
			if tc.want == 4 || tc.name == "wide bars split by themselves" {
				wal := panels[1]
				if !strings.Contains(wal.Title.Text, "job wal") || wal.Y.Max > 1000 {
					t.Errorf("panel %q: Y up to %v, want the wal's own range (its 200 IOPS not squashed)", wal.Title.Text, wal.Y.Max)
				}
			}
		})
	}
}

// TestSweepPlotPanelsFile: a sweep with two metrics writes one file holding both
// panels; bad --metric and --plot-panels values are usage errors.
func TestSweepPlotPanelsFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"p.png", "p.svg"} {
		path := filepath.Join(dir, name)
		out, err := run(args("sweep", nullJob, nullDevice, "--runtime", "10ms", "--vary", "tags=per-hctx,shared",
			"--metric", "iops,clat-p99-us", "--plot-panels", "job", "--plot", path)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("plot %s not written: %v", name, err)
		}
	}
	for _, bad := range [][]string{{"--metric", "iops,speed"}, {"--plot-panels", "lun"}} {
		_, err := run(args("sweep", nullJob, nullDevice, "--vary", "tags=per-hctx,shared", bad)...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: err %v, want a usage error naming the flag", bad, err)
		}
	}
}
