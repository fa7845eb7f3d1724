package fio

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRandomDistributionFioRules: random_distribution= takes what fio's
// str_random_distribution_cb takes. Without ":PARAM" fio keeps its defaults
// (zipf 1.1, pareto 0.2, normal 0), which were refused ("zipf needs a number");
// zipf refuses only theta 1.0, so 0 and negative thetas run (they were refused as
// "must be > 0"); nan and inf are refused as no distribution.
func TestRandomDistributionFioRules(t *testing.T) {
	for _, tt := range []struct {
		name, v string
		want    Distribution
		err     string // "" = accepted
	}{
		{"zipf default", "zipf", Distribution{Kind: DistZipf, Param: 1.1, Center: -1}, ""},
		{"pareto default", "pareto", Distribution{Kind: DistPareto, Param: 0.2, Center: -1}, ""},
		{"normal default", "normal", Distribution{Kind: DistNormal, Param: 0, Center: -1}, ""},
		{"zipf theta 0", "zipf:0", Distribution{Kind: DistZipf, Param: 0, Center: -1}, ""},
		{"zipf negative theta", "zipf:-0.5", Distribution{Kind: DistZipf, Param: -0.5, Center: -1}, ""},
		{"zipf with center", "zipf:1.2:0.5", Distribution{Kind: DistZipf, Param: 1.2, Center: 0.5}, ""},
		{"zipf 1.0", "zipf:1", Distribution{}, "zipf theta must be different from 1.0"},
		{"zipf 1.0 spelt long", "zipf:1.000", Distribution{}, "zipf theta must be different from 1.0"},
		{"zipf nan", "zipf:nan", Distribution{}, "zipf needs a finite number, as zipf:1.2"},
		{"zipf inf", "zipf:-Inf", Distribution{}, "zipf needs a finite number"},
		{"zipf empty param", "zipf:", Distribution{}, "zipf needs a finite number"},
		{"pareto 1.2", "pareto:1.2", Distribution{}, "pareto h must be in (0, 1)"},
		{"pareto hint in range", "pareto:x", Distribution{}, "as pareto:0.2"},
		{"center nan", "zipf:1.2:nan", Distribution{}, `center "nan" out of range [0, 1]`},
		{"center 2", "pareto:0.3:2", Distribution{}, `center "2" out of range [0, 1]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randread\nrandom_distribution="+tt.v+"\n"), "d.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, specs[0].Dist); diff != "" {
				t.Errorf("Dist (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateDistribution: Spec.Validate applies the same ranges to a Spec built
// in Go, and also refuses a center that is neither -1 nor in [0, 1] (a NaN or
// negative center reached the offset generator's float-to-integer conversion).
func TestValidateDistribution(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    Distribution
		err  string // "" = valid
	}{
		{"zipf zero value theta", Distribution{Kind: DistZipf, Center: -1}, ""},
		{"zipf negative", Distribution{Kind: DistZipf, Param: -3, Center: -1}, ""},
		{"zipf 1", Distribution{Kind: DistZipf, Param: 1, Center: -1}, "zipf theta must be different from 1.0"},
		{"zipf nan", Distribution{Kind: DistZipf, Param: math.NaN(), Center: -1}, "not a finite number"},
		{"pareto 0", Distribution{Kind: DistPareto, Center: -1}, "pareto h must be in (0, 1)"},
		{"normal 1e300", Distribution{Kind: DistNormal, Param: 1e300, Center: -1}, "normal deviation must be in [0, 100) percent"},
		{"normal center -0.5", Distribution{Kind: DistNormal, Param: 5, Center: -0.5}, "random_distribution center -0.5 out of range [0, 1] (or -1 = none)"},
		{"center nan", Distribution{Kind: DistZipf, Param: 1.2, Center: math.NaN()}, "random_distribution center NaN out of range"},
		{"random zero value", Distribution{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randread\n"), "d.fio")
			if err != nil {
				t.Fatal(err)
			}
			s := specs[0]
			s.Dist = tt.d
			err = s.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}
