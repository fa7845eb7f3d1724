package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Tolerances of the checked rows (relative to the kernel value). Rows of other
// metrics are shown, not checked.
const (
	// TolIOPS bounds per-job IOPS.
	TolIOPS = 0.15
	// TolClatMean bounds per-job mean completion latency.
	TolClatMean = 0.25
	// TolMerges bounds the device merge fraction; an absolute difference of at
	// most MergeFloor also passes (both sides merging almost nothing).
	TolMerges = 0.20
	// MergeFloor is the absolute merge-fraction difference that always passes.
	MergeFloor = 0.01
	// TolCommand bounds the mean device command size (KiB).
	TolCommand = 0.20
)

// Row is one compared quantity.
type Row struct {
	// Key is "JOB DIR METRIC" or "device METRIC" (KnownMiss.Row refers to it).
	Key string `json:"key"`
	// Metric is iops, clat_mean_ms, clat_p99_ms, commands_per_sec,
	// mean_command_kib or merge_fraction.
	Metric string `json:"metric"`
	// Kernel and Model are the two sides' values in the metric's unit.
	Kernel float64 `json:"kernel"`
	Model  float64 `json:"model"`
	// RelErr is (model − kernel) / kernel; NaN when kernel is 0 (JSON null).
	RelErr float64 `json:"-"`
	// Tol is the allowed |RelErr|; 0 = shown, not checked.
	Tol float64 `json:"tolerance,omitempty"`
	// Pass reports a checked row within tolerance (always true when unchecked).
	Pass bool `json:"pass"`
	// KnownMiss is the recorded mechanism when the row is a known miss.
	KnownMiss string `json:"known_miss,omitempty"`
	// RunDiff is the kernel's run-to-run difference of the row, |run2 − run1| /
	// run1, when the case has a repeated run (Index.Reruns); NaN otherwise (JSON
	// omitted). With reruns, Kernel is the mean of the runs.
	RunDiff float64 `json:"-"`
}

// MarshalJSON writes RelErr as a number, or null when undefined.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	var rel *float64
	if !math.IsNaN(r.RelErr) && !math.IsInf(r.RelErr, 0) {
		v := r.RelErr
		rel = &v
	}
	var rd *float64
	if !math.IsNaN(r.RunDiff) && !math.IsInf(r.RunDiff, 0) {
		v := r.RunDiff
		rd = &v
	}
	return json.Marshal(struct {
		plain
		RelErr  *float64 `json:"rel_err"`
		RunDiff *float64 `json:"run_diff,omitempty"`
	}{plain(r), rel, rd})
}

// Comparison is the side-by-side result of one Case.
type Comparison struct {
	// Case names the compared configuration.
	Case string `json:"case"`
	// Rows are the compared quantities: per job and direction, then device.
	Rows []Row `json:"rows"`
}

// Failed returns the checked rows out of tolerance that are not known misses.
func (c *Comparison) Failed() []Row {
	var out []Row
	for _, r := range c.Rows {
		if !r.Pass && r.KnownMiss == "" {
			out = append(out, r)
		}
	}
	return out
}

func relErr(kernel, model float64) float64 {
	if kernel == 0 {
		if model == 0 {
			return 0
		}
		return math.NaN()
	}
	return (model - kernel) / kernel
}

func row(key, metric string, kernel, model, tol float64) Row {
	r := Row{Key: key, Metric: metric, Kernel: kernel, Model: model, RelErr: relErr(kernel, model), Tol: tol, Pass: true, RunDiff: math.NaN()}
	if tol > 0 {
		r.Pass = !math.IsNaN(r.RelErr) && math.Abs(r.RelErr) <= tol
	}
	return r
}

// Compare lines up kernel and model figures: per job and direction IOPS (checked,
// TolIOPS), mean clat (checked, TolClatMean) and p99 clat; device commands/s, mean
// command size (checked, TolCommand) and merge fraction (checked, TolMerges or
// MergeFloor). A job present
// on one side only gives failing rows with the missing side 0. Rows named in
// misses carry their mechanism.
func Compare(name string, kernel, model *Figures, misses []KnownMiss) *Comparison {
	c := &Comparison{Case: name}
	mj := map[string]JobFigures{}
	for _, j := range model.Jobs {
		mj[j.Job+" "+j.Dir] = j
	}
	seen := map[string]bool{}
	for _, k := range kernel.Jobs {
		id := k.Job + " " + k.Dir
		seen[id] = true
		m := mj[id]
		c.Rows = append(c.Rows,
			row(id+" iops", "iops", k.IOPS, m.IOPS, TolIOPS),
			row(id+" clat_mean", "clat_mean_ms", k.ClatMean/1e6, m.ClatMean/1e6, TolClatMean),
			row(id+" clat_p99", "clat_p99_ms", k.ClatP99/1e6, m.ClatP99/1e6, 0))
	}
	for _, m := range model.Jobs {
		id := m.Job + " " + m.Dir
		if !seen[id] {
			c.Rows = append(c.Rows, row(id+" iops", "iops", 0, m.IOPS, TolIOPS))
		}
	}
	kd, md := kernel.Device, model.Device
	c.Rows = append(c.Rows,
		row("device commands_per_sec", "commands_per_sec", kd.CommandsPerSec, md.CommandsPerSec, 0),
		row("device mean_command", "mean_command_kib", kd.MeanCommandBytes/1024, md.MeanCommandBytes/1024, TolCommand))
	mr := row("device merges", "merge_fraction", kd.MergeFraction, md.MergeFraction, TolMerges)
	mr.Pass = mr.Pass || math.Abs(md.MergeFraction-kd.MergeFraction) <= MergeFloor
	c.Rows = append(c.Rows, mr)
	for i := range c.Rows {
		for _, km := range misses {
			if km.Row == c.Rows[i].Key {
				c.Rows[i].KnownMiss = km.Mechanism
			}
		}
	}
	return c
}

// WriteText writes the comparison as an aligned table.
func (c *Comparison) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tkernel\tmodel\terror\ttolerance\t\trun-to-run\t\n", c.Case)
	for _, r := range c.Rows {
		tol, status := "", ""
		if r.Tol > 0 {
			tol = fmt.Sprintf("±%.0f%%", r.Tol*100)
			status = "ok"
			if !r.Pass {
				status = "MISS"
				if r.KnownMiss != "" {
					status = "known miss"
				}
			}
		}
		label := strings.TrimSuffix(r.Key, " "+strings.TrimSuffix(r.Metric, "_ms"))
		label = strings.TrimSuffix(label, " "+strings.TrimSuffix(r.Metric, "_kib"))
		rd := ""
		if !math.IsNaN(r.RunDiff) {
			rd = fmt.Sprintf("%.1f%%", 100*r.RunDiff)
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label, unitLabel(r.Metric), num(r.Kernel), num(r.Model), errCell(r), tol, status, rd)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// one line per mechanism text, after the keys of the rows it explains (a case's
	// missed rows often share one), in the order the texts first appear
	var texts []string
	keys := map[string][]string{}
	for _, r := range c.Rows {
		if !r.Pass && r.KnownMiss != "" {
			if keys[r.KnownMiss] == nil {
				texts = append(texts, r.KnownMiss)
			}
			keys[r.KnownMiss] = append(keys[r.KnownMiss], r.Key)
		}
	}
	for _, t := range texts {
		if _, err := fmt.Fprintf(w, "known miss %s: %s\n", strings.Join(keys[t], ", "), t); err != nil {
			return err
		}
	}
	return nil
}

func unitLabel(metric string) string {
	switch metric {
	case "iops":
		return "IOPS"
	case "clat_mean_ms":
		return "clat mean (ms)"
	case "clat_p99_ms":
		return "clat p99 (ms)"
	case "commands_per_sec":
		return "commands/s"
	case "mean_command_kib":
		return "mean command (KiB)"
	case "merge_fraction":
		return "merged bios (fraction)"
	}
	return metric
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// errCell is the error column of a row: the relative error, or, when the kernel
// value is 0 or too small to show (0.000), the absolute difference model − kernel
// marked "abs", since a relative error against a near-zero kernel figure (a merge
// fraction of 0.0001) says nothing. The pass/fail rule (Row.Pass) is unchanged.
func errCell(r Row) string {
	if k, err := strconv.ParseFloat(num(r.Kernel), 64); err == nil && k == 0 && r.Model != r.Kernel {
		d := r.Model - r.Kernel
		if math.Abs(d) < 0.0005 {
			return fmt.Sprintf("%+.1e abs", d)
		}
		s := num(d)
		if d > 0 {
			s = "+" + s
		}
		return s + " abs"
	}
	return pct(r.RelErr)
}

func pct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", v*100)
}

// MeanFigures averages the figures of repeated kernel runs of one configuration:
// per job and direction IOPS, bandwidth, mean and p99 clat; device requests and
// merges (the derived device rates recomputed). Jobs absent from a run count as
// zero there. It returns nil for no runs.
func MeanFigures(runs ...*Figures) *Figures {
	if len(runs) == 0 {
		return nil
	}
	n := float64(len(runs))
	out := &Figures{}
	idx := map[string]int{}
	for _, f := range runs {
		for _, j := range f.Jobs {
			id := j.Job + " " + j.Dir
			i, ok := idx[id]
			if !ok {
				i = len(out.Jobs)
				idx[id] = i
				out.Jobs = append(out.Jobs, JobFigures{Job: j.Job, Dir: j.Dir})
			}
			o := &out.Jobs[i]
			o.IOPS += j.IOPS / n
			o.BW += j.BW / n
			o.ClatMean += j.ClatMean / n
			o.ClatP99 += j.ClatP99 / n
			o.CPU += j.CPU / n
		}
	}
	var req, mrg float64
	var iops, bw float64
	for _, f := range runs {
		req += float64(f.Device.Requests) / n
		mrg += float64(f.Device.Merges) / n
	}
	for _, j := range out.Jobs {
		iops += j.IOPS
		bw += j.BW
	}
	d := DeviceFigures{Requests: int64(math.Round(req)), Merges: int64(math.Round(mrg))}
	if req+mrg > 0 {
		d.MergeFraction = mrg / (req + mrg)
	}
	d.CommandsPerSec = iops * (1 - d.MergeFraction)
	if d.CommandsPerSec > 0 {
		d.MeanCommandBytes = bw / d.CommandsPerSec
	}
	out.Device = d
	return out
}

// withRunDiff sets each row's RunDiff from a comparison of run 1 (as "kernel")
// with run 2 (as "model") of the same configuration.
func (c *Comparison) withRunDiff(runs *Comparison) {
	rd := map[string]float64{}
	for _, r := range runs.Rows {
		rd[r.Key] = math.Abs(r.RelErr)
	}
	for i := range c.Rows {
		if v, ok := rd[c.Rows[i].Key]; ok {
			c.Rows[i].RunDiff = v
		}
	}
}
