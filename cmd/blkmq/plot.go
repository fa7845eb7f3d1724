package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

var metricLabels = map[string]string{
	"iops":         "IOPS",
	"bw":           "bandwidth (KiB/s)",
	"clat-mean-us": "mean completion latency (µs)",
	"clat-p99-us":  "p99 completion latency (µs)",
}

// Default plot size (--plot-size).
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
)

// plotOptions are sweep's plot flags: the size (--plot-size WxH in cm) and
// whether a linear Y axis starts at 0 (--plot-y-zero, default on).
type plotOptions struct {
	width, height vg.Length
	yFree         bool // --plot-y-zero=false: the Y axis spans the data only
	// perJob is --plot-panels job: one panel per job (and metric)
	perJob bool
	// only, when set, draws only that job's series (a per-job panel)
	only string
}

func (o plotOptions) size() (vg.Length, vg.Length) {
	if o.width == 0 || o.height == 0 {
		return plotWidth, plotHeight
	}
	return o.width, o.height
}

// parsePlotSize reads --plot-size "WxH" in centimetres, each in [4, 100].
func parsePlotSize(v string) (vg.Length, vg.Length, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(v), "x")
	w, err1 := strconv.ParseFloat(strings.TrimSpace(ws), 64)
	h, err2 := strconv.ParseFloat(strings.TrimSpace(hs), 64)
	if !ok || err1 != nil || err2 != nil || w < 4 || w > 100 || h < 4 || h > 100 {
		return 0, 0, fmt.Errorf("--plot-size %q: want WIDTHxHEIGHT in cm, each in [4, 100] (e.g. 16x10)", v)
	}
	return vg.Length(w) * vg.Centimeter, vg.Length(h) * vg.Centimeter, nil
}

// plotSweep draws each metric against the first numeric axis (lines), or the
// first axis as categories (grouped bars), one series per job and value of the
// other axis, to path (.png, .svg): one panel per metric, stacked, each with its own
// Y axis (its unit), and with opt.perJob one per metric and job, so a small series
// is not squashed against a large one. Grouped bars whose values span more than a
// factor 100 get one panel per job by themselves (a bar cannot stand on a log
// axis). Each panel has the --plot-size.
func plotSweep(path string, axes []axis, points []*sweepPoint, metrics []string, job string, opt plotOptions) error {
	panels, err := buildSweepPanels(axes, points, metrics, job, opt)
	if err != nil {
		return err
	}
	w, h := opt.size()
	if len(panels) == 1 {
		if err := panels[0].Save(w, h, path); err != nil {
			return fmt.Errorf("--plot %s: %w", path, err)
		}
		return nil
	}
	return savePanels(path, panels, w, h)
}

// buildSweepPanels returns the panels of plotSweep, top to bottom.
func buildSweepPanels(axes []axis, points []*sweepPoint, metrics []string, job string, opt plotOptions) ([]*plot.Plot, error) {
	var jobs []string
	for _, p := range points {
		for _, r := range p.rows {
			if !slices.Contains(jobs, r.job) {
				jobs = append(jobs, r.job)
			}
		}
	}
	var panels []*plot.Plot
	for _, m := range metrics {
		perJob := opt.perJob || len(jobs) > 1 && barsOf(axes) && wideValues(points, m)
		if !perJob {
			pl, err := buildSweepPlot(axes, points, m, job, opt)
			if err != nil {
				return nil, err
			}
			panels = append(panels, pl)
			continue
		}
		for _, j := range jobs {
			o := opt
			o.only = j
			pl, err := buildSweepPlot(axes, points, m, job, o)
			if err != nil {
				return nil, err
			}
			panels = append(panels, pl)
		}
	}
	return panels, nil
}

// barsOf reports whether the plot of axes is grouped bars (no numeric axis).
func barsOf(axes []axis) bool {
	for _, a := range axes {
		if a.numeric() {
			return false
		}
	}
	return true
}

// wideValues reports whether metric's positive values span more than a factor 100.
func wideValues(points []*sweepPoint, metric string) bool {
	lo, hi := math.Inf(1), 0.0
	for _, p := range points {
		for _, r := range p.rows {
			if v := r.value(metric); v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return hi > 0 && hi > 100*lo
}

// savePanels draws the panels stacked top to bottom, each w × h, to path (.png
// or .svg).
func savePanels(path string, panels []*plot.Plot, w, h vg.Length) error {
	total := h * vg.Length(len(panels))
	var c vg.CanvasWriterTo
	if strings.HasSuffix(path, ".svg") {
		c = vgsvg.New(w, total)
	} else {
		c = vgimg.PngCanvas{Canvas: vgimg.New(w, total)}
	}
	grid := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		grid[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadY: 2 * vg.Millimeter}
	canvases := plot.Align(grid, tiles, draw.New(c))
	for i, p := range panels {
		p.Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

// buildSweepPlot lays out the plot of plotSweep: compact Y tick labels (625k, 1.2M),
// the legend top-left above the data (the Y axis extended so no point lies under it),
// a grid, and a linear Y axis from 0 unless opt.yFree.
func buildSweepPlot(axes []axis, points []*sweepPoint, metric, job string, opt plotOptions) (*plot.Plot, error) {
	xi := 0
	for i, a := range axes {
		if a.numeric() {
			xi = i
			break
		}
	}
	xa := axes[xi]
	numeric := xa.numeric()
	xOf := func(v string, idx int) float64 {
		if numeric {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
		return float64(idx)
	}
	// series key: job, plus the other axis' value.
	type key struct{ job, other string }
	var order []key
	series := map[key]plotter.XYs{}
	spreads := map[key]plotter.YErrors{}
	for _, p := range points {
		other := ""
		if len(axes) == 2 {
			other = axes[1-xi].key + "=" + p.vals[1-xi]
		}
		idx := indexOf(xa.values, p.vals[xi])
		for ri, r := range p.rows {
			if opt.only != "" && r.job != opt.only {
				continue
			}
			k := key{r.job, other}
			if _, ok := series[k]; !ok {
				order = append(order, k)
			}
			series[k] = append(series[k], plotter.XY{X: xOf(p.vals[xi], idx), Y: r.value(metric)})
			if p.spread != nil { // --replicas: the 95 % interval of the mean
				sp := p.spread[ri][slices.Index(metrics, metric)]
				spreads[k] = append(spreads[k], struct{ Low, High float64 }{sp.Mean - sp.Lo, sp.Hi - sp.Mean})
			}
		}
	}
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: %s vs %s", filepath.Base(job), metricLabels[metric], xa.key)
	if opt.only != "" {
		pl.Title.Text = fmt.Sprintf("%s: job %s: %s vs %s", filepath.Base(job), opt.only, metricLabels[metric], xa.key)
	}
	pl.X.Label.Text = xa.key
	pl.Y.Label.Text = metricLabels[metric]
	pl.Legend.Top = true
	pl.Legend.Left = true
	if numeric && wideRange(xa.values) {
		pl.X.Scale = plot.LogScale{}
		var ticks []plot.Tick
		for _, v := range xa.values {
			ticks = append(ticks, plot.Tick{Value: xOf(v, 0), Label: v})
		}
		pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	} else if !numeric {
		pl.NominalX(xa.values...)
	}
	var vs []any
	var names []string
	for _, k := range order {
		name := k.job
		if k.other != "" {
			name += " " + k.other
		}
		names = append(names, name)
		vs = append(vs, name, series[k])
	}
	if !numeric {
		// grouped bars: one bar per series in each category, side by side
		_, h := opt.size()
		if err := addGroupedBars(pl, names, order, series, len(xa.values), opt); err != nil {
			return nil, err
		}
		pl.Add(plotter.NewGrid())
		pl.Y.Min = 0
		pl.Y.Tick.Marker = compactTicks{plot.DefaultTicks{}}
		legendRoom(pl, len(order), h)
		return pl, nil
	}
	logY(pl, series)
	if err := plotutil.AddLinePoints(pl, vs...); err != nil {
		return nil, fmt.Errorf("--plot: %w", err)
	}
	for _, k := range order {
		if e := spreads[k]; len(e) == len(series[k]) {
			bars, err := plotter.NewYErrorBars(errorXYs{series[k], e})
			if err != nil {
				return nil, fmt.Errorf("--plot: %w", err)
			}
			pl.Add(bars)
		}
	}
	if pl.Y.Tick.Marker == nil {
		pl.Y.Tick.Marker = plot.DefaultTicks{}
	}
	if _, isLog := pl.Y.Scale.(plot.LogScale); !isLog && !opt.yFree && pl.Y.Min > 0 {
		pl.Y.Min = 0
	}
	pl.Add(plotter.NewGrid())
	pl.Y.Tick.Marker = compactTicks{pl.Y.Tick.Marker}
	_, h := opt.size()
	legendRoom(pl, len(order), h)
	return pl, nil
}

// addGroupedBars draws each series as bars, one per category (X 0 … n−1), the
// series of a category side by side and the group centred on it, in the plot's
// colour order, with a legend entry each.
func addGroupedBars[K comparable](pl *plot.Plot, names []string, order []K, series map[K]plotter.XYs, categories int, opt plotOptions) error {
	w, _ := opt.size()
	// the data area is about 85 % of the width; bars fill 80 % of a category
	group := w * 85 / 100 / vg.Length(max(categories, 1)) * 8 / 10
	bw := group / vg.Length(max(len(order), 1))
	var bars []*plotter.BarChart
	for i, k := range order {
		vals := make(plotter.Values, categories)
		for _, p := range series[k] {
			if c := int(p.X); c >= 0 && c < categories {
				vals[c] = p.Y
			}
		}
		b, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
		b.Offset = (vg.Length(i) - vg.Length(len(order)-1)/2) * bw
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		pl.Add(b)
		pl.Legend.Add(names[i], b)
		bars = append(bars, b)
	}
	if barsDrawn != nil {
		barsDrawn(bars)
	}
	return nil
}

// barsDrawn, when set (by a test), receives the bar charts addGroupedBars adds
// (gonum's Plot does not list its plotters).
var barsDrawn func([]*plotter.BarChart)

// errorXYs is a series with its 95 % intervals (sweep --replicas), for error bars.
type errorXYs struct {
	plotter.XYs
	plotter.YErrors
}

// compactTicks relabels another Ticker's labelled ticks with compactNumber.
type compactTicks struct{ inner plot.Ticker }

// Ticks returns the inner ticks, labels in compact form.
func (c compactTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := c.inner.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = compactNumber(ts[i].Value)
		}
	}
	return ts
}

// compactNumber writes v with a k (1e3), M (1e6) or G (1e9) suffix and at most
// three significant digits after scaling, trailing zeros dropped: 625000 → "625k",
// 1250000 → "1.25M", 12.5 → "12.5", 0 → "0".
func compactNumber(v float64) string {
	suffix, x := "", v
	for _, u := range []struct {
		s string
		f float64
	}{{"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if math.Abs(v) >= u.f {
			suffix, x = u.s, v/u.f
			break
		}
	}
	prec := 2
	switch a := math.Abs(x); {
	case a >= 100:
		prec = 0
	case a >= 10:
		prec = 1
	}
	t := strconv.FormatFloat(x, 'f', prec, 64)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	if t == "-0" {
		t = "0"
	}
	return t + suffix
}

// legendRoom raises the Y axis maximum so the top share of the plot that the
// legend's entries occupy holds no data (linear or log scale).
func legendRoom(pl *plot.Plot, entries int, plotHeight vg.Length) {
	size := pl.Legend.TextStyle.Font.Size
	// the data area is roughly 3/4 of the plot height (title, labels, ticks).
	f := math.Min(0.7, float64(vg.Length(entries+1)*size*1.3)/float64(plotHeight*3/4))
	lo, hi := pl.Y.Min, pl.Y.Max
	if _, isLog := pl.Y.Scale.(plot.LogScale); isLog && lo > 0 && hi > lo {
		pl.Y.Max = math.Max(hi, lo*math.Pow(hi/lo, 1/(1-f)))
		return
	}
	if hi <= lo {
		hi = lo + math.Max(math.Abs(lo), 1)
	}
	pl.Y.Max = lo + (hi-lo)/(1-f)
}

// logY switches the Y axis to a log scale when the positive values span more than
// a factor 100 (e.g. the IOPS of a deep reader and a shallow writer), leaving the
// top decade free for the legend. Values <= 0 are drawn on the bottom of the axis.
func logY[K comparable](pl *plot.Plot, series map[K]plotter.XYs) {
	lo, hi := math.Inf(1), 0.0
	for _, xys := range series {
		for _, p := range xys {
			if p.Y > 0 {
				lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
			}
		}
	}
	if hi == 0 || hi < 100*lo {
		return
	}
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	pl.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	pl.Y.Max = math.Pow(10, math.Ceil(math.Log10(hi))+1)
	for _, xys := range series {
		for i := range xys {
			xys[i].Y = math.Max(xys[i].Y, pl.Y.Min)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// wideRange reports whether the values are positive integers spanning at least a
// factor 8 (drawn on a log scale, ticks at the values).
func wideRange(vals []string) bool {
	lo, hi := 0, 0
	for i, v := range vals {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return false
		}
		if i == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return hi >= 8*lo
}
