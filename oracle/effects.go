package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// Effect is a policy comparison in a reference set: two cases that differ in one
// switch (per-hctx vs host-wide tags, none vs mq-deadline, libaio vs io_uring).
// Its rows are the per-job effects B/A − 1 of IOPS and mean clat.
type Effect struct {
	// Name identifies the comparison ("tags fam-2q-none-aio-pin").
	Name string `json:"name"`
	// Switch says what differs from A to B ("host-wide tags", "mq-deadline",
	// "io_uring").
	Switch string `json:"switch"`
	// A and B name the cases without and with the switch.
	A string `json:"a"`
	B string `json:"b"`
	// KnownMisses are effect rows ("wal write iops") whose sign the model is known
	// to get wrong, with the model and kernel effects and the mechanism.
	KnownMisses []KnownMiss `json:"known_misses,omitempty"`
}

// EffectRow is one per-job effect of a switch.
type EffectRow struct {
	// Key is "JOB DIR METRIC" (metric iops or clat_mean).
	Key string `json:"key"`
	// Kernel is the kernel's effect B/A − 1 from the mean of each case's runs;
	// RunDiff the difference between the effects of run 1 and run 2 (NaN without
	// repeats); Model the model's effect.
	Kernel  float64 `json:"kernel"`
	RunDiff float64 `json:"-"`
	Model   float64 `json:"model"`
	// Checked is set when |Kernel| exceeds twice RunDiff: only then must the
	// model's effect have the kernel's sign (Pass).
	Checked bool `json:"checked"`
	Pass    bool `json:"pass"`
	// KnownMiss is the recorded mechanism when the row is a known miss.
	KnownMiss string `json:"known_miss,omitempty"`
}

// EffectComparison is the kernel's and the model's effect of one Effect.
type EffectComparison struct {
	Effect *Effect     `json:"effect"`
	Rows   []EffectRow `json:"rows"`
}

// Failed returns the checked rows with the wrong sign that are not known misses.
func (e *EffectComparison) Failed() []EffectRow {
	var out []EffectRow
	for _, r := range e.Rows {
		if !r.Pass && r.KnownMiss == "" {
			out = append(out, r)
		}
	}
	return out
}

// CompareEffect computes an Effect on the kernel's committed runs and on the model
// (each case's model side run once with o, as CompareReference runs it). It returns
// an error when a case is missing or has no committed results.
func (ix *Index) CompareEffect(e *Effect, o ModelOptions) (*EffectComparison, error) {
	side := func(name string) (mean, r1, r2, model map[string]float64, err error) {
		c := ix.Find(name)
		if c == nil {
			return nil, nil, nil, nil, fmt.Errorf("oracle: effect %s: no case %q", e.Name, name)
		}
		cmp, _, err := ix.cachedCompare(c, o)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		mean, model = map[string]float64{}, map[string]float64{}
		for _, r := range cmp.Rows {
			mean[r.Key], model[r.Key] = r.Kernel, r.Model
		}
		fj, facts, err := ix.Reference(c)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		f1, err := KernelFigures(fj, facts)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		r1 = jobValues(f1)
		rfj, rfacts, err := ix.Reruns(c)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if len(rfj) > 0 {
			f2, err := KernelFigures(rfj[0], rfacts[0])
			if err != nil {
				return nil, nil, nil, nil, err
			}
			r2 = jobValues(f2)
		}
		return mean, r1, r2, model, nil
	}
	am, a1, a2, amod, err := side(e.A)
	if err != nil {
		return nil, err
	}
	bm, b1, b2, bmod, err := side(e.B)
	if err != nil {
		return nil, err
	}
	out := &EffectComparison{Effect: e}
	for _, key := range sortedJobKeys(a1) {
		if _, ok := b1[key]; !ok || am[key] == 0 || amod[key] == 0 {
			continue
		}
		r := EffectRow{Key: key, Kernel: bm[key]/am[key] - 1, Model: bmod[key]/amod[key] - 1, RunDiff: math.NaN(), Pass: true}
		if a2 != nil && b2 != nil && a1[key] > 0 && a2[key] > 0 {
			r.RunDiff = math.Abs((b1[key]/a1[key] - 1) - (b2[key]/a2[key] - 1))
			r.Checked = math.Abs(r.Kernel) > 2*r.RunDiff
		}
		if r.Checked {
			r.Pass = r.Kernel*r.Model > 0
		}
		for _, km := range e.KnownMisses {
			if km.Row == key {
				r.KnownMiss = km.Mechanism
			}
		}
		out.Rows = append(out.Rows, r)
	}
	return out, nil
}

// jobValues maps "JOB DIR iops" and "JOB DIR clat_mean" to a run's values.
func jobValues(f *Figures) map[string]float64 {
	m := map[string]float64{}
	for _, j := range f.Jobs {
		m[j.Job+" "+j.Dir+" iops"] = j.IOPS
		m[j.Job+" "+j.Dir+" clat_mean"] = j.ClatMean / 1e6
	}
	return m
}

func sortedJobKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cachedCompare is CompareReference, memoised per case and options (effects
// share cases).
func (ix *Index) cachedCompare(c *Case, o ModelOptions) (*Comparison, *ModelRun, error) {
	key := fmt.Sprintf("%s|%+v", c.Name, o)
	if r, ok := ix.cache[key]; ok {
		return r.cmp, r.model, nil
	}
	cmp, m, err := ix.CompareReference(c, o)
	if err != nil {
		return nil, nil, err
	}
	if ix.cache == nil {
		ix.cache = map[string]cachedRun{}
	}
	ix.cache[key] = cachedRun{cmp, m}
	return cmp, m, nil
}

type cachedRun struct {
	cmp   *Comparison
	model *ModelRun
}

// WriteText writes the effect as an aligned table.
func (e *EffectComparison) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s (%s: %s → %s)\tkernel\trun-to-run\tmodel\t\t\n", e.Effect.Name, e.Effect.Switch, e.Effect.A, e.Effect.B)
	for _, r := range e.Rows {
		status := "not checked (within 2x run-to-run)"
		if r.Checked {
			status = "ok"
			if !r.Pass {
				status = "WRONG SIGN"
				if r.KnownMiss != "" {
					status = "known miss"
				}
			}
		}
		rd := "n/a"
		if !math.IsNaN(r.RunDiff) {
			rd = fmt.Sprintf("%.1f%%", 100*r.RunDiff)
		}
		fmt.Fprintf(tw, "  %s\t%+.1f%%\t%s\t%+.1f%%\t%s\t\n", strings.TrimSpace(r.Key), 100*r.Kernel, rd, 100*r.Model, status)
	}
	return tw.Flush()
}

// MarshalJSON writes RunDiff as a number, or null without repeats.
func (r EffectRow) MarshalJSON() ([]byte, error) {
	type plain EffectRow
	var rd *float64
	if !math.IsNaN(r.RunDiff) {
		v := r.RunDiff
		rd = &v
	}
	return json.Marshal(struct {
		plain
		RunDiff *float64 `json:"run_diff"`
	}{plain(r), rd})
}
