package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/blkmq/blkmq/bench"
	"github.com/spf13/cobra"
)

func newClaimsCmd() *cobra.Command {
	var (
		seed     uint64
		format   string
		parallel int
		only     string
	)
	cmd := &cobra.Command{
		Use:   "claims",
		Short: "Reproduce the published figures of the source documents",
		Long: `claims runs every scenario of testdata/claims.json that is modelled so far and
prints, for each published figure: the claim, the published value, the model's value,
the accepted range and whether the model is within it. Claims whose scenario is not
modelled yet are listed as pending.

Exit status 1 if any claim is outside its tolerance or a scenario fails.`,
		Example: `  blkmq claims
  blkmq claims --only 000/ --format json
  blkmq claims --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return &exitError{2, fmt.Errorf("--format %q: allowed values are text, json", format)}
			}
			if parallel < 0 {
				return &exitError{2, fmt.Errorf("--parallel %d: must be >= 0 (0 = all CPUs)", parallel)}
			}
			claims, err := bench.DefaultClaims()
			if err != nil {
				return &exitError{2, err}
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
			var results []bench.Result
			withElapsed(cmd, fmt.Sprintf("blkmq claims: running the scenarios of %d claims", len(claims)), func() { results = bench.Evaluate(context.Background(), claims, seed, parallel) })
			if format == "json" {
				err = writeClaimsJSON(cmd.OutOrStdout(), results)
			} else {
				err = writeClaimsText(cmd.OutOrStdout(), results)
			}
			if err != nil {
				return &exitError{2, err}
			}
			for _, r := range results {
				if r.Status == bench.Missed || r.Status == bench.Failed {
					return &exitError{1, nil}
				}
			}
			return nil
		},
	}
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the fio workloads' random offsets and read/write mix (PCG); model timing jitter uses its own fixed stream")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().IntVar(&parallel, "parallel", 0, "scenario runs at once (0 = all CPUs)")
	cmd.Flags().StringVar(&only, "only", "", "run only the claims whose id starts with this prefix (e.g. 000/)")
	return cmd
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

func writeClaimsText(w io.Writer, results []bench.Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tPUBLISHED\tMODEL\tUNIT\tACCEPTED\tSTATUS")
	counts := map[bench.Status]int{}
	for _, r := range results {
		counts[r.Status]++
		status := string(r.Status)
		if r.Status == bench.Pending {
			status = fmt.Sprintf("pending (issue %d)", r.Claim.Issue)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Claim.ID, fmtValue(r.Claim.Published), fmtValue(r.Model), r.Claim.Unit, r.Claim.Bounds(), status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(w, "error: %s: %v\n", r.Claim.ID, r.Err)
		}
	}
	_, err := fmt.Fprintf(w, "\n%d met, %d missed, %d errors, %d informational, %d pending (not modelled yet)\n",
		counts[bench.Met], counts[bench.Missed], counts[bench.Failed], counts[bench.Info], counts[bench.Pending])
	return err
}

type jsonResult struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Text      string   `json:"text"`
	Published float64  `json:"published"`
	Model     *float64 `json:"model"`
	Unit      string   `json:"unit"`
	Accepted  string   `json:"accepted"`
	Status    string   `json:"status"`
	Error     string   `json:"error,omitempty"`
}

func writeClaimsJSON(w io.Writer, results []bench.Result) error {
	out := make([]jsonResult, 0, len(results))
	for _, r := range results {
		j := jsonResult{ID: r.Claim.ID, Source: r.Claim.Source, Text: r.Claim.Text, Published: r.Claim.Published,
			Unit: r.Claim.Unit, Accepted: r.Claim.Bounds(), Status: string(r.Status)}
		if !math.IsNaN(r.Model) && !math.IsInf(r.Model, 0) {
			m := r.Model
			j.Model = &m
		}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"claims": out})
}
