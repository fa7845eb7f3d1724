package bench

import (
	"context"
	"sort"
)

// SensitivityFactors are the multipliers a sensitivity run applies to each assumed
// parameter: halved and doubled.
var SensitivityFactors = []float64{0.5, 2}

// SensitivityRow is one claim's value with one assumed parameter scaled.
type SensitivityRow struct {
	Claim Claim
	// Param is the scaled parameter (Scenario.Params).
	Param Param
	// Base is the model value with every parameter at its value.
	Base Result
	// Scaled holds, per SensitivityFactors entry, the claim's result with Param
	// multiplied by that factor.
	Scaled []Result
}

// Sensitivity evaluates the claims with each scalable assumed (and calibrated) parameter of their
// scenarios halved and doubled, one parameter at a time (all other parameters at
// their values). base are the claims' unscaled results (from Evaluate with the same
// seed). Rows are ordered by claim, then parameter name. It runs
// len(SensitivityFactors) × (scalable assumed parameters) × (variants) scenario runs,
// so it is slow; `blkmq claims` runs it only with --sensitivity.
func Sensitivity(ctx context.Context, claims []Claim, base []Result, o Options) []SensitivityRow {
	baseByID := map[string]Result{}
	for _, r := range base {
		baseByID[r.Claim.ID] = r
	}
	byScenario := map[string][]Claim{}
	var names []string
	for _, c := range claims {
		if _, ok := byScenario[c.Scenario]; !ok {
			names = append(names, c.Scenario)
		}
		byScenario[c.Scenario] = append(byScenario[c.Scenario], c)
	}
	sort.Strings(names)
	rows := map[string][]SensitivityRow{}
	for _, name := range names {
		s, ok := Lookup(name)
		if !ok || s.RunScaled == nil {
			continue
		}
		cs := byScenario[name]
		for _, p := range s.Params {
			if p.Basis == BasisSourced || !p.Scalable {
				continue
			}
			scaled := make([][]Result, len(SensitivityFactors))
			for i, f := range SensitivityFactors {
				so := o
				so.Scale = Scale{p.Name: f}
				scaled[i] = EvaluateWith(ctx, cs, so)
			}
			for k, c := range cs {
				row := SensitivityRow{Claim: c, Param: p, Base: baseByID[c.ID]}
				for i := range SensitivityFactors {
					row.Scaled = append(row.Scaled, scaled[i][k])
				}
				rows[c.ID] = append(rows[c.ID], row)
			}
		}
	}
	var out []SensitivityRow
	for _, c := range claims {
		out = append(out, rows[c.ID]...)
	}
	return out
}
