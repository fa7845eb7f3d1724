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
