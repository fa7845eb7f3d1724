package bench

import (
	"context"
	"sort"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// SensitivityFactors are the multipliers a sensitivity run applies to each assumed
// parameter: halved and doubled.
var SensitivityFactors = []float64{0.5, 2}

// SensitivityRow is one claim's value with one assumed parameter scaled.
type SensitivityRow struct {
	Claim Claim
	// Param is the scaled parameter (Scenario.Params).
	Param Param
	// Base is the model value with every parameter at its value.
	Base Result
	// Scaled holds, per SensitivityFactors entry, the claim's result with Param
	// multiplied by that factor.
	Scaled []Result
}

// Sensitivity evaluates the claims with each scalable parameter of their scenarios
// (assumed and calibrated ones; a sourced one only when it is marked Scalable, as the
// contention model's transfer costs are) halved and doubled, one parameter at a time (all other parameters at
// their values). base are the claims' unscaled results (from Evaluate with the same
// seed). Rows are ordered by claim, then parameter name. It runs
// len(SensitivityFactors) × (scalable assumed parameters) × (variants) scenario runs,
// so it is slow; `blkmq claims` runs it only with --sensitivity.
func Sensitivity(ctx context.Context, claims []Claim, base []Result, o Options) []SensitivityRow {
	return sensitivityOver(ctx, claims, base, func(s Scenario) []Param { return s.Params }, o)
}

// sensitivityOver is Sensitivity over the scalable entries of params(scenario).
func sensitivityOver(ctx context.Context, claims []Claim, base []Result, params func(Scenario) []Param, o Options) []SensitivityRow {
	baseByID := map[string]Result{}
	for _, r := range base {
		baseByID[r.Claim.ID] = r
	}
	byScenario := map[string][]Claim{}
	var names []string
	for _, c := range claims {
		if _, ok := byScenario[c.Scenario]; !ok {
			names = append(names, c.Scenario)
		}
		byScenario[c.Scenario] = append(byScenario[c.Scenario], c)
	}
	sort.Strings(names)
	rows := map[string][]SensitivityRow{}
	for _, name := range names {
		s, ok := Lookup(name)
		if !ok || s.RunScaled == nil {
			continue
		}
		cs := byScenario[name]
		for _, p := range params(s) {
			if !p.Scalable {
				continue
			}
			scaled := make([][]Result, len(SensitivityFactors))
			for i, f := range SensitivityFactors {
				so := o
				so.Scale = Scale{p.Name: f}
				if so.Replicas == 0 {
					// one run per scaled parameter unless --replicas asks for more:
					// the claims' own replicas would multiply the sensitivity run
					so.Replicas = 1
				}
				scaled[i] = EvaluateWith(ctx, cs, so)
			}
			for k, c := range cs {
				row := SensitivityRow{Claim: c, Param: p, Base: baseByID[c.ID]}
				for i := range SensitivityFactors {
					row.Scaled = append(row.Scaled, scaled[i][k])
				}
				rows[c.ID] = append(rows[c.ID], row)
			}
		}
	}
	var out []SensitivityRow
	for _, c := range claims {
		out = append(out, rows[c.ID]...)
	}
	return out
}

// The contention model's costs (issue 15) as scenario parameters, so that
// `blkmq claims --sensitivity` halves and doubles each of them. The lock hold times are
// the CPU path's own steps (ParamCPUPath scales them with the path).
const (
	// ParamTransfer scales the line transfer costs between CPUs (Transfer.SMT, Node,
	// Socket, Remote of dispatch.DefaultTransferCosts): sourced, from Intel MLC
	// cache-to-cache latencies; scalable so that the sensitivity runs include it.
	ParamTransfer = "cpu.transfer"
	// ParamTransferSelf scales Transfer.Self, the cost of a locked operation on a line
	// the CPU owns already (assumed).
	ParamTransferSelf = "cpu.transfer-self"
	// ParamElevatorLines scales ElevatorLines, the scheduler data lines a dd->lock (or
	// legacy queue_lock) section moves when the lock changes CPU (derived from one
	// published lock-bound ceiling under assumed acquisition counts).
	ParamElevatorLines = "cpu.elevator-lines"
)

// contentionParams are the contention model's parameter entries for a scenario's list.
func contentionParams() []Param {
	c := dispatch.DefaultCPUCosts()
	return []Param{
		{Name: ParamTransfer, Value: float64(c.Transfer.Node), Unit: "ns (same socket; 109 across)", Basis: BasisSourced, Scalable: true,
			Ref: "dispatch.DefaultTransferCosts: Intel MLC --c2c_latency L2->L2 HITM on 2x Xeon Platinum 8180 (FD.io CSIT): 50.3 ns local socket, 108.6 ns remote"},
		{Name: ParamTransferSelf, Value: float64(c.Transfer.Self), Unit: "ns", Basis: BasisAssumed, Scalable: true,
			Ref: "a locked instruction on a line the CPU owns (~20 cycles); not measured"},
		{Name: ParamElevatorLines, Value: float64(c.ElevatorLines), Unit: "lines", Basis: BasisAssumed, Scalable: true,
			Ref: "derived from Axboe's Jan 2024 dd->lock ceiling (879 K IOPS, 32 threads, Ryzen 9 7950X) with an assumed 2.75 acquisitions per I/O (BENCHMARKS.md, contention)"},
	}
}

// scaleContention applies the ParamTransfer, ParamTransferSelf, ParamElevatorLines and
// per-step ParamCostPrefix factors of sc to c (whose Transfer must be set, as DefaultCPUCosts sets it).
func scaleContention(c dispatch.CPUCosts, sc Scale) dispatch.CPUCosts {
	f := func(t sim.Time, k float64) sim.Time { return sim.Time(float64(t)*k + 0.5) }
	if k := sc.Of(ParamTransfer); k != 1 {
		c.Transfer.SMT, c.Transfer.Node = f(c.Transfer.SMT, k), f(c.Transfer.Node, k)
		c.Transfer.Socket, c.Transfer.Remote = f(c.Transfer.Socket, k), f(c.Transfer.Remote, k)
	}
	if k := sc.Of(ParamTransferSelf); k != 1 {
		c.Transfer.Self = f(c.Transfer.Self, k)
	}
	if k := sc.Of(ParamElevatorLines); k != 1 {
		c.ElevatorLines = int(float64(c.ElevatorLines)*k + 0.5)
	}
	return scaleCostSteps(c, sc)
}

// The wake-up placement path's parameters (issue 15, claim 001/ratio/can_queue-div:
// where a tag sleeper runs after try_to_wake_up decides which hctx its next requests
// use), as scenario parameters so that `blkmq claims --sensitivity` halves and doubles
// them.
const (
	// ParamWakeupLatency scales dispatch.Timing's WakeupMin/WakeupMax (5–30 µs), the
	// delay between try_to_wake_up and the woken task running, during which the task
	// is enqueued on its new CPU (the CPU is not idle for other wake-ups): assumed.
	ParamWakeupLatency = "stack.wakeup-latency"
	// ParamMigrationCost scales stack.DefaultMigrationCost, sysctl_sched_migration_cost
	// (0.5 ms, the kernel's default: sourced; scalable to show what the idle balance's
	// cache-hot window decides).
	ParamMigrationCost = "stack.migration-cost"
)

// wakePlacementParams are the wake-up placement path's parameter entries.
func wakePlacementParams() []Param {
	return []Param{
		{Name: ParamWakeupLatency, Value: 5, Unit: "us (to 30)", Basis: BasisAssumed, Scalable: true,
			Ref: "dispatch.Timing WakeupMin/WakeupMax: a wake-up of a task on an otherwise idle CPU; not from a source"},
		{Name: ParamMigrationCost, Value: float64(stack.DefaultMigrationCost) / 1e3, Unit: "us", Basis: BasisSourced, Scalable: true,
			Ref: "sysctl_sched_migration_cost, kernel/sched/fair.c (6.1 and 5.x): 500000 ns; task_hot refuses to pull a task that ran more recently"},
	}
}

// applyWakePlacementScale applies scaled ParamWakeupLatency and ParamMigrationCost to cfg.
func applyWakePlacementScale(cfg *stack.Config, sc Scale) {
	if f := sc.Of(ParamWakeupLatency); f != 1 {
		cfg.Timing.WakeupMin = max(1, sim.Time(float64(5*sim.Microsecond)*f))
		cfg.Timing.WakeupMax = max(cfg.Timing.WakeupMin, sim.Time(float64(30*sim.Microsecond)*f))
	}
	if f := sc.Of(ParamMigrationCost); f != 1 {
		cfg.Placement.MigrationCost = max(1, sim.Time(float64(stack.DefaultMigrationCost)*f))
	}
}
