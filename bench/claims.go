package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/blkmq/blkmq"
	"golang.org/x/sync/errgroup"
)

// Claim is one published figure with its tolerance, as stored in testdata/claims.json.
//
// The modelled value is Metric of (Scenario, Variant); when Over is set it is the ratio
// of that value over the same metric of (Scenario, Over). A claim is met when the
// modelled value is within Tolerance (relative to Published) and within [Min, Max]
// where those are given. A claim with none of the three is informational: reported,
// never judged.
type Claim struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Text      string   `json:"text"`
	Scenario  string   `json:"scenario"`
	Variant   string   `json:"variant"`
	Metric    string   `json:"metric"`
	Over      string   `json:"over,omitempty"`
	Published float64  `json:"published"`
	Unit      string   `json:"unit"`
	Tolerance *float64 `json:"tolerance,omitempty"`
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
	// Issue is the tracker issue that brings the scenario (informational).
	Issue int `json:"issue,omitempty"`
	// KnownMiss, when set, records why the model is known to miss this claim (the
	// measured value and the mechanism believed missing). The claims test skips
	// such a claim with this text instead of failing; `blkmq claims` still shows it
	// as missed.
	KnownMiss string `json:"known_miss,omitempty"`
}

type claimsFile struct {
	About  string  `json:"about"`
	Claims []Claim `json:"claims"`
}

// LoadClaims decodes a claims file (the schema of testdata/claims.json). Unknown
// fields are errors, as are claims without an id, scenario, variant or metric, and
// duplicate ids.
func LoadClaims(data []byte) ([]Claim, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f claimsFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("bench: claims: %w", err)
	}
	seen := map[string]bool{}
	for i, c := range f.Claims {
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("bench: claims[%d]: empty id", i)
		case seen[c.ID]:
			return nil, fmt.Errorf("bench: claims[%d]: duplicate id %q", i, c.ID)
		case c.Scenario == "" || c.Variant == "" || c.Metric == "":
			return nil, fmt.Errorf("bench: claim %q: scenario, variant and metric are required", c.ID)
		case c.Tolerance != nil && (*c.Tolerance <= 0 || *c.Tolerance >= 1):
			return nil, fmt.Errorf("bench: claim %q: tolerance %g out of range (0, 1)", c.ID, *c.Tolerance)
		}
		seen[c.ID] = true
	}
	return f.Claims, nil
}

// DefaultClaims returns the claims embedded from testdata/claims.json.
func DefaultClaims() ([]Claim, error) { return LoadClaims(blkmq.ClaimsJSON) }

// Status is the outcome of one claim.
type Status string

// Claim outcomes.
const (
	Met     Status = "met"     // model within tolerance
	Missed  Status = "MISSED"  // model outside tolerance
	Info    Status = "info"    // no tolerance: reported only
	Pending Status = "pending" // no scenario registered yet
	Failed  Status = "ERROR"   // the scenario returned an error
)

// Result is the evaluation of one claim.
type Result struct {
	Claim  Claim
	Model  float64 // modelled value (NaN when pending or failed)
	Status Status
	Err    error
}

// Within reports whether v satisfies the claim's tolerance and bounds, and whether the
// claim is judged at all.
func (c Claim) Within(v float64) (ok, judged bool) {
	ok = !math.IsNaN(v) && !math.IsInf(v, 0)
	if c.Tolerance != nil {
		judged = true
		ok = ok && math.Abs(v-c.Published) <= *c.Tolerance*math.Abs(c.Published)
	}
	if c.Min != nil {
		judged = true
		ok = ok && v >= *c.Min
	}
	if c.Max != nil {
		judged = true
		ok = ok && v <= *c.Max
	}
	return ok, judged
}

// Bounds describes the accepted range in words, e.g. "±20%" or "[2.5, ∞)".
func (c Claim) Bounds() string {
	s := ""
	if c.Tolerance != nil {
		s = fmt.Sprintf("±%g%%", *c.Tolerance*100)
	}
	if c.Min != nil || c.Max != nil {
		lo, hi := "-inf", "+inf"
		if c.Min != nil {
			lo = fmt.Sprintf("%g", *c.Min)
		}
		if c.Max != nil {
			hi = fmt.Sprintf("%g", *c.Max)
		}
		if s != "" {
			s += " "
		}
		s += "[" + lo + ", " + hi + "]"
	}
	if s == "" {
		s = "-"
	}
	return s
}

type runKey struct{ scenario, variant string }

// Evaluate runs every (scenario, variant) the claims need — in parallel, at most
// parallel at a time (≤ 0 means GOMAXPROCS) — and judges each claim. Each run is
// deterministic for seed, so the results do not depend on parallel. A scenario that is
// not registered leaves its claims Pending.
func Evaluate(ctx context.Context, claims []Claim, seed uint64, parallel int) []Result {
	need := map[runKey]bool{}
	for _, c := range claims {
		if _, ok := Lookup(c.Scenario); !ok {
			continue
		}
		need[runKey{c.Scenario, c.Variant}] = true
		if c.Over != "" {
			need[runKey{c.Scenario, c.Over}] = true
		}
	}
	keys := make([]runKey, 0, len(need))
	for k := range need {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].scenario != keys[j].scenario {
			return keys[i].scenario < keys[j].scenario
		}
		return keys[i].variant < keys[j].variant
	})

	type runOut struct {
		m   map[string]float64
		err error
	}
	var mu sync.Mutex
	runs := map[runKey]runOut{}
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for _, k := range keys {
		g.Go(func() error {
			var out runOut
			if err := gctx.Err(); err != nil {
				out.err = err
			} else {
				s, _ := Lookup(k.scenario)
				out.m, out.err = s.Run(k.variant, seed)
			}
			mu.Lock()
			runs[k] = out
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()

	metric := func(k runKey, name string) (float64, error) {
		r := runs[k]
		if r.err != nil {
			return math.NaN(), fmt.Errorf("%s %s: %w", k.scenario, k.variant, r.err)
		}
		v, ok := r.m[name]
		if !ok {
			return math.NaN(), fmt.Errorf("%s %s: no metric %q", k.scenario, k.variant, name)
		}
		return v, nil
	}

	out := make([]Result, 0, len(claims))
	for _, c := range claims {
		r := Result{Claim: c, Model: math.NaN()}
		if _, ok := Lookup(c.Scenario); !ok {
			r.Status = Pending
			out = append(out, r)
			continue
		}
		v, err := metric(runKey{c.Scenario, c.Variant}, c.Metric)
		if err == nil && c.Over != "" {
			var d float64
			d, err = metric(runKey{c.Scenario, c.Over}, c.Metric)
			v /= d
		}
		r.Model = v
		switch ok, judged := c.Within(v); {
		case err != nil:
			r.Status, r.Err = Failed, err
		case !judged:
			r.Status = Info
		case ok:
			r.Status = Met
		default:
			r.Status = Missed
		}
		out = append(out, r)
	}
	return out
}
