package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
)

// TestCostParamsScale checks that each per-step cost parameter reaches the cost table
// its scenario builds, alone, and that every scenario of the issue-15 claims has one.
func TestCostParamsScale(t *testing.T) {
	for _, name := range []string{"smartpqi", "scsi-mq", "budget-map"} {
		ps := CostParams(name)
		if len(ps) == 0 {
			t.Fatalf("%s: no cost parameters", name)
		}
		for _, p := range ps {
			if err := p.check(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	base := scaleContention(dispatch.DefaultCPUCosts(), nil)
	for _, st := range costSteps {
		c := scaleContention(dispatch.DefaultCPUCosts(), Scale{ParamCostPrefix + st.field: 2})
		if got, want := *st.get(&c), 2**st.get(&base); got != want && st.field != "SubmitSyscall" {
			t.Errorf("%s x2 = %d, want %d", st.field, got, want)
		}
		n := 0
		for _, o := range costSteps {
			if *o.get(&c) != *o.get(&base) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s x2 changed %d steps, want 1", st.field, n)
		}
	}
	if CostParams("storvsc") != nil {
		t.Error("storvsc has cost parameters here; CostParams covers 001-003 only")
	}
}

// TestCostSensitivityTable prints the issue-15 sensitivity table (BENCHMARKS.md,
// "Round 10"): each contention and CPU cost of the 001, 002 and 003 scenarios halved
// and doubled, one at a time, on 001's two ratios, 002's patched mq-deadline read and
// 003's gain. It runs ~6 scenario runs per parameter and factor (about 20 min on 2
// loaded cores), so it runs only with BLKMQ_COST_SENSITIVITY set to an output file
// ("-" for the test log):
//
//	BLKMQ_COST_SENSITIVITY=/tmp/costsens.md go test -count=1 -timeout 2h -run TestCostSensitivityTable ./bench/
func TestCostSensitivityTable(t *testing.T) {
	out := os.Getenv("BLKMQ_COST_SENSITIVITY")
	if out == "" {
		t.Skip("set BLKMQ_COST_SENSITIVITY to an output file (or -) to run the cost sensitivity (slow)")
	}
	claims := costSensitivityClaims(t)
	if len(claims) != len(CostSensitivityClaims) {
		t.Fatalf("found %d of the claims %v", len(claims), CostSensitivityClaims)
	}
	ctx := context.Background()
	o := Options{Seed: 1}
	base := EvaluateWith(ctx, claims, o)
	rows, err := CostSensitivity(ctx, claims, base, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, s := range r.Scaled {
			if s.Status == Failed {
				t.Errorf("%s with %s scaled: %v", r.Claim.ID, r.Param.Name, s.Err)
			}
		}
	}
	var b strings.Builder
	b.WriteString("Parameters (value as the scenario charges it; basis as the code states it):\n\n")
	for _, sc := range []string{"smartpqi", "scsi-mq", "budget-map"} {
		for _, p := range CostParams(sc) {
			b.WriteString("- " + sc + " " + p.Name + " = " + fmtSens(p.Value) + " " + p.Unit + " (" + string(p.Basis) + "): " + p.Ref + "\n")
		}
	}
	b.WriteString("\n" + FormatCostSensitivity(rows))
	if out == "-" {
		t.Log("\n" + b.String())
		return
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCostSensitivitySpread prints the same claims at their base parameters under
// workload seeds 1-3 and jitter streams 1-4 (JitterSeedParam): the model's own
// spread, against which a sensitivity row is read (a claim whose value moves as far
// with the jitter stream as with a halved cost is in a timing-chaotic regime, not
// sensitive to that cost). Gated like TestCostSensitivityTable:
//
//	BLKMQ_COST_SENSITIVITY=- go test -count=1 -v -run TestCostSensitivitySpread ./bench/
func TestCostSensitivitySpread(t *testing.T) {
	if os.Getenv("BLKMQ_COST_SENSITIVITY") == "" {
		t.Skip("set BLKMQ_COST_SENSITIVITY to run the spread (slow)")
	}
	claims := costSensitivityClaims(t)
	var b strings.Builder
	b.WriteString("| run |")
	for _, c := range claims {
		b.WriteString(" " + c.ID + " |")
	}
	b.WriteString("\n|---|")
	for range claims {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	row := func(name string, o Options) {
		b.WriteString("| " + name + " |")
		for _, r := range EvaluateWith(context.Background(), claims, o) {
			in, _ := r.Claim.Within(r.Model)
			v := fmtSens(r.Model)
			if !in {
				v = "**" + v + " out**"
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		row(fmt.Sprintf("seed %d", seed), Options{Seed: seed})
	}
	for j := 1; j <= 4; j++ {
		row(fmt.Sprintf("seed 1, jitter %d", j), Options{Seed: 1, Scale: Scale{JitterSeedParam: float64(j)}})
	}
	t.Log("\n" + b.String())
}

// costSensitivityClaims returns the claims of CostSensitivityClaims found in the
// embedded claims file, in that order.
func costSensitivityClaims(t *testing.T) []Claim {
	t.Helper()
	all, err := DefaultClaims()
	if err != nil {
		t.Fatal(err)
	}
	var claims []Claim
	for _, id := range CostSensitivityClaims {
		for _, c := range all {
			if c.ID == id {
				claims = append(claims, c)
			}
		}
	}
	return claims
}
