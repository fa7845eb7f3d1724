package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/blkmq/blkmq"
	"golang.org/x/sync/errgroup"
)

// Claim is one published figure with its tolerance, as stored in testdata/claims.json.
//
// The modelled value is Metric of (Scenario, Variant); when Over is set it is the ratio
// of that value over the same metric of (Scenario, Over); when Thresholds is set it is
// the number of sweep points of the run that meet every threshold (see Thresholds). A
// claim is met when the modelled value is within Tolerance (relative to Published) and
// within [Min, Max] where those are given. A claim with none of the three is
// informational: its value is held to its Recorded band instead.
type Claim struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Text   string `json:"text"`
	// Quote is the published figure as the source states it (verbatim excerpt).
	Quote     string   `json:"quote,omitempty"`
	Scenario  string   `json:"scenario"`
	Variant   string   `json:"variant"`
	Metric    string   `json:"metric"`
	Over      string   `json:"over,omitempty"`
	Published float64  `json:"published"`
	Unit      string   `json:"unit"`
	Tolerance *float64 `json:"tolerance,omitempty"`
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
	// Thresholds, when set, makes the claim a count over the sweep points of its run:
	// the scenario reports metrics named "<point>/<name>" (e.g. "nr-16/wal-IOPS") and
	// the modelled value is the number of points whose every named metric is >= its
	// threshold. The acceptance thresholds of a sweep are data here, not code.
	Thresholds map[string]float64 `json:"thresholds,omitempty"`
	// Issue is the tracker issue that brings the scenario (informational).
	Issue int `json:"issue,omitempty"`
	// KnownMiss, when set, records why the model is known to miss this claim: the
	// mechanism believed missing. The value the model reaches is held to Recorded;
	// leaving that band, or starting to meet the claim, is an unexpected result until
	// the record is updated (`blkmq claims --record`).
	KnownMiss string `json:"known_miss,omitempty"`
	// NotRobust, when set, says why a figure within its tolerance is still not counted
	// as met: the parameters (assumed, or a sourced proxy), each within its plausible
	// range, under which the figure leaves its tolerance, and the sensitivity run that
	// shows it. Such a claim reports NotRobust instead of Met; outside its tolerance
	// it is judged as any other claim.
	NotRobust string `json:"not_robust,omitempty"`
	// Recorded is the model value last recorded for a known miss or an informational
	// claim, with the band it must stay in. A not-robust claim may carry one too; its
	// mean must then stay in the band.
	Recorded *Record `json:"recorded,omitempty"`
	// Replicas is the number of model runs of each (scenario, variant) this claim is
	// judged from, with jitter seeds 1 … Replicas (stack.Config.JitterSeed: kblockd,
	// wake-up and reap delays, tag hints; seed 1 is the default stream). 0 means 1.
	// Options.Replicas (`blkmq claims --replicas`) overrides it for every claim. The
	// claim is judged on the replicas' 95 % interval (Result.Interval), so a figure
	// that leaves its tolerance on some jitter streams is not met.
	Replicas int `json:"replicas,omitempty"`
}

// MaxReplicas bounds Claim.Replicas and Options.Replicas.
const MaxReplicas = 1000

// Record is the recorded model value of a known miss or an informational claim.
type Record struct {
	// Model is the value the model gave when the record was written (seed 1).
	Model float64 `json:"model"`
	// Band is the closed range [lo, hi] the model value must stay in.
	Band [2]float64 `json:"band"`
	// Reason is a short form of the miss (the table's reason column).
	Reason string `json:"reason,omitempty"`
}

// In reports whether v lies in the record's band.
func (r *Record) In(v float64) bool {
	return r != nil && !math.IsNaN(v) && v >= r.Band[0] && v <= r.Band[1]
}

type claimsFile struct {
	About  string  `json:"about"`
	Claims []Claim `json:"claims"`
}

// LoadClaims decodes a claims file (the schema of testdata/claims.json). Unknown
// fields are errors, as are claims without an id, scenario, variant or metric,
// duplicate ids, a tolerance outside (0, 1), a band with lo > hi, and a known miss
// without a recorded band.
func LoadClaims(data []byte) ([]Claim, error) {
	f, err := decodeClaims(data)
	if err != nil {
		return nil, err
	}
	return f.Claims, nil
}

func decodeClaims(data []byte) (claimsFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f claimsFile
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("bench: claims: %w", err)
	}
	seen := map[string]bool{}
	for i, c := range f.Claims {
		switch {
		case c.ID == "":
			return f, fmt.Errorf("bench: claims[%d]: empty id", i)
		case seen[c.ID]:
			return f, fmt.Errorf("bench: claims[%d]: duplicate id %q", i, c.ID)
		case c.Scenario == "" || c.Variant == "" || c.Metric == "":
			return f, fmt.Errorf("bench: claim %q: scenario, variant and metric are required", c.ID)
		case c.Tolerance != nil && (*c.Tolerance <= 0 || *c.Tolerance >= 1):
			return f, fmt.Errorf("bench: claim %q: tolerance %g out of range (0, 1)", c.ID, *c.Tolerance)
		case c.Recorded != nil && !(c.Recorded.Band[0] <= c.Recorded.Band[1]):
			return f, fmt.Errorf("bench: claim %q: recorded band [%g, %g] has lo > hi", c.ID, c.Recorded.Band[0], c.Recorded.Band[1])
		case c.KnownMiss != "" && c.Recorded == nil:
			return f, fmt.Errorf("bench: claim %q: known_miss needs a recorded model value and band", c.ID)
		case c.Replicas < 0 || c.Replicas > MaxReplicas:
			return f, fmt.Errorf("bench: claim %q: replicas %d out of range [0, %d]", c.ID, c.Replicas, MaxReplicas)
		case c.Thresholds != nil && c.Over != "":
			return f, fmt.Errorf("bench: claim %q: thresholds and over cannot be combined", c.ID)
		}
		seen[c.ID] = true
	}
	return f, nil
}

// DefaultClaims returns the claims embedded from testdata/claims.json.
func DefaultClaims() ([]Claim, error) { return LoadClaims(blkmq.ClaimsJSON) }

// Status is the outcome of one claim.
type Status string

// Claim outcomes. Met, Calibrated, KnownMiss, NotRobust and Info are expected; Unexpected,
// Spread and Moved make `blkmq claims` exit 1 and TestClaims fail; Failed is an error (exit 2).
const (
	Met        Status = "met"              // within tolerance, predicted from sourced/assumed parameters
	Calibrated Status = "calibrated"       // within tolerance, but follows from a parameter fitted to this source's cells
	KnownMiss  Status = "known miss"       // outside tolerance, inside the recorded band
	NotRobust  Status = "not robust"       // within tolerance, but leaves it when an assumed parameter moves within its plausible range, or its replicas' interval crosses an edge of the tolerance (the claim records why)
	Spread     Status = "not met (spread)" // the replicas' 95 % interval crosses an edge of the tolerance, and the claim records no reason (not_robust)
	Info       Status = "info"             // not judged against the source; inside the recorded band
	Unexpected Status = "MISSED"           // outside tolerance with no known-miss record
	Moved      Status = "MOVED"            // a known miss or informational value left its band, or a known miss is now met
	Failed     Status = "ERROR"            // the scenario is not registered, returned an error or lacks the metric
)

// Expected reports whether s is an outcome that needs no action.
func (s Status) Expected() bool {
	return s == Met || s == Calibrated || s == KnownMiss || s == Info || s == NotRobust
}

// Result is the evaluation of one claim.
type Result struct {
	Claim Claim
	// Model is the modelled value (NaN when failed): with replicas, their mean.
	Model float64
	// Values holds the model value of each replica, in jitter-seed order (one entry
	// without replicas); SD is their sample standard deviation (0 for one replica).
	Values []float64
	SD     float64
	// Interval is the 95 % interval of one run's value, [lo, hi]: Model ± t(0.975,
	// n-1)·SD·sqrt(1+1/n) over n replicas ([Model, Model] for one).
	Interval [2]float64
	Status   Status
	// Reason is a short explanation for the table: the known miss's short reason, the
	// calibrated parameter the figure follows from, or what moved.
	Reason string
	// CalibratedBy names the calibrated parameters the figure follows from.
	CalibratedBy []string
	Err          error
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

// Bounds describes the accepted range in words, e.g. "±20%" or "[2.5, +inf]".
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

// Options control Evaluate.
type Options struct {
	// Seed is the workload seed of every run.
	Seed uint64
	// Parallel is the number of scenario runs at once (<= 0: GOMAXPROCS).
	Parallel int
	// Scale multiplies named scenario parameters (sensitivity runs); nil = defaults.
	Scale Scale
	// Replicas, when > 0, is the number of jitter replicas of every claim (each
	// claim's own Claim.Replicas otherwise). Replica r (1-based) runs with jitter seed
	// r; replica 1 is the run without replicas (Scale unchanged).
	Replicas int
	// Progress, when non-nil, is called after each (scenario, variant, replica) run
	// with the runs done and the runs needed, one call at a time; it does not change
	// the results.
	Progress func(done, total int)
}

// replicasOf is the number of replicas claim c is judged from under o.
func (o Options) replicasOf(c Claim) int {
	switch {
	case o.Replicas > 0:
		return min(o.Replicas, MaxReplicas)
	case c.Replicas > 0:
		return c.Replicas
	}
	return 1
}

// Evaluate runs every (scenario, variant) the claims need — in parallel, at most
// parallel at a time (≤ 0 means GOMAXPROCS) — and judges each claim. Each run is
// deterministic for seed, so the results do not depend on parallel.
func Evaluate(ctx context.Context, claims []Claim, seed uint64, parallel int) []Result {
	return EvaluateWith(ctx, claims, Options{Seed: seed, Parallel: parallel})
}

// runJob is one model run: a (scenario, variant) at one replica (1-based).
type runJob struct {
	k   runKey
	rep int
}

// runMetrics runs every (scenario, variant) the claims need, as many replicas as the
// claims that use it need (the largest), and returns their metrics (or errors) by
// scenario and variant, in replica order.
func runMetrics(ctx context.Context, claims []Claim, o Options) map[runKey][]runOut {
	need := map[runKey]int{}
	for _, c := range claims {
		if _, ok := Lookup(c.Scenario); !ok {
			continue
		}
		n := o.replicasOf(c)
		need[runKey{c.Scenario, c.Variant}] = max(need[runKey{c.Scenario, c.Variant}], n)
		if c.Over != "" {
			need[runKey{c.Scenario, c.Over}] = max(need[runKey{c.Scenario, c.Over}], n)
		}
	}
	keys := make([]runKey, 0, len(need))
	for k := range need {
		keys = append(keys, k)
	}
	sortLongestFirst(keys)
	// Replica 1 of every run first (in cost order), then replica 2, …: the long runs
	// still start first, and a run's replicas spread over the workers.
	var jobs []runJob
	for rep := 1; ; rep++ {
		added := false
		for _, k := range keys {
			if need[k] >= rep {
				jobs = append(jobs, runJob{k, rep})
				added = true
			}
		}
		if !added {
			break
		}
	}
	runs := map[runKey][]runOut{}
	for k, n := range need {
		runs[k] = make([]runOut, n)
	}
	var mu sync.Mutex
	done := 0
	filled := map[runJob]bool{} // the replicas whose run ended (set under mu)
	abandoned := false          // set when ctx ended the wait: later results are dropped
	parallel := o.Parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	all := make(chan struct{})
	go func() {
		defer close(all)
		for _, j := range jobs {
			g.Go(func() error {
				var out runOut
				if err := gctx.Err(); err != nil {
					out.err = err
				} else {
					out = runOne(j.k, o, j.rep)
				}
				mu.Lock()
				defer mu.Unlock()
				if abandoned {
					return nil
				}
				runs[j.k][j.rep-1] = out
				filled[j] = true
				done++
				if o.Progress != nil {
					o.Progress(done, len(jobs))
				}
				return nil
			})
		}
		_ = g.Wait()
	}()
	select {
	case <-all:
	case <-ctx.Done():
		// A scenario run cannot be stopped part-way (Scenario.Run takes no
		// context; the nr_requests sweep alone is tens of seconds of CPU), so a
		// cancelled ctx returns at once: the runs in flight finish in the
		// background and are dropped, and every replica not done carries ctx's
		// error.
		mu.Lock()
		abandoned = true
		out := make(map[runKey][]runOut, len(runs))
		for k, reps := range runs {
			cp := make([]runOut, len(reps))
			for i := range reps {
				if filled[runJob{k, i + 1}] {
					cp[i] = reps[i]
				} else {
					cp[i] = runOut{err: ctx.Err()}
				}
			}
			out[k] = cp
		}
		mu.Unlock()
		return out
	}
	return runs
}

// runCostHint is the CPU time one run takes (seconds, seed 1, measured on the 2-core
// CI machine, round 6), by scenario and variant ("" = any variant of the scenario):
// runMetrics starts the longest runs first, so that with two workers no long run is
// left alone at the end (the nr_requests sweep, 13 runs of 60 s, is half of the
// claims' CPU time). It only orders the runs; the results do not depend on it, and a
// run it does not list costs 0 (started last, in name order).
var runCostHint = map[runKey]float64{
	{"storvsc-nr-requests", "tags=per-hctx"}: 30,
	{"storvsc", ""}:                          3,
	{"storvsc-nr-requests", "tags=shared"}:   1.6,
	{"smartpqi", ""}:                         1,
	{"scsi-mq", ""}:                          0.3,
}

// runCost is k's runCostHint (the variant's, else the scenario's, else 0).
func runCost(k runKey) float64 {
	if c, ok := runCostHint[k]; ok {
		return c
	}
	return runCostHint[runKey{k.scenario, ""}]
}

// sortLongestFirst orders keys by runCost, longest first, then by scenario and
// variant name.
func sortLongestFirst(keys []runKey) {
	sort.Slice(keys, func(i, j int) bool {
		if ci, cj := runCost(keys[i]), runCost(keys[j]); ci != cj {
			return ci > cj
		}
		if keys[i].scenario != keys[j].scenario {
			return keys[i].scenario < keys[j].scenario
		}
		return keys[i].variant < keys[j].variant
	})
}

// replicaScale is o.Scale for replica rep: unchanged for replica 1 (the default
// jitter stream, or the one o.Scale carries), else a copy with jitter seed rep.
func replicaScale(sc Scale, rep int) Scale {
	if rep <= 1 {
		return sc
	}
	out := make(Scale, len(sc)+1)
	for k, v := range sc {
		out[k] = v
	}
	out[JitterSeedParam] = float64(rep)
	return out
}

// runOne runs one scenario variant at one replica; a panic in the model (a
// programming error, or a scaled parameter outside what the model accepts) becomes
// the run's error.
func runOne(k runKey, o Options, rep int) (out runOut) {
	defer func() {
		if p := recover(); p != nil {
			out = runOut{err: fmt.Errorf("model panic: %v", p)}
		}
	}()
	s, _ := Lookup(k.scenario)
	out.m, out.err = s.run(k.variant, o.Seed, replicaScale(o.Scale, rep))
	return out
}

type runOut struct {
	m   map[string]float64
	err error
}

// EvaluateWith is Evaluate with options (parameter scaling for sensitivity runs,
// replicas). When ctx ends first it returns at once: the claims whose runs were not
// done fail with ctx's error, and the runs still in flight finish in the background,
// their results dropped.
func EvaluateWith(ctx context.Context, claims []Claim, o Options) []Result {
	runs := runMetrics(ctx, claims, o)
	out := make([]Result, 0, len(claims))
	for _, c := range claims {
		out = append(out, judge(c, runs, o.replicasOf(c)))
	}
	return out
}

// modelValue computes the claim's model value from one replica's metrics (and, for
// a ratio, the same replica of the Over run: both ran with the same jitter seed).
func (c Claim) modelValue(runs map[runKey][]runOut, rep int) (float64, error) {
	get := func(k runKey) (map[string]float64, error) {
		rs, ok := runs[k]
		if !ok || rep >= len(rs) {
			return nil, fmt.Errorf("%s %s: not run", k.scenario, k.variant)
		}
		r := rs[rep]
		if r.err != nil {
			return nil, fmt.Errorf("%s %s: %w", k.scenario, k.variant, r.err)
		}
		return r.m, nil
	}
	m, err := get(runKey{c.Scenario, c.Variant})
	if err != nil {
		return math.NaN(), err
	}
	if c.Thresholds != nil {
		return countPoints(c, m)
	}
	v, ok := m[c.Metric]
	if !ok {
		return math.NaN(), fmt.Errorf("%s %s: no metric %q", c.Scenario, c.Variant, c.Metric)
	}
	if c.Over != "" {
		d, err := get(runKey{c.Scenario, c.Over})
		if err != nil {
			return math.NaN(), err
		}
		dv, ok := d[c.Metric]
		if !ok {
			return math.NaN(), fmt.Errorf("%s %s: no metric %q", c.Scenario, c.Over, c.Metric)
		}
		v /= dv
	}
	return v, nil
}

// countPoints counts the sweep points ("<point>/<name>" metrics) that meet every
// threshold of c. A threshold naming a metric no point reports is an error.
func countPoints(c Claim, m map[string]float64) (float64, error) {
	points := map[string]map[string]float64{}
	for k, v := range m {
		p, name, ok := strings.Cut(k, "/")
		if !ok {
			continue
		}
		if points[p] == nil {
			points[p] = map[string]float64{}
		}
		points[p][name] = v
	}
	if len(points) == 0 {
		return math.NaN(), fmt.Errorf("%s %s: no sweep points (metrics named point/name)", c.Scenario, c.Variant)
	}
	n := 0
	for p, pm := range points {
		all := true
		for name, th := range c.Thresholds {
			v, ok := pm[name]
			if !ok {
				return math.NaN(), fmt.Errorf("%s %s: point %s has no metric %q", c.Scenario, c.Variant, p, name)
			}
			all = all && v >= th
		}
		if all {
			n++
		}
	}
	return float64(n), nil
}

// judge evaluates one claim against n replicas of the runs.
//
// With one replica the claim is judged on its value, as before replicas. With more,
// Model is the replicas' mean and the claim is judged on Interval, the 95 % interval
// of one run (replicaStats): within the accepted range means the whole interval is;
// an interval across an edge of the range is Spread (or NotRobust when the claim
// records why it is not robust, or KnownMiss when it records a miss); an interval
// wholly outside is a miss.
func judge(c Claim, runs map[runKey][]runOut, n int) Result {
	r := Result{Claim: c, Model: math.NaN(), Interval: [2]float64{math.NaN(), math.NaN()}}
	s, ok := Lookup(c.Scenario)
	if !ok {
		r.Status, r.Err = Failed, fmt.Errorf("scenario %q is not registered (renamed or removed?)", c.Scenario)
		r.Reason = "scenario not registered"
		return r
	}
	vals := make([]float64, 0, n)
	for rep := range n {
		v, err := c.modelValue(runs, rep)
		if err != nil {
			r.Status, r.Err, r.Reason = Failed, err, "error"
			if n > 1 {
				r.Err = fmt.Errorf("replica %d (jitter seed %d): %w", rep+1, rep+1, err)
			}
			return r
		}
		vals = append(vals, v)
	}
	r.Values = vals
	r.Model, r.SD, r.Interval = replicaStats(vals)
	v := r.Model
	r.CalibratedBy = s.calibratedFor(c.ID)
	okMean, judged := c.Within(v)
	inside, across := c.placeInterval(r.Interval)
	if n == 1 {
		inside, across = okMean, false // one run: judged on its value, exactly as before replicas
	}
	spreadNote := ""
	if n > 1 {
		spreadNote = fmt.Sprintf("%d replicas: 95%% interval %s crosses an edge of %s; ", n, fmtInterval(r.Interval), c.Bounds())
	}
	switch {
	case !judged:
		switch {
		case c.Recorded == nil:
			r.Status, r.Reason = Moved, "informational claim without a recorded band"
		case c.Recorded.In(v):
			r.Status, r.Reason = Info, "not judged against the source"
		default:
			r.Status, r.Reason = Moved, fmt.Sprintf("left recorded band [%.4g, %.4g]", c.Recorded.Band[0], c.Recorded.Band[1])
		}
	case (inside || across) && c.NotRobust != "" && c.Recorded != nil && !c.Recorded.In(v):
		r.Status, r.Reason = Moved, fmt.Sprintf("not-robust mean left recorded band [%.4g, %.4g]", c.Recorded.Band[0], c.Recorded.Band[1])
	case inside && c.KnownMiss != "":
		r.Status, r.Reason = Moved, "known miss now met: update the record"
	case inside && len(r.CalibratedBy) > 0:
		r.Status, r.Reason = Calibrated, "follows from "+strings.Join(r.CalibratedBy, ", ")
	case inside && c.NotRobust != "":
		r.Status, r.Reason = NotRobust, c.NotRobust
	case inside:
		r.Status = Met
	case across && c.NotRobust != "":
		r.Status, r.Reason = NotRobust, spreadNote+c.NotRobust
	case across && c.KnownMiss == "":
		r.Status, r.Reason = Spread, strings.TrimSuffix(spreadNote, "; ")
		if okMean {
			r.Reason += " (mean within)"
		}
	case c.KnownMiss == "":
		r.Status, r.Reason = Unexpected, "no known-miss record"
	case c.Recorded.In(v):
		r.Status, r.Reason = KnownMiss, c.Recorded.Reason
	default:
		r.Status, r.Reason = Moved, fmt.Sprintf("known miss left recorded band [%.4g, %.4g]", c.Recorded.Band[0], c.Recorded.Band[1])
	}
	return r
}
