package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/blkmq/blkmq/bench"
	"github.com/spf13/cobra"
)

func newClaimsCmd() *cobra.Command {
	var (
		seed        uint64
		format      string
		parallel    int
		only        string
		show        string
		record      string
		sensitivity bool
		eta         string
		replicas    int
	)
	cmd := &cobra.Command{
		Use:   "claims",
		Short: "Reproduce the published figures of the source documents",
		Long: `claims runs every scenario of testdata/claims.json and prints, for each published
figure: the claim, the published value, the model's value, the accepted range, the
status and a short reason. Status is one of
  met         within tolerance, predicted from sourced or assumed parameters
  calibrated  within tolerance, but the figure follows from a parameter derived from
              the same source's published cells (not evidence of the model)
  known miss  outside tolerance, at the value recorded for it (mechanism missing)
  not robust  within tolerance, but the claim records an assumed parameter under which
              it leaves it, or its replicas' 95 % interval crosses an edge of the
              tolerance (the claim records why)
  info        not judged against the source, at its recorded value
  not met (spread)
              the replicas' 95 % interval crosses an edge of the tolerance and the
              claim records no reason (not_robust)
  MISSED      outside tolerance with no known-miss record
  MOVED       a known miss or informational value left its recorded band, or a known
              miss is now met (refresh the records with --record once understood)
  ERROR       the scenario is not registered, failed, or lacks the metric

--show ID prints how one figure is computed and where it comes from; --format json
adds every scenario parameter with its basis (sourced, assumed, calibrated);
--sensitivity re-runs each claim with each assumed parameter halved and doubled.

Each figure is judged from the replicas its claim asks for (testdata/claims.json
"replicas"; --replicas N for every claim): runs with model-jitter seeds 1 … N (the
workload seed is the same), the mean shown as MODEL and the 95 % interval of one run
(mean ± t·sd·sqrt(1+1/N)) as INTERVAL; a claim is met only when the whole interval is
within the accepted range. Same seeds, same output.

Exit status: 0 when every figure is met, calibrated, not robust, a recorded known miss
or informational within its band; 1 on any MISSED, not met (spread) or MOVED figure; 2 on errors; 128
after Ctrl-C (SIGINT) or SIGTERM: no further scenario starts, the table comes at once
with what finished (the rest, the runs in flight included, as errors; --sensitivity
skips its runs); a second signal exits at once.`,
		Example: `  blkmq claims
  blkmq claims --only 000/ --format json
  blkmq claims --show 002/none-v4.13/read
  blkmq claims --sensitivity --only 000/
  blkmq claims --record testdata/claims.json   # refresh known-miss records after a model change`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return &exitError{2, fmt.Errorf("--format %q: allowed values are text, json", format)}
			}
			if replicas < 0 || replicas > bench.MaxReplicas {
				return &exitError{2, fmt.Errorf("--replicas %d: must be in [0, %d] (0 = each claim's own)", replicas, bench.MaxReplicas)}
			}
			if parallel < 0 {
				return &exitError{2, fmt.Errorf("--parallel %d: must be >= 0 (0 = all CPUs)", parallel)}
			}
			// the records are what the default run is judged against: seed 1's values
			// at each claim's own replica count
			if record != "" && replicas != 0 {
				return &exitError{2, fmt.Errorf("--record with --replicas %d: a record holds the mean at the claim's own replica count (testdata/claims.json \"replicas\"), which the default run judges it by; drop --replicas", replicas)}
			}
			if record != "" && seed != 1 {
				return &exitError{2, fmt.Errorf("--record with --seed %d: a record holds seed 1's value, which the default run judges it by; drop --seed", seed)}
			}
			claims, err := bench.DefaultClaims()
			if err != nil {
				return &exitError{2, err}
			}
			if show != "" {
				return showClaim(cmd.OutOrStdout(), claims, show, seed, replicas)
			}
			if only != "" {
				var kept []bench.Claim
				for _, c := range claims {
					if strings.HasPrefix(c.ID, only) {
						kept = append(kept, c)
					}
				}
				if len(kept) == 0 {
					return &exitError{2, fmt.Errorf("--only %q matches no claim id", only)}
				}
				claims = kept
			}
			var recordData []byte
			if record != "" {
				if recordData, err = os.ReadFile(record); err != nil {
					return &exitError{2, fmt.Errorf("--record: %w", err)}
				}
			}
			opts := bench.Options{Seed: seed, Parallel: parallel, Replicas: replicas}
			var results []bench.Result
			// Ctrl-C: no new scenario starts; the table shows what finished
			// (the rest as errors) and the exit status is 128, as fio's
			if err := checkEta(eta); err != nil {
				return &exitError{2, err}
			}
			ctx, sig := interruptContext(cmd)
			defer sig.Stop()
			withScenarioProgress(cmd, eta, fmt.Sprintf("blkmq claims: running the scenarios of %d claims", len(claims)), &opts,
				func() { results = bench.EvaluateWith(ctx, claims, opts) })
			var sens []bench.SensitivityRow
			showSens := sensitivity
			switch {
			case sensitivity && sig.Signal() != 0:
				// interrupted: the table of what finished comes at once, not after
				// the sensitivity runs (minutes of CPU)
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: claims interrupted: sensitivity runs skipped")
				showSens = false
			case sensitivity:
				// a signal during them stops them as it stops the claims' runs
				sens = bench.Sensitivity(ctx, claims, results, opts)
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				err = writeClaimsJSON(w, results, sens)
			} else {
				err = writeClaimsText(w, results)
				if err == nil && showSens {
					err = writeSensitivityText(w, sens)
				}
			}
			if err != nil {
				return &exitError{2, err}
			}
			if record != "" {
				out, notes, err := bench.RecordClaims(recordData, results)
				if err != nil {
					return &exitError{2, fmt.Errorf("--record: %w", err)}
				}
				if err := os.WriteFile(record, out, 0o644); err != nil {
					return &exitError{2, fmt.Errorf("--record: %w", err)}
				}
				for _, n := range notes {
					fmt.Fprintln(cmd.ErrOrStderr(), "record:", n)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "record: wrote %s (%d changes)\n", record, len(notes))
			}
			if sig.Signal() != 0 {
				return interruptedError("claims interrupted by signal %d: the scenarios not run are listed as errors", sig.Signal())
			}
			return claimsExit(results)
		},
	}
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the fio workloads' random offsets and read/write mix (PCG); model timing jitter uses its own fixed stream")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json (json adds each scenario's parameters with their basis)")
	cmd.Flags().IntVar(&replicas, "replicas", 0, "model-jitter replicas of every claim (jitter seeds 1 … N; 0 = each claim's own, testdata/claims.json \"replicas\"); a claim is met only when its replicas' 95% interval is within the accepted range")
	cmd.Flags().IntVar(&parallel, "parallel", 0, "scenario runs at once (0 = all CPUs)")
	cmd.Flags().StringVar(&eta, "eta", "auto", "progress on stderr, as fio's --eta: auto (on a terminal: scenario runs done and time elapsed), always (also a line per finished run when not a terminal), never")
	cmd.Flags().StringVar(&only, "only", "", "run only the claims whose id starts with this prefix (e.g. 000/)")
	cmd.Flags().StringVar(&show, "show", "", "print how claim ID is computed (scenario, switch, metric, parameters) and its source, then run it")
	cmd.Flags().StringVar(&record, "record", "", "after the run, rewrite the known-miss and informational records (model value, band) in this claims file (testdata/claims.json)")
	cmd.Flags().BoolVar(&sensitivity, "sensitivity", false, "also run each claim with each assumed or calibrated parameter (and each sourced one marked scalable, such as the line-transfer cost) halved and doubled (slow: ~7 min CPU)")
	return cmd
}

// claimsExit maps results to the exit status: 2 on any error, else 1 on any
// unexpected or moved figure, else 0.
func claimsExit(results []bench.Result) error {
	code := 0
	for _, r := range results {
		switch {
		case r.Status == bench.Failed:
			code = 2
		case !r.Status.Expected() && code == 0:
			code = 1
		}
	}
	switch code {
	case 2:
		return &exitError{2, fmt.Errorf("claims: %d scenario errors (listed above)", countStatus(results, bench.Failed))}
	case 1:
		return &exitError{1, fmt.Errorf("claims: unexpected figures")}
	}
	return nil
}

func countStatus(results []bench.Result, s bench.Status) int {
	n := 0
	for _, r := range results {
		if r.Status == s {
			n++
		}
	}
	return n
}

func fmtValue(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}

// shortReason keeps the table narrow.
func shortReason(s string) string {
	const max = 64
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func writeClaimsText(w io.Writer, results []bench.Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tPUBLISHED\tMODEL\tINTERVAL (N)\tUNIT\tACCEPTED\tSTATUS\tREASON")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Claim.ID, fmtValue(r.Claim.Published), fmtValue(r.Model),
			fmtIntervalCol(r), r.Claim.Unit, r.Claim.Bounds(), r.Status, shortReason(r.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(w, "error: %s: %v\n", r.Claim.ID, r.Err)
		}
	}
	unexpected := 0
	for _, r := range results {
		if !r.Status.Expected() && r.Status != bench.Failed {
			unexpected++
		}
	}
	spread := ""
	if n := countStatus(results, bench.Spread); n > 0 {
		spread = fmt.Sprintf(" (%d of them spread)", n)
	}
	_, err := fmt.Fprintf(w, "\n%d met, %d not robust, %d known misses, %d calibrated, %d unexpected%s\n%d informational, %d errors\n",
		countStatus(results, bench.Met), countStatus(results, bench.NotRobust), countStatus(results, bench.KnownMiss),
		countStatus(results, bench.Calibrated), unexpected, spread, countStatus(results, bench.Info), countStatus(results, bench.Failed))
	return err
}

// fmtIntervalCol is the INTERVAL (N) column: the replicas' 95 % interval and their
// number, or "-" for one run.
func fmtIntervalCol(r bench.Result) string {
	if len(r.Values) < 2 {
		return "-"
	}
	return fmt.Sprintf("%s-%s (%d)", fmtValue(r.Interval[0]), fmtValue(r.Interval[1]), len(r.Values))
}

func writeSensitivityText(w io.Writer, rows []bench.SensitivityRow) error {
	fmt.Fprintf(w, "\nSensitivity: each claim with one assumed, calibrated or scalable sourced parameter scaled (others at their values)\n")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "CLAIM\tPARAMETER\tVALUE\tMODEL")
	var fs []string
	for _, f := range bench.SensitivityFactors {
		fmt.Fprintf(tw, "\tx%g", f)
		fs = append(fs, fmt.Sprintf("x%g", f))
	}
	// One status per factor, in the factors' order, so the header names them.
	fmt.Fprintf(tw, "\tSTATUS %s\n", strings.Join(fs, " / "))
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s", row.Claim.ID, row.Param.Name, fmtValue(row.Param.Value), row.Param.Unit, fmtValue(row.Base.Model))
		var st []string
		for _, r := range row.Scaled {
			fmt.Fprintf(tw, "\t%s", fmtValue(r.Model))
			st = append(st, string(r.Status))
		}
		fmt.Fprintf(tw, "\t%s\n", strings.Join(st, " / "))
	}
	return tw.Flush()
}

type jsonResult struct {
	ID           string        `json:"id"`
	Source       string        `json:"source"`
	Text         string        `json:"text"`
	Quote        string        `json:"quote,omitempty"`
	Scenario     string        `json:"scenario"`
	Variant      string        `json:"variant"`
	Published    float64       `json:"published"`
	Model        *float64      `json:"model"`
	Replicas     int           `json:"replicas"`
	Values       []*float64    `json:"values,omitempty"`
	SD           *float64      `json:"sd,omitempty"`
	Interval     []*float64    `json:"interval,omitempty"`
	Unit         string        `json:"unit"`
	Accepted     string        `json:"accepted"`
	Status       string        `json:"status"`
	Reason       string        `json:"reason,omitempty"`
	Recorded     *bench.Record `json:"recorded,omitempty"`
	CalibratedBy []string      `json:"calibrated_by,omitempty"`
	Error        string        `json:"error,omitempty"`
}

type jsonScenario struct {
	Name     string          `json:"name"`
	Source   bench.SourceDoc `json:"source"`
	Lore     string          `json:"lore_search"`
	Variants []string        `json:"variants"`
	Params   []bench.Param   `json:"params"`
}

type jsonSens struct {
	ID     string              `json:"id"`
	Param  string              `json:"param"`
	Value  float64             `json:"value"`
	Unit   string              `json:"unit"`
	Model  *float64            `json:"model"`
	Scaled map[string]*float64 `json:"scaled"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func writeClaimsJSON(w io.Writer, results []bench.Result, sens []bench.SensitivityRow) error {
	out := make([]jsonResult, 0, len(results))
	used := map[string]bool{}
	for _, r := range results {
		c := r.Claim
		j := jsonResult{ID: c.ID, Source: c.Source, Text: c.Text, Quote: c.Quote, Scenario: c.Scenario, Variant: c.Variant,
			Published: c.Published, Model: finite(r.Model), Unit: c.Unit, Accepted: c.Bounds(), Status: string(r.Status),
			Reason: r.Reason, Recorded: c.Recorded, CalibratedBy: r.CalibratedBy, Replicas: len(r.Values)}
		if len(r.Values) > 1 {
			for _, v := range r.Values {
				j.Values = append(j.Values, finite(v))
			}
			j.SD = finite(r.SD)
			j.Interval = []*float64{finite(r.Interval[0]), finite(r.Interval[1])}
		}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		used[c.Scenario] = true
		out = append(out, j)
	}
	var scen []jsonScenario
	for _, s := range bench.Scenarios() {
		if !used[s.Name] {
			continue
		}
		d := bench.SourceDocs[s.Source]
		scen = append(scen, jsonScenario{Name: s.Name, Source: d, Lore: d.LoreSearch(), Variants: s.Variants, Params: s.Params})
	}
	doc := map[string]any{"claims": out, "scenarios": scen}
	if sens != nil {
		var js []jsonSens
		for _, row := range sens {
			s := jsonSens{ID: row.Claim.ID, Param: row.Param.Name, Value: row.Param.Value, Unit: row.Param.Unit,
				Model: finite(row.Base.Model), Scaled: map[string]*float64{}}
			for i, f := range bench.SensitivityFactors {
				s.Scaled[fmt.Sprintf("x%g", f)] = finite(row.Scaled[i].Model)
			}
			js = append(js, s)
		}
		doc["sensitivity"] = js
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// showClaim prints how claim id is computed and its source, then runs it.
func showClaim(w io.Writer, claims []bench.Claim, id string, seed uint64, replicas int) error {
	var c *bench.Claim
	for i := range claims {
		if claims[i].ID == id {
			c = &claims[i]
		}
	}
	if c == nil {
		var ids []string
		for _, c := range claims {
			if strings.HasPrefix(c.ID, id) {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) == 0 {
			for _, c := range claims {
				ids = append(ids, c.ID)
			}
		}
		return &exitError{2, fmt.Errorf("--show %q: no such claim id (e.g. %s)", id, strings.Join(first(ids, 5), ", "))}
	}
	s, ok := bench.Lookup(c.Scenario)
	fmt.Fprintf(w, "claim      %s: %s\n", c.ID, c.Text)
	d := bench.SourceDocs[c.Source]
	fmt.Fprintf(w, "source     %s: %q, %s", c.Source, d.Subject, d.Author)
	if d.Date != "" {
		fmt.Fprintf(w, ", %s", d.Date)
	}
	fmt.Fprintln(w)
	if d.MessageID != "" {
		fmt.Fprintf(w, "message-id %s\n", d.MessageID)
	} else {
		fmt.Fprintf(w, "message-id (removed from the seed)\n")
	}
	fmt.Fprintf(w, "lore       %s\n", d.LoreSearch())
	if d.Commit != "" {
		fmt.Fprintf(w, "commit     %s\n", d.Commit)
	}
	if d.Note != "" {
		fmt.Fprintf(w, "note       %s\n", d.Note)
	}
	if c.Quote != "" {
		fmt.Fprintf(w, "published  %s %s, quoted: %q\n", fmtValue(c.Published), c.Unit, c.Quote)
	} else {
		fmt.Fprintf(w, "published  %s %s\n", fmtValue(c.Published), c.Unit)
	}
	fmt.Fprintf(w, "scenario   %s (bench), variant %s", c.Scenario, c.Variant)
	if c.Over != "" {
		fmt.Fprintf(w, " over variant %s", c.Over)
	}
	fmt.Fprintln(w)
	switch {
	case c.Thresholds != nil:
		var th []string
		for k, v := range c.Thresholds {
			th = append(th, fmt.Sprintf("%s >= %g", k, v))
		}
		fmt.Fprintf(w, "metric     number of sweep points with %s\n", strings.Join(th, " and "))
	case c.Over != "":
		fmt.Fprintf(w, "metric     %s of %s / %s of %s\n", c.Metric, c.Variant, c.Metric, c.Over)
	default:
		fmt.Fprintf(w, "metric     %s\n", c.Metric)
	}
	fmt.Fprintf(w, "accepted   %s\n", c.Bounds())
	if c.KnownMiss != "" {
		fmt.Fprintf(w, "known miss %s\n", c.KnownMiss)
	}
	if c.Recorded != nil {
		fmt.Fprintf(w, "recorded   %s, band [%s, %s]\n", fmtValue(c.Recorded.Model), fmtValue(c.Recorded.Band[0]), fmtValue(c.Recorded.Band[1]))
	}
	if !ok {
		return &exitError{2, fmt.Errorf("--show %s: scenario %q is not registered", id, c.Scenario)}
	}
	fmt.Fprintf(w, "variants   %d (the policy switch and workload of each run; everything else is one parameter set)\n", len(s.Variants))
	if len(s.Params) > 0 {
		fmt.Fprintln(w, "parameters")
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		for _, p := range s.Params {
			fmt.Fprintf(tw, "  %s\t%s %s\t%s\t%s\n", p.Name, fmtValue(p.Value), p.Unit, p.Basis, p.Ref)
		}
		if err := tw.Flush(); err != nil {
			return &exitError{2, err}
		}
	}
	r := bench.EvaluateWith(context.Background(), []bench.Claim{*c}, bench.Options{Seed: seed, Replicas: replicas})[0]
	fmt.Fprintf(w, "model      %s %s: %s", fmtValue(r.Model), c.Unit, r.Status)
	if r.Reason != "" {
		fmt.Fprintf(w, " (%s)", r.Reason)
	}
	fmt.Fprintln(w)
	if len(r.Values) > 1 {
		vs := make([]string, len(r.Values))
		for i, v := range r.Values {
			vs[i] = fmtValue(v)
		}
		fmt.Fprintf(w, "replicas   %d (jitter seeds 1-%d): mean %s, sd %s, 95%% interval %s-%s; values %s", len(r.Values), len(r.Values),
			fmtValue(r.Model), fmtValue(r.SD), fmtValue(r.Interval[0]), fmtValue(r.Interval[1]), strings.Join(vs, " "))
		fmt.Fprintln(w)
	}
	for _, name := range r.CalibratedBy {
		for _, p := range s.Params {
			if p.Name == name {
				fmt.Fprintf(w, "calibrated %s was derived from the published cells %s: this figure is not evidence of the model\n", name, strings.Join(p.Cells, ", "))
			}
		}
	}
	if r.Err != nil {
		fmt.Fprintf(w, "error      %v\n", r.Err)
	}
	return claimsExit([]bench.Result{r})
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
