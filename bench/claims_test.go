package bench

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

func ptr(v float64) *float64 { return &v }

func TestWithin(t *testing.T) {
	tests := []struct {
		name         string
		c            Claim
		v            float64
		ok, isJudged bool
	}{
		{"rel/inside", Claim{Published: 100, Tolerance: ptr(0.2)}, 119, true, true},
		{"rel/edge", Claim{Published: 100, Tolerance: ptr(0.2)}, 80, true, true},
		{"rel/outside", Claim{Published: 100, Tolerance: ptr(0.2)}, 121, false, true},
		{"min/below", Claim{Published: 3, Min: ptr(2.5)}, 2.4, false, true},
		{"min/above", Claim{Published: 3, Min: ptr(2.5)}, 9, true, true},
		{"range/inside", Claim{Published: 1, Min: ptr(0.95), Max: ptr(1.05)}, 1.01, true, true},
		{"range/above", Claim{Published: 1, Min: ptr(0.95), Max: ptr(1.05)}, 1.06, false, true},
		{"nan", Claim{Published: 1, Tolerance: ptr(0.5)}, math.NaN(), false, true},
		{"info", Claim{Published: 1}, 7, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, judged := tt.c.Within(tt.v)
			if ok != tt.ok || judged != tt.isJudged {
				t.Errorf("Within(%g) = %v, %v; want %v, %v", tt.v, ok, judged, tt.ok, tt.isJudged)
			}
		})
	}
}

func TestLoadClaimsRejects(t *testing.T) {
	bad := map[string]string{
		"unknown field": `{"claims":[{"id":"a","scenario":"s","variant":"v","metric":"m","bogus":1}]}`,
		"duplicate id":  `{"claims":[{"id":"a","scenario":"s","variant":"v","metric":"m"},{"id":"a","scenario":"s","variant":"v","metric":"m"}]}`,
		"no metric":     `{"claims":[{"id":"a","scenario":"s","variant":"v"}]}`,
		"tolerance":     `{"claims":[{"id":"a","scenario":"s","variant":"v","metric":"m","tolerance":1.5}]}`,
	}
	for name, in := range bad {
		if _, err := LoadClaims([]byte(in)); err == nil {
			t.Errorf("%s: LoadClaims accepted %s", name, in)
		}
	}
}

// TestDefaultClaims checks the committed claims file: it parses, every claim is judged
// or explicitly informational, and every "over" names a variant of the same scenario
// when the scenario is registered.
func TestDefaultClaims(t *testing.T) {
	claims, err := DefaultClaims()
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) < 40 {
		t.Fatalf("only %d claims; the five sources have 45", len(claims))
	}
	for _, c := range claims {
		s, ok := Lookup(c.Scenario)
		if !ok {
			continue
		}
		for _, v := range []string{c.Variant, c.Over} {
			if v == "" {
				continue
			}
			found := false
			for _, sv := range s.Variants {
				found = found || sv == v
			}
			if !found {
				t.Errorf("claim %s: scenario %s has no variant %q (has %v)", c.ID, c.Scenario, v, s.Variants)
			}
		}
	}
}

func TestEvaluateRatioAndErrors(t *testing.T) {
	const name = "test-fake-scenario"
	if _, ok := Lookup(name); !ok {
		Register(Scenario{Name: name, Variants: []string{"p=a", "p=b", "p=err"}, Run: func(v string, seed uint64) (map[string]float64, error) {
			switch v {
			case "p=a":
				return map[string]float64{"x": 30}, nil
			case "p=b":
				return map[string]float64{"x": 10}, nil
			}
			return nil, errors.New("boom")
		}})
	}
	claims := []Claim{
		{ID: "ratio", Scenario: name, Variant: "p=a", Over: "p=b", Metric: "x", Published: 3, Tolerance: ptr(0.1)},
		{ID: "miss", Scenario: name, Variant: "p=b", Metric: "x", Published: 20, Tolerance: ptr(0.1)},
		{ID: "err", Scenario: name, Variant: "p=err", Metric: "x", Published: 1, Tolerance: ptr(0.1)},
		{ID: "nometric", Scenario: name, Variant: "p=a", Metric: "y", Published: 1, Tolerance: ptr(0.1)},
		{ID: "pending", Scenario: "no-such-scenario", Variant: "v", Metric: "x", Published: 1},
	}
	want := map[string]Status{"ratio": Met, "miss": Missed, "err": Failed, "nometric": Failed, "pending": Pending}
	for _, r := range Evaluate(context.Background(), claims, 1, 2) {
		if r.Status != want[r.Claim.ID] {
			t.Errorf("%s: status %s (model %g, err %v), want %s", r.Claim.ID, r.Status, r.Model, r.Err, want[r.Claim.ID])
		}
		if r.Claim.ID == "ratio" && r.Model != 3 {
			t.Errorf("ratio model = %g, want 3", r.Model)
		}
	}
}

// TestClaims runs every registered scenario and asserts each published figure within its
// tolerance. A claim the model is known to miss (known_miss in claims.json) skips with the
// measured value and the mechanism believed missing; any other miss fails.
func TestClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario; skipped with -short")
	}
	claims, err := DefaultClaims()
	if err != nil {
		t.Fatal(err)
	}
	var real []Claim
	for _, c := range claims {
		if !strings.HasPrefix(c.Scenario, "test-") {
			real = append(real, c)
		}
	}
	for _, r := range Evaluate(context.Background(), real, 1, 0) {
		t.Run(r.Claim.ID, func(t *testing.T) {
			switch r.Status {
			case Pending:
				t.Skipf("scenario %q not modelled yet (issue %d)", r.Claim.Scenario, r.Claim.Issue)
			case Failed:
				t.Fatalf("scenario error: %v", r.Err)
			case Missed:
				if r.Claim.KnownMiss != "" {
					t.Skipf("known miss: model %.4g, published %.4g %s (%s): %s", r.Model, r.Claim.Published, r.Claim.Unit, r.Claim.Bounds(), r.Claim.KnownMiss)
				}
				t.Errorf("model %.4g, published %.4g %s, accepted %s", r.Model, r.Claim.Published, r.Claim.Unit, r.Claim.Bounds())
			default:
				t.Logf("%s: model %.4g, published %.4g %s (%s)", r.Status, r.Model, r.Claim.Published, r.Claim.Unit, r.Claim.Bounds())
			}
		})
	}
}
