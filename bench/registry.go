// Package bench holds one scenario per source claim (../shared/seeds) and the runner
// that compares each scenario's modelled figures with the published ones in
// testdata/claims.json. Benchmarks in this package report the same figures with
// b.ReportMetric so benchstat can compare policies.
//
// A scenario is one set of device and CPU parameters; its variants differ only in the
// policy switch being compared (for example per-hctx versus shared tags). Every figure
// a scenario returns is measured from the modelled mechanisms; published numbers are
// read only by the claims runner, as expectations.
package bench

import (
	"fmt"
	"sort"
	"sync"
)

// Scenario is one modelled experiment of a source document.
type Scenario struct {
	// Name identifies the scenario in testdata/claims.json (e.g. "storvsc").
	Name string
	// Source is the seed document the scenario models (e.g. "000_3f9e87d917f8ad71.txt").
	Source string
	// Variants lists the policy settings compared, in "key=value" form
	// (e.g. "tags=per-hctx", "tags=shared").
	Variants []string
	// Run runs one variant with the given seed and returns metric name → value.
	// Units are part of the metric name or the claim ("wal-IOPS", "wal-clat-us").
	// It returns an error for an unknown variant or a model failure (e.g. a hang
	// detected by the watchdog).
	Run func(variant string, seed uint64) (map[string]float64, error)
	// RunScaled, when set, runs one variant with some parameters (by Param.Name)
	// multiplied by the given factors: the sensitivity runs. Run must equal RunScaled
	// with a nil Scale.
	RunScaled func(variant string, seed uint64, scale Scale) (map[string]float64, error)
	// Params lists every parameter the scenario's runs use, with its basis
	// (provenance.go).
	Params []Param
}

// run runs one variant, scaled when scale is non-empty.
func (s Scenario) run(variant string, seed uint64, scale Scale) (map[string]float64, error) {
	if len(scale) == 0 || s.RunScaled == nil {
		if len(scale) > 0 {
			return nil, fmt.Errorf("bench: scenario %s cannot scale parameters", s.Name)
		}
		return s.Run(variant, seed)
	}
	return s.RunScaled(variant, seed, scale)
}

// calibratedFor returns the names of the scenario's calibrated parameters that the
// figure of claim id follows from.
func (s Scenario) calibratedFor(id string) []string {
	var out []string
	for _, p := range s.Params {
		if p.Basis == BasisCalibrated && p.follows(id) {
			out = append(out, p.Name)
		}
	}
	return out
}

var (
	registryMu sync.Mutex
	registry   = map[string]Scenario{}
)

// Register adds a scenario to the registry used by the claims runner. It panics if
// the name is empty or already registered (a programming error at init time).
func Register(s Scenario) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if s.Name == "" || s.Run == nil {
		panic("bench: Register: scenario needs a Name and a Run function")
	}
	for _, p := range s.Params {
		if err := p.check(); err != nil {
			panic(fmt.Sprintf("bench: Register: scenario %q: %v", s.Name, err))
		}
	}
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("bench: Register: scenario %q registered twice", s.Name))
	}
	registry[s.Name] = s
}

// Scenarios returns the registered scenarios sorted by name.
func Scenarios() []Scenario {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Scenario, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the scenario registered under name, if any.
func Lookup(name string) (Scenario, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	s, ok := registry[name]
	return s, ok
}
