package bench

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jitterFakeOffsets is what the jitter fake adds to x per jitter seed (0 and 1 are
// the default stream).
var jitterFakeOffsets = map[uint64]float64{0: 0, 1: 0, 2: -10, 3: 10, 4: 0, 5: -5, 6: 5}

// registerJitterFake registers a scenario whose figure x depends on the jitter seed
// (100 + jitterFakeOffsets) while y does not (50), as a model's figure through a
// mechanism that amplifies timing noise would.
func registerJitterFake(t *testing.T, name string) {
	t.Helper()
	if _, ok := Lookup(name); ok {
		return
	}
	run := func(v string, seed uint64, sc Scale) (map[string]float64, error) {
		d := jitterFakeOffsets[sc.jitterSeed()]
		return map[string]float64{"x": 100 + d, "y": 50}, nil
	}
	Register(Scenario{Name: name, Variants: []string{"p=a", "p=b"},
		Run:       func(v string, seed uint64) (map[string]float64, error) { return run(v, seed, nil) },
		RunScaled: run})
}

func TestReplicaStats(t *testing.T) {
	m, sd, iv := replicaStats([]float64{7})
	if m != 7 || sd != 0 || iv != [2]float64{7, 7} {
		t.Errorf("one value: %g %g %v", m, sd, iv)
	}
	// 100, 90, 110, 100: mean 100, s = sqrt(200/3), t(0.975, 3) = 3.182.
	m, sd, iv = replicaStats([]float64{100, 90, 110, 100})
	wantSD := math.Sqrt(200.0 / 3)
	h := 3.182 * wantSD * math.Sqrt(1.25)
	if m != 100 || math.Abs(sd-wantSD) > 1e-12 || math.Abs(iv[0]-(100-h)) > 1e-9 || math.Abs(iv[1]-(100+h)) > 1e-9 {
		t.Errorf("four values: mean %g sd %g interval %v; want 100, %g, [%g, %g]", m, sd, iv, wantSD, 100-h, 100+h)
	}
	if math.Abs(tQuantile(1000)-1.962) > 5e-4 || tQuantile(1) != 12.706 {
		t.Errorf("tQuantile: %g %g", tQuantile(1000), tQuantile(1))
	}
}

// TestReplicaStatuses: with replicas a claim is met only when the replicas' 95 %
// interval is inside its accepted range; an interval across an edge is Spread (not
// expected: exit 1), NotRobust when the claim records why, KnownMiss when it records
// a miss whose mean stays in its band; wholly outside, a miss as before.
func TestReplicaStatuses(t *testing.T) {
	const name = "test-jitter-fake"
	registerJitterFake(t, name)
	c := func(id string, reps int, published, tol float64) Claim {
		return Claim{ID: id, Scenario: name, Variant: "p=a", Metric: "x", Published: published, Tolerance: ptr(tol), Replicas: reps}
	}
	notRobust := c("nr", 4, 100, 0.2)
	notRobust.NotRobust = "the jitter moves it"
	nrMoved := notRobust
	nrMoved.ID, nrMoved.Recorded = "nr-moved", &Record{Model: 120, Band: [2]float64{115, 125}}
	km := c("km", 4, 130, 0.2) // accepted 104-156: the interval [71, 129] crosses 104
	km.KnownMiss, km.Recorded = "mechanism", &Record{Model: 100, Band: [2]float64{95, 105}, Reason: "short"}
	ratio := Claim{ID: "ratio", Scenario: name, Variant: "p=a", Over: "p=b", Metric: "y", Published: 1, Tolerance: ptr(0.01), Replicas: 6}
	tests := []struct {
		name string
		c    Claim
		want Status
	}{
		{"one-run/met", c("r1", 0, 100, 0.05), Met},
		{"wide-tolerance/met", c("wide", 4, 100, 0.5), Met},
		{"across/spread", c("across", 4, 100, 0.2), Spread},
		{"across/not-robust", notRobust, NotRobust},
		{"across/not-robust-moved", nrMoved, Moved},
		{"across/known-miss", km, KnownMiss},
		{"outside/unexpected", c("out", 4, 300, 0.2), Unexpected},
		{"no-spread/met", ratio, Met},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := EvaluateWith(context.Background(), []Claim{tt.c}, Options{Seed: 1, Parallel: 2})[0]
			if r.Status != tt.want {
				t.Errorf("status %s (model %g, interval %v, reason %q, err %v), want %s", r.Status, r.Model, r.Interval, r.Reason, r.Err, tt.want)
			}
			if n := max(1, tt.c.Replicas); len(r.Values) != n {
				t.Errorf("%d values, want %d", len(r.Values), n)
			}
			if r.Status == Spread && !strings.Contains(r.Reason, "95% interval") {
				t.Errorf("spread reason %q does not show the interval", r.Reason)
			}
		})
	}
	if Spread.Expected() {
		t.Error("Spread is expected; an unrecorded spread must fail the claims run")
	}
}

// TestReplicasOverrideAndDeterminism: Options.Replicas overrides each claim's own;
// replica r runs with jitter seed r (replica 1 = the run without replicas); the
// results do not depend on Parallel.
func TestReplicasOverrideAndDeterminism(t *testing.T) {
	const name = "test-jitter-fake"
	registerJitterFake(t, name)
	claims := []Claim{{ID: "a", Scenario: name, Variant: "p=a", Metric: "x", Published: 100, Tolerance: ptr(0.5), Replicas: 2}}
	got := EvaluateWith(context.Background(), claims, Options{Seed: 1, Replicas: 6, Parallel: 1})[0]
	if want := []float64{100, 90, 110, 100, 95, 105}; !cmp.Equal(got.Values, want) {
		t.Errorf("values %v, want %v (jitter seeds 1-6)", got.Values, want)
	}
	again := EvaluateWith(context.Background(), claims, Options{Seed: 1, Replicas: 6, Parallel: 4})[0]
	if !cmp.Equal(got.Values, again.Values) || got.Interval != again.Interval || got.Model != again.Model {
		t.Errorf("parallel 4 gives %v %v, parallel 1 %v %v", again.Values, again.Interval, got.Values, got.Interval)
	}
	own := EvaluateWith(context.Background(), claims, Options{Seed: 1})[0]
	if !cmp.Equal(own.Values, []float64{100, 90}) {
		t.Errorf("claim's own replicas: values %v, want [100 90]", own.Values)
	}
	var calls int
	EvaluateWith(context.Background(), claims, Options{Seed: 1, Replicas: 3, Progress: func(d, n int) {
		calls++
		if n != 3 {
			t.Errorf("progress total %d, want 3 (one run per replica)", n)
		}
	}})
	if calls != 3 {
		t.Errorf("%d progress calls, want 3", calls)
	}
}

func TestLoadClaimsReplicas(t *testing.T) {
	for _, in := range []string{
		`{"claims":[{"id":"a","scenario":"s","variant":"v","metric":"m","replicas":-1}]}`,
		`{"claims":[{"id":"a","scenario":"s","variant":"v","metric":"m","replicas":1001}]}`,
	} {
		if _, err := LoadClaims([]byte(in)); err == nil {
			t.Errorf("LoadClaims accepted %s", in)
		}
	}
	cs, err := LoadClaims([]byte(`{"claims":[{"id":"a","scenario":"s","variant":"v","metric":"m","replicas":12}]}`))
	if err != nil || cs[0].Replicas != 12 {
		t.Errorf("replicas 12: %v %v", cs, err)
	}
}

// TestRecordClaimsReplicas: --record leaves a spread claim alone and says so, and
// re-centres a not-robust claim's record on its replicas' mean.
func TestRecordClaimsReplicas(t *testing.T) {
	const name = "test-jitter-fake"
	registerJitterFake(t, name)
	in := []Claim{
		{ID: "spread", Scenario: name, Variant: "p=a", Metric: "x", Published: 100, Unit: "IOPS", Tolerance: ptr(0.2), Replicas: 4},
		{ID: "nr", Scenario: name, Variant: "p=a", Metric: "x", Published: 100, Unit: "IOPS", Tolerance: ptr(0.2), Replicas: 6,
			NotRobust: "jitter", Recorded: &Record{Model: 80, Band: [2]float64{76, 84}}},
	}
	data, err := EncodeClaims("test", in)
	if err != nil {
		t.Fatal(err)
	}
	out, notes, err := RecordClaims(data, EvaluateWith(context.Background(), in, Options{Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadClaims(out)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Recorded != nil || got[0].NotRobust != "" {
		t.Errorf("spread claim given a record or reason: %+v", got[0])
	}
	if r := got[1].Recorded; r == nil || r.Model != 100 || r.Band != [2]float64{95, 105} {
		t.Errorf("not-robust record %+v, want 100 [95, 105]", r)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "spread") || !strings.Contains(notes[0], "not_robust by hand") {
		t.Errorf("notes %q", notes)
	}
}
