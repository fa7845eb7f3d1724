package bench

import (
	"fmt"
	"path"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// Basis says where a scenario parameter's value comes from.
type Basis string

// Parameter bases.
const (
	// BasisSourced: from a data sheet, a paper, a measurement or the source document's own
	// description of its setup (Param.Ref names it).
	BasisSourced Basis = "sourced"
	// BasisAssumed: chosen without a source (Param.Ref says why this value).
	BasisAssumed Basis = "assumed"
	// BasisCalibrated: derived from the source's own published figures (Param.Cells names
	// the claims whose published values fixed it). A figure that follows from such a
	// parameter (Param.Follows) is reported as calibrated, not met: it is not
	// evidence of the model.
	BasisCalibrated Basis = "calibrated"
)

// Param is one parameter a claim scenario uses, with its provenance.
type Param struct {
	// Name is the parameter's name in `blkmq claims --sensitivity` and Scale
	// (e.g. "storvsc.base-latency").
	Name string `json:"name"`
	// Value is the value in Unit, as the scenario uses it.
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Basis Basis   `json:"basis"`
	// Ref is the reference (sourced), the reason (assumed) or how it was derived
	// (calibrated).
	Ref string `json:"ref"`
	// Cells are the claim ids whose published values calibrate the parameter.
	Cells []string `json:"cells,omitempty"`
	// Follows are claim-id patterns (path.Match syntax, e.g. "002/*/randread") whose
	// figures follow from this calibrated parameter.
	Follows []string `json:"follows,omitempty"`
	// Scalable is true when the scenario honours a Scale for this parameter (the
	// sensitivity runs halve and double every scalable parameter, sourced ones
	// included when they are marked so).
	Scalable bool `json:"scalable,omitempty"`
}

func (p Param) check() error {
	switch {
	case p.Name == "" || p.Ref == "":
		return fmt.Errorf("parameter %q needs a name and a reference/reason", p.Name)
	case p.Basis != BasisSourced && p.Basis != BasisAssumed && p.Basis != BasisCalibrated:
		return fmt.Errorf("parameter %q: basis %q not one of sourced, assumed, calibrated", p.Name, p.Basis)
	case p.Basis == BasisCalibrated && (len(p.Cells) == 0 || len(p.Follows) == 0):
		return fmt.Errorf("parameter %q: calibrated needs the cells it comes from and the figures that follow from it", p.Name)
	}
	for _, f := range p.Follows {
		if _, err := path.Match(f, ""); err != nil {
			return fmt.Errorf("parameter %q: follows pattern %q: %v", p.Name, f, err)
		}
	}
	return nil
}

func (p Param) follows(id string) bool {
	for _, f := range p.Follows {
		if ok, _ := path.Match(f, id); ok {
			return true
		}
	}
	return false
}

// Scale multiplies scenario parameters by name (Param.Name → factor) for sensitivity
// runs. A nil Scale leaves every parameter at its value.
type Scale map[string]float64

// Of returns the factor for name (1 when absent).
func (s Scale) Of(name string) float64 {
	if f, ok := s[name]; ok {
		return f
	}
	return 1
}

// ParamCPUPath scales the assumed part of dispatch.DefaultCPUCosts (every step but the
// tag and budget costs measured on this library's code and the cache-line costs): the
// ~1.6 µs per-I/O kernel path whose total and split are assumptions.
const ParamCPUPath = "cpu.path"

// cpuPathNs is the per-I/O CPU path of c that ParamCPUPath stands for (ns): the steps
// one 4 KiB I/O on the none path takes from submission to reaping, excluding the tag
// and budget costs and the cache-line costs, which are charged separately.
func cpuPathNs(c dispatch.CPUCosts) sim.Time {
	return c.Submit + c.BioAlloc + c.HostCheck + c.Insert + c.Dispatch + c.QueueRq + c.Completion + c.EndBio
}

// cpuPathParam is the ParamCPUPath entry of a scenario's parameter list.
func cpuPathParam() Param {
	return Param{Name: ParamCPUPath, Value: float64(cpuPathNs(dispatch.DefaultCPUCosts())) / 1e3, Unit: "us/IO", Basis: BasisAssumed, Scalable: true,
		Ref: "dispatch.DefaultCPUCosts: the per-I/O submission + completion path, split by the usual shape of a perf profile; " +
			"total and split not measured (tag/budget costs are this library's BenchmarkIOPath, sourced)"}
}

// scaleCPUPath multiplies the assumed steps of c by the ParamCPUPath factor.
func scaleCPUPath(c dispatch.CPUCosts, sc Scale) dispatch.CPUCosts {
	return scaleCPUPathBy(c, sc.Of(ParamCPUPath))
}

// scaleCPUPathBy multiplies the steps of c that ParamCPUPath stands for (and the
// other per-I/O software steps of the same table: Merge, Elevator, IPI, Wakeup,
// QueueRun, SubmitSyscall) by f, keeping their split.
func scaleCPUPathBy(c dispatch.CPUCosts, f float64) dispatch.CPUCosts {
	if f == 1 {
		return c
	}
	for _, p := range []*sim.Time{&c.Submit, &c.BioAlloc, &c.Merge, &c.HostCheck, &c.Insert, &c.Elevator,
		&c.Dispatch, &c.QueueRq, &c.Completion, &c.EndBio, &c.IPI, &c.Wakeup, &c.QueueRun, &c.SubmitSyscall} {
		*p = sim.Time(float64(*p) * f)
	}
	return c
}
