package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/setup"
	"github.com/blkmq/blkmq/stack"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// maxSweepPoints bounds the points of one sweep.
const maxSweepPoints = 10000

// axis is one varied setting and its values.
type axis struct {
	key    string
	values []string
}

// parseVary parses KEY=RANGE: LO..HI (powers of two from LO, HI included), LO..HI:STEP,
// or a comma-separated list (numbers or names).
func parseVary(s string) (axis, error) {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return axis{}, fmt.Errorf("--vary %q: want KEY=LO..HI, KEY=LO..HI:STEP or KEY=V1,V2,... (e.g. queue/nr_requests=8..256)", s)
	}
	a := axis{key: k}
	if lo, hi, ok := strings.Cut(v, ".."); ok {
		step := 0
		if h, st, ok := strings.Cut(hi, ":"); ok {
			n, err := strconv.Atoi(st)
			if err != nil || n < 1 {
				return axis{}, fmt.Errorf("--vary %q: step %q: allowed: an integer >= 1", s, st)
			}
			hi, step = h, n
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || l > h || (step == 0 && l < 1) {
			return axis{}, fmt.Errorf("--vary %q: range %q: allowed: integers LO <= HI (LO >= 1 without a step)", s, v)
		}
		for x := l; x <= h; {
			a.values = append(a.values, strconv.Itoa(x))
			if len(a.values) > maxSweepPoints {
				return axis{}, fmt.Errorf("--vary %q: more than %d values", s, maxSweepPoints)
			}
			if step > 0 {
				if uint64(h)-uint64(x) < uint64(step) {
					break // the next value would pass HI (computed without overflow)
				}
				x += step
			} else {
				if x == h {
					break
				}
				if x > h/2 { // x*2 > h, without overflow
					x = h
					continue
				}
				x *= 2
			}
		}
		return a, nil
	}
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return axis{}, fmt.Errorf("--vary %q: empty value in list", s)
		}
		a.values = append(a.values, x)
		if len(a.values) > maxSweepPoints {
			return axis{}, fmt.Errorf("--vary %q: more than %d values", clipVary(s), maxSweepPoints)
		}
	}
	return a, nil
}

// clipVary shortens a long --vary argument for an error message.
func clipVary(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// numeric reports whether every value is a number.
func (a axis) numeric() bool {
	for _, v := range a.values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return false
		}
	}
	return true
}

// sweepPoint is one combination of the varied values.
type sweepPoint struct {
	vals []string
	rows []metricRow // one per fio job name, in job-file order (the replicas' mean with --replicas)
	err  error
	// with --replicas: each replica's rows, and per row the spread of iops, bw,
	// clat mean and clat p99 (see metrics)
	reps   [][]metricRow
	spread [][4]Spread
	// skipped is set when a signal stopped the sweep before the point finished
	// (not run, or cut short: its rows are dropped)
	skipped bool
	// disks are the point's disk_util entries (fio.DiskUtil; one per replica with
	// --replicas), util each disk's util % over them (one value: Lo = Hi = Mean)
	disks [][]fio.DiskUtil
	util  map[string]Spread
}

// metricRow is the metrics of one fio job (its numjobs clones merged) at one point.
type metricRow struct {
	job                    string
	iops, bwKiB, mean, p99 float64
	clatN                  int64
	// p99Ceil: p99 is the value of fio's histogram's last bin (about 17.1 s), which
	// also holds every longer latency, so the true p99 is at least p99 (with
	// --replicas: in some replica); the table marks it ">=".
	p99Ceil bool
}

// metrics are the --metric names and their columns.
var metrics = []string{"iops", "bw", "clat-mean-us", "clat-p99-us"}

func (r metricRow) value(metric string) float64 {
	switch metric {
	case "iops":
		return r.iops
	case "bw":
		return r.bwKiB
	case "clat-mean-us":
		return r.mean
	default:
		return r.p99
	}
}

// rowsOf merges each job's clones and computes the metrics: IOPS and bandwidth
// (KiB/s) summed over directions; clat mean pooled over directions (µs); clat p99
// of the direction with the most I/Os (µs).
func rowsOf(out *stack.Result) []metricRow {
	var order []string
	byName := map[string][]*fio.Result{}
	for _, j := range out.Jobs {
		if _, ok := byName[j.Spec.Name]; !ok {
			order = append(order, j.Spec.Name)
		}
		byName[j.Spec.Name] = append(byName[j.Spec.Name], j.Fio)
	}
	var rows []metricRow
	for _, name := range order {
		m := fio.Merge(byName[name]...)
		iops, bw := m.Total()
		r := metricRow{job: name, iops: iops, bwKiB: bw / 1024}
		var sum float64
		var best *fio.LatStats
		for i := range m.Dirs {
			c := &m.Dirs[i].Clat
			sum += c.Mean * float64(c.N)
			r.clatN += c.N
			if c.N > 0 && (best == nil || c.N > best.N) {
				best = c
			}
		}
		if r.clatN > 0 {
			r.mean = sum / float64(r.clatN) / 1e3
		}
		if best != nil {
			r.p99 = float64(best.Percentile(99)) / 1e3
			r.p99Ceil = best.PercentileAtCeiling(99)
		}
		rows = append(rows, r)
	}
	return rows
}

func newSweepCmd() *cobra.Command {
	var (
		m        machineFlags
		vary     []string
		metric   string
		panels   string
		csvPath  string
		plotPath string
		plotSize string
		popt     plotOptions
		parallel int
		replicas int
		eta      string
	)
	cmd := &cobra.Command{
		Use:   "sweep JOB.fio --vary KEY=RANGE [--vary KEY=RANGE]",
		Short: "Run an fio job file over a range of one or two settings",
		Long: `sweep runs the job file once per combination of the varied settings (one or two
--vary, any --set key: queue/nr_requests, device/queue_depth, tags, host/nr_hw_queues,
kernel, era/...), on all CPUs at once, and prints per point and fio job: IOPS,
bandwidth (KiB/s), mean and 99th-percentile completion latency (µs). --csv writes the
same table as CSV, plus each disk's fio disk_util util % (columns util_NAME, e.g.
util_sda), and --plot draws the chosen --metric against the first numeric varied setting, one line per job (and per value of the other setting); when no varied setting is
numeric (tags=per-hctx,shared, kernel=...), as grouped bars, one bar per job in each
category. Several metrics (--metric iops,clat-p99-us) get one panel each, stacked, each
with its own unit; --plot-panels job gives each job its own panel too, so a small
series is not squashed against a large one (grouped bars spanning more than a factor
100 get per-job panels by themselves; lines switch to a log axis).

Ranges: LO..HI doubles from LO (HI included), LO..HI:STEP steps, V1,V2,... lists.
Every point uses the same --seed, so differences come from the settings; the output
is identical whatever --parallel is. A progress bar shows on a terminal for long sweeps
(--eta always: also a line per finished point when stderr is not a terminal).

Ctrl-C (SIGINT) or SIGTERM stops the sweep: the points already finished are printed
and written (--csv, --plot), the message says how many were skipped, and the exit
status is 128 (fio's after a signal); a second signal exits at once.`,
		Example: `  blkmq sweep testdata/fio/000_storvsc.fio --kernel 5.17 --cpus 16 --device cloud \
      --set device/queue_depth=15 --vary queue/nr_requests=8..256 --vary tags=per-hctx,shared \
      --runtime 5s --metric iops --csv storvsc.csv --plot storvsc.png
  blkmq sweep job.fio --device 'scsi_debug delay=0 submit_queues=4' --vary queue/nr_requests=8..64:8
  blkmq sweep job.fio --vary kernel=4.19,5.10,5.17,6.1,6.8 --metric clat-p99-us`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(vary) < 1 || len(vary) > 2 {
				return usageError(fmt.Errorf("--vary: give one or two (got %d)", len(vary)))
			}
			var plotMetrics []string
			for m := range strings.SplitSeq(metric, ",") {
				m = strings.TrimSpace(m)
				if !contains(metrics, m) {
					return usageError(fmt.Errorf("--metric %q: allowed values are %s, or several separated by commas", metric, strings.Join(metrics, ", ")))
				}
				if !contains(plotMetrics, m) {
					plotMetrics = append(plotMetrics, m)
				}
			}
			switch panels {
			case "metric":
			case "job":
				popt.perJob = true
			default:
				return usageError(fmt.Errorf("--plot-panels %q: allowed values are metric (one panel per metric), job (one per metric and job)", panels))
			}
			if parallel < 0 {
				return usageError(fmt.Errorf("--parallel %d: must be >= 0 (0 = all CPUs)", parallel))
			}
			var perr error
			if popt.width, popt.height, perr = parsePlotSize(plotSize); perr != nil {
				return usageError(perr)
			}
			if plotPath != "" && !strings.HasSuffix(plotPath, ".png") && !strings.HasSuffix(plotPath, ".svg") {
				return usageError(fmt.Errorf("--plot %q: allowed extensions are .png, .svg", plotPath))
			}
			for _, o := range []struct{ flag, path string }{{"--csv", csvPath}, {"--plot", plotPath}} {
				if err := checkOutputPath(o.flag, o.path); err != nil {
					return usageError(err)
				}
			}
			var axes []axis
			for _, v := range vary {
				a, err := parseVary(v)
				if err != nil {
					return usageError(err)
				}
				axes = append(axes, a)
			}
			if len(axes) == 2 && axes[0].key == axes[1].key {
				return usageError(fmt.Errorf("--vary %s given twice", axes[0].key))
			}
			// a --set of a varied key would be overridden at every point, unseen (as
			// --kernel against --vary kernel= is refused by setup); a config file's
			// set stays a base the flags override
			for _, a := range m.sets {
				if k, _, err := setup.SplitAssignment(a); err == nil {
					for _, ax := range axes {
						if k == ax.key {
							return usageError(fmt.Errorf("--set %s and --vary %s: the sweep sets %s at every point; drop the --set", strings.TrimSpace(a), ax.key, k))
						}
					}
				}
			}
			m.stdin = cmd.InOrStdin()
			specs, err := m.loadJobs(args[0])
			if err != nil {
				return usageError(err)
			}
			if _, err := m.unmodelled(cmd, specs); err != nil {
				return usageError(err)
			}
			if anyLogs(specs) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning: write_bw_log/write_lat_log/write_iops_log: sweep writes no log files (run one point with blkmq run)")
			}
			// Count before building: two axes of 10000 values each would
			// otherwise allocate 10^8 points before being refused.
			n := 1
			for _, a := range axes {
				n *= len(a.values) // each <= maxSweepPoints, so no overflow
				if n > maxSweepPoints {
					return usageError(fmt.Errorf("--vary: %s points, more than %d", pointCount(axes), maxSweepPoints))
				}
			}
			points := combine(axes)
			// Resolve every point first, so a bad value fails before any run.
			cfgs := make([]stack.Config, len(points))
			pspecs := make([][]fio.Spec, len(points))
			warned := map[string]bool{} // each distinct warning once, with its first point
			for i, p := range points {
				var sets []string
				for k, a := range axes {
					sets = append(sets, a.key+"="+p.vals[k])
				}
				layers, err := m.layers(sets...)
				if err != nil {
					return usageError(err)
				}
				res, err := setup.ResolveLayers(append(jobLayer(args[0], specs), layers...)...)
				if err != nil {
					return usageError(fmt.Errorf("point %s: %w", strings.Join(sets, " "), err))
				}
				if err := res.CheckTargets(specs); err != nil {
					return usageError(fmt.Errorf("point %s: %w", strings.Join(sets, " "), err))
				}
				cfgs[i] = withLimits(cmd, res.WithSeed(m.seed, 0))
				pspecs[i] = append([]fio.Spec(nil), specs...)
				sized := res.SizeJobs(pspecs[i])
				if err := res.CheckFit(pspecs[i]); err != nil {
					return usageError(fmt.Errorf("point %s: %w", strings.Join(sets, " "), err))
				}
				for _, n := range setup.WholeDeviceNotes(pspecs[i], sized) {
					if !warned[n] {
						warned[n] = true
						fmt.Fprintf(cmd.ErrOrStderr(), "blkmq: note: point %s: %s\n", strings.Join(sets, " "), n)
					}
				}
				if i == 0 {
					// Module parameters come from --device/--host, not --vary:
					// the first point names them for all.
					if _, err := m.inertParams(cmd, res); err != nil {
						return usageError(err)
					}
				}
				for _, w := range res.Warnings {
					if !warned[w] {
						warned[w] = true
						fmt.Fprintf(cmd.ErrOrStderr(), "blkmq: warning: point %s: %s\n", strings.Join(sets, " "), w)
					}
				}
			}
			for _, n := range setup.JobNotes(specs) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: note:", n)
			}
			if replicas < 1 || replicas > maxReplicas {
				return usageError(fmt.Errorf("--replicas %d: allowed: [1, %d]", replicas, maxReplicas))
			}
			if err := checkEta(eta); err != nil {
				return usageError(err)
			}
			sig := catchInterrupt(cmd.ErrOrStderr())
			runPoints(cmd.ErrOrStderr(), points, cfgs, pspecs, sweepRun{parallel: parallel, runtimeSec: m.runtimeOf(specs),
				replicas: replicas, eta: eta, stop: sig.C()})
			sig.Stop()
			all := points
			points = finishedPoints(points)
			for _, p := range points {
				if p.err != nil {
					return runError(cmd, fmt.Errorf("point %s: %w", strings.Join(p.vals, " "), p.err))
				}
			}
			// With --csv - stdout carries only the CSV, so it can be piped.
			if csvPath != "-" {
				if err := writeSweepTable(cmd.OutOrStdout(), axes, points); err != nil {
					return err
				}
			}
			if csvPath != "" {
				if err := writeFile(cmd.OutOrStdout(), csvPath, func(w io.Writer) error { return writeSweepCSV(w, axes, points) }); err != nil {
					return usageError(err)
				}
			}
			if plotPath != "" {
				if err := plotSweep(plotPath, axes, points, plotMetrics, args[0], popt); err != nil {
					return usageError(err)
				}
			}
			if skipped := len(all) - len(points); skipped > 0 {
				return interruptedError("sweep interrupted by signal %d: %d of %d points finished and written, %d skipped (not run or cut short)",
					sig.Signal(), len(points), len(all), skipped)
			}
			return nil
		},
	}
	m.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&vary, "vary", nil, "KEY=LO..HI | KEY=LO..HI:STEP | KEY=V1,V2,... (one or two)")
	f.StringVar(&metric, "metric", "iops", "metric plotted: "+strings.Join(metrics, ", ")+"; several separated by commas get one panel each (each its own unit)")
	f.StringVar(&panels, "plot-panels", "metric", "metric: one panel per metric; job: one per metric and job, each with its own Y axis (so a small series is not squashed against a large one)")
	f.StringVar(&csvPath, "csv", "", "write the results as CSV to this file (- = stdout)")
	f.StringVar(&plotPath, "plot", "", "draw --metric per job to this .png or .svg file")
	f.StringVar(&plotSize, "plot-size", "16x10", "plot size WIDTHxHEIGHT in cm")
	f.BoolVar(&popt.yFree, "plot-y-free", false, "let a linear Y axis span the data only (default: from 0)")
	f.IntVar(&parallel, "parallel", 0, "points run at once (0 = all CPUs)")
	f.StringVar(&eta, "eta", "auto", "progress on stderr, as fio's --eta: auto (a bar on a terminal for long sweeps), always (also a line per finished point when not a terminal), never")
	f.IntVar(&replicas, "replicas", 1, "run each point with N model-jitter seeds (1..N): the table and CSV give the mean, and the CSV\nadds each metric's 95% interval (columns *_ci95_lo, *_ci95_hi), [1, 1000]")
	return cmd
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pointCount is the number of points of axes as text, "A × B = N" for two.
func pointCount(axes []axis) string {
	if len(axes) == 1 {
		return strconv.Itoa(len(axes[0].values))
	}
	return fmt.Sprintf("%d × %d = %d", len(axes[0].values), len(axes[1].values), len(axes[0].values)*len(axes[1].values))
}

// combine returns the cartesian product of the axes, first axis outermost.
func combine(axes []axis) []*sweepPoint {
	pts := []*sweepPoint{{}}
	for _, a := range axes {
		var next []*sweepPoint
		for _, p := range pts {
			for _, v := range a.values {
				next = append(next, &sweepPoint{vals: append(append([]string(nil), p.vals...), v)})
			}
		}
		pts = next
	}
	return pts
}

// runtimeOf is the longest job runtime (for deciding whether a sweep is long).
func (m *machineFlags) runtimeOf(specs []fio.Spec) float64 {
	var r float64
	for _, s := range specs {
		r = math.Max(r, (s.Runtime + s.RampTime + max(s.StartDelay, s.StartDelayHigh)).Seconds())
	}
	return r
}

// sweepRun is how runPoints runs the points.
type sweepRun struct {
	parallel   int     // points at once, 0 = all CPUs
	runtimeSec float64 // longest job runtime, to decide whether a sweep is long
	replicas   int
	eta        string          // --eta
	stop       <-chan struct{} // closed by a signal: no new point starts, running ones end (and are skipped)
}

// runPoints runs every point, o.parallel at once. Results land in their point, so
// the output does not depend on the scheduling.
//
// With replicas > 1 each point runs that many times with jitter seeds 1 … replicas;
// its rows are then the replicas' means and spread their 95 % intervals.
//
// Once o.stop is closed no point starts, the running ones end early
// (stack.Limits.Interrupt), and every point not finished before is marked skipped.
func runPoints(stderr io.Writer, points []*sweepPoint, cfgs []stack.Config, specs [][]fio.Spec, o sweepRun) {
	parallel, replicas := o.parallel, o.replicas
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	// no more at once than fit under the memory limit together; the results do not
	// depend on how many run at once
	parallel = memoryBoundParallel(min(parallel, len(points)*max(replicas, 1)), cfgs, specs)
	var bar *progressbar.ProgressBar
	tty := false
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
	}
	if tty && o.eta != "never" && (o.eta == "always" || len(points) >= 4 && float64(len(points)*max(replicas, 1))*o.runtimeSec >= 10) {
		bar = progressbar.NewOptions(len(points)*max(replicas, 1), progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("sweep"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	lines := !tty && o.eta == "always"
	stopped := func() bool {
		select {
		case <-o.stop:
			return true
		default:
			return false
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, parallel)
	for i, p := range points {
		if replicas > 1 {
			p.reps = make([][]metricRow, replicas)
		}
		p.disks = make([][]fio.DiskUtil, max(replicas, 1))
		for k := range max(replicas, 1) {
			select {
			case sem <- struct{}{}:
			case <-o.stop:
			}
			if stopped() {
				p.skipped = true
				continue
			}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				cfg := cfgs[i]
				cfg.Limits.Interrupt = o.stop
				if replicas > 1 {
					cfg.JitterSeed = uint64(k) + 1 // replica 1 is the default stream
				}
				out, err := stack.Run(cfg, append([]fio.Spec(nil), specs[i]...))
				mu.Lock()
				defer mu.Unlock()
				if err == nil && !out.Interrupted && k == 0 {
					// as blkmq run says it: a job that completed nothing in its window
					// shows as 0 IOPS in the table, so say why, once per point
					for _, l := range idleJobLines(out) {
						fmt.Fprintf(stderr, "blkmq: warning: point %s: %s\n", strings.Join(p.vals, " "), l)
					}
				}
				switch {
				case err == nil && out.Interrupted:
					p.skipped = true
				case err != nil:
					if p.err == nil {
						p.err = err
					}
				case replicas > 1:
					p.reps[k] = rowsOf(out)
					p.disks[k] = out.DiskUtil()
				default:
					p.rows = rowsOf(out)
					p.disks[0] = out.DiskUtil()
				}
				done++
				if bar != nil {
					_ = bar.Add(1)
				}
				if lines && !p.skipped {
					fmt.Fprintf(stderr, "blkmq: progress: point %d of %d done (%s)\n", done, len(points)*max(replicas, 1), strings.Join(p.vals, " "))
				}
			}()
		}
	}
	wg.Wait()
	for _, p := range points {
		if p.err != nil || p.skipped {
			continue
		}
		if replicas > 1 {
			p.rows, p.spread = spreadRows(p.reps)
		}
		p.util = utilSpread(p.disks)
	}
	if bar != nil {
		_ = bar.Finish()
	}
}

// finishedPoints returns the points a signal did not skip, in order.
func finishedPoints(points []*sweepPoint) []*sweepPoint {
	var out []*sweepPoint
	for _, p := range points {
		if !p.skipped {
			out = append(out, p)
		}
	}
	return out
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

var sweepColumns = []string{"job", "iops", "bw_kib_s", "clat_mean_us", "clat_p99_us"}

func (r metricRow) cells() []string {
	return []string{r.job, fmtF(r.iops), fmtF(r.bwKiB), fmtF(r.mean), fmtF(r.p99)}
}

// utilSpread is each disk's disk_util util % (fio.DiskUtil.Util) over the replicas'
// entries (one entry list per replica), by disk name.
func utilSpread(reps [][]fio.DiskUtil) map[string]Spread {
	xs := map[string][]float64{}
	for _, ds := range reps {
		for _, d := range ds {
			xs[d.Name] = append(xs[d.Name], d.Util)
		}
	}
	out := map[string]Spread{}
	for name, v := range xs {
		out[name] = spreadOf(v)
	}
	return out
}

// sweepDisks is every disk of the points, in the order the points first report
// them (a --vary can change the disks: a point without a disk leaves its cells
// empty).
func sweepDisks(points []*sweepPoint) []string {
	var names []string
	for _, p := range points {
		for _, ds := range p.disks {
			for _, d := range ds {
				if !slices.Contains(names, d.Name) {
					names = append(names, d.Name)
				}
			}
		}
	}
	return names
}

// writeSweepCSV writes the sweep's table as CSV: the varied keys, the job's
// figures (sweepColumns), with --replicas the replica count and each figure's 95 %
// interval, then each disk's fio disk_util util % (util_NAME; with --replicas the
// mean and its interval, util_NAME_ci95_lo/hi), the same on every job row of a point.
func writeSweepCSV(w io.Writer, axes []axis, points []*sweepPoint) error {
	cw := csv.NewWriter(w)
	var head []string
	for _, a := range axes {
		head = append(head, a.key)
	}
	head = append(head, sweepColumns...)
	spread := len(points) > 0 && points[0].spread != nil
	if spread {
		head = append(head, "replicas")
		for _, c := range sweepColumns[1:] {
			head = append(head, c+"_ci95_lo", c+"_ci95_hi")
		}
	}
	disks := sweepDisks(points)
	for _, d := range disks {
		head = append(head, "util_"+d)
		if spread {
			head = append(head, "util_"+d+"_ci95_lo", "util_"+d+"_ci95_hi")
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	fmtU := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	for _, p := range points {
		for i, r := range p.rows {
			row := append(append([]string(nil), p.vals...), r.cells()...)
			if spread {
				row = append(row, strconv.Itoa(len(p.reps)))
				for _, sp := range p.spread[i] {
					row = append(row, fmtF(sp.Lo), fmtF(sp.Hi))
				}
			}
			for _, d := range disks {
				u, ok := p.util[d]
				switch {
				case !ok && spread:
					row = append(row, "", "", "")
				case !ok:
					row = append(row, "")
				case spread:
					row = append(row, fmtU(u.Mean), fmtU(u.Lo), fmtU(u.Hi))
				default:
					row = append(row, fmtU(u.Mean))
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeSweepTable(w io.Writer, axes []axis, points []*sweepPoint) error {
	var head []string
	for _, a := range axes {
		head = append(head, a.key)
	}
	head = append(head, sweepColumns...)
	rows := [][]string{head}
	ceil := false
	for _, p := range points {
		for _, r := range p.rows {
			c := r.cells()
			if r.p99Ceil {
				c[len(c)-1] = ">=" + c[len(c)-1]
				ceil = true
			}
			rows = append(rows, append(append([]string(nil), p.vals...), c...))
		}
	}
	width := make([]int, len(head))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(axes)+1 {
				fmt.Fprintf(&b, "%-*s", width[i], c)
			} else {
				fmt.Fprintf(&b, "%*s", width[i], c)
			}
		}
		b.WriteString("\n")
	}
	if ceil {
		fmt.Fprintf(&b, ">= clat_p99_us at fio's histogram ceiling: latencies of %.1f s and more share its last bin, so the true p99 is at least the value shown (and may exceed the mean)\n",
			float64(fio.HistogramMaxNs)/1e9)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// checkOutputPath reports, before any point runs, whether path (given by flag) can
// be created: its directory must exist and accept a new file, and path must not be a
// directory. "" (not asked for) and "-" (stdout) always pass. The error names the
// flag and the path.
func checkOutputPath(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %q: is a directory, want a file path", flag, path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%s %q: directory %q does not exist", flag, path, dir)
	} else if !st.IsDir() {
		return fmt.Errorf("%s %q: %q is not a directory", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, ".blkmq-check-*")
	if err != nil {
		return fmt.Errorf("%s %q: cannot create files in %q: %v", flag, path, dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// writeFile writes through fn to path ("-" = stdout).
func writeFile(stdout io.Writer, path string, fn func(io.Writer) error) error {
	if path == "-" {
		return fn(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// spreadRows returns the mean rows of the replicas (the same jobs in the same order)
// and, per row, the spread of iops, bw, clat mean and clat p99 (sweepColumns order).
func spreadRows(reps [][]metricRow) ([]metricRow, [][4]Spread) {
	rows := make([]metricRow, len(reps[0]))
	spread := make([][4]Spread, len(reps[0]))
	for i := range rows {
		var xs [4][]float64
		var n int64
		ceil := false
		for _, rep := range reps {
			r := rep[i]
			ceil = ceil || r.p99Ceil
			xs[0] = append(xs[0], r.iops)
			xs[1] = append(xs[1], r.bwKiB)
			xs[2] = append(xs[2], r.mean)
			xs[3] = append(xs[3], r.p99)
			n += r.clatN
		}
		for k := range xs {
			spread[i][k] = spreadOf(xs[k])
		}
		rows[i] = metricRow{job: reps[0][i].job, iops: spread[i][0].Mean, bwKiB: spread[i][1].Mean,
			mean: spread[i][2].Mean, p99: spread[i][3].Mean, clatN: n / int64(len(reps)), p99Ceil: ceil}
	}
	return rows, spread
}
