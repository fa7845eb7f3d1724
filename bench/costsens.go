package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// The contention and CPU cost sensitivity (issue 15): every cost of dispatch.CPUCosts
// that the 001, 002 and 003 scenarios charge, one at a time, halved and doubled. The
// scenario parameter lists keep the grouped entries (ParamCPUPath, ParamTransfer, ...)
// that `blkmq claims --sensitivity` scales; the per-step entries here split
// ParamCPUPath into its steps and add the sourced tag and budget costs, so that each
// lock hold (Elevator: dd->lock and queue_lock, Insert: ctx->lock) and each path step
// has its own row. CostSensitivity runs them; TestCostSensitivityTable prints the
// table BENCHMARKS.md carries.

// ParamCostPrefix prefixes the Scale name of one dispatch.CPUCosts step scaled on its
// own ("cpu.cost.Elevator"). scaleContention applies it after ParamCPUPath, so the two
// multiply.
const ParamCostPrefix = "cpu.cost."

// costStep is one dispatch.CPUCosts field the per-step sensitivity scales.
type costStep struct {
	field string
	basis Basis
	ref   string
	get   func(*dispatch.CPUCosts) *sim.Time
}

// costSteps are the CPUCosts fields charged on the claims' paths with a non-zero
// default, with the basis DefaultCPUCosts' comment gives each. Not listed: Switch,
// MMSwitch, LazyTLBSwitch, DataCopyKiB and DataCopyCmd (0 in every claims scenario:
// scaling them changes nothing), LineLocal and LineRemote (unused once Transfer is
// set, which DefaultCPUCosts does).
var costSteps = []costStep{
	{"Submit", BasisAssumed, "syscall + ioengine + fio share of the assumed per-I/O path (DefaultCPUCosts: split by the usual shape of a perf profile, not measured)", func(c *dispatch.CPUCosts) *sim.Time { return &c.Submit }},
	{"SubmitSyscall", BasisAssumed, "the per-call part of Submit; plausible 100-400 ns (null syscall ~100 ns without KPTI + io_uring_enter's fixed part)", func(c *dispatch.CPUCosts) *sim.Time { return &c.SubmitSyscall }},
	{"BioAlloc", BasisAssumed, "blk_mq_submit_bio's fixed part; share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.BioAlloc }},
	{"Merge", BasisAssumed, "one bio_attempt_*_merge; not measured", func(c *dispatch.CPUCosts) *sim.Time { return &c.Merge }},
	{"TagGet", BasisSourced, "this library's sbitmap, BenchmarkIOPath on one core (a proxy for the kernel's)", func(c *dispatch.CPUCosts) *sim.Time { return &c.TagGet }},
	{"TagPut", BasisSourced, "as TagGet", func(c *dispatch.CPUCosts) *sim.Time { return &c.TagPut }},
	{"BudgetGet", BasisSourced, "this library's budget map, BenchmarkIOPath on one core (a proxy)", func(c *dispatch.CPUCosts) *sim.Time { return &c.BudgetGet }},
	{"BudgetPut", BasisSourced, "as BudgetGet", func(c *dispatch.CPUCosts) *sim.Time { return &c.BudgetPut }},
	{"HostCheck", BasisAssumed, "scsi_queue_rq's admission checks; share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.HostCheck }},
	{"Insert", BasisAssumed, "ctx->lock hold of an insertion (and the elevator insert's share); share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.Insert }},
	{"Elevator", BasisAssumed, "dd->lock (and legacy queue_lock) hold per elevator operation; not measured", func(c *dispatch.CPUCosts) *sim.Time { return &c.Elevator }},
	{"Dispatch", BasisAssumed, "blk_mq_dispatch_rq_list per request; share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.Dispatch }},
	{"QueueRq", BasisAssumed, "the LLD's queuecommand; share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.QueueRq }},
	{"Completion", BasisAssumed, "interrupt to blk_mq_end_request; share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.Completion }},
	{"EndBio", BasisAssumed, "bio_endio + the ioengine's event + fio's reaping; share of the assumed path", func(c *dispatch.CPUCosts) *sim.Time { return &c.EndBio }},
	{"IPI", BasisAssumed, "a completion IPI send (a few hundred ns on x86 servers); not measured", func(c *dispatch.CPUCosts) *sim.Time { return &c.IPI }},
	{"Wakeup", BasisAssumed, "try_to_wake_up of a task or kblockd; not measured", func(c *dispatch.CPUCosts) *sim.Time { return &c.Wakeup }},
	{"QueueRun", BasisAssumed, "an hctx run's fixed part; not measured", func(c *dispatch.CPUCosts) *sim.Time { return &c.QueueRun }},
}

// scaleCostSteps applies the ParamCostPrefix factors of sc to c.
func scaleCostSteps(c dispatch.CPUCosts, sc Scale) dispatch.CPUCosts {
	for _, s := range costSteps {
		if k := sc.Of(ParamCostPrefix + s.field); k != 1 {
			p := s.get(&c)
			*p = sim.Time(float64(*p)*k + 0.5)
		}
	}
	if c.SubmitSyscall > c.Submit {
		c.SubmitSyscall = c.Submit
	}
	return c
}

// costScenarioParams names, per scenario, the parameters of its own list that are
// contention or CPU costs (the rest — device, placement, topology-free counts — are
// `blkmq claims --sensitivity`'s), and the steps its own entries already stand for.
var costScenarioParams = map[string]struct {
	own     []string
	covered []string // costSteps fields scaled by an own entry of the same meaning
}{
	"smartpqi": {own: []string{ParamCPUPath, ParamTransfer, ParamTransferSelf, ParamElevatorLines,
		"smartpqi.adapter-cost", ParamSmartpqiCPUsPerSocket}},
	"scsi-mq": {own: []string{ParamCPUPath, ParamTransfer, ParamTransferSelf, ParamElevatorLines,
		"srp.controller-cost"}},
	"budget-map": {own: []string{ParamCPUPath, ParamTransfer, ParamTransferSelf, ParamElevatorLines,
		paramBudgetGetPut, paramSubmitSyscall}, covered: []string{"BudgetGet", "BudgetPut", "SubmitSyscall"}},
}

// CostParams returns the contention and CPU cost parameters of the named scenario: its
// own grouped entries (ParamCPUPath, the transfer costs, ElevatorLines, scenario-specific
// per-command costs) followed by one ParamCostPrefix entry per costSteps field (value in
// ns as the scenario charges it: budget-map's path is scaled to its sourced total). It
// returns nil for a scenario outside 001, 002 and 003.
func CostParams(scenario string) []Param {
	sp, ok := costScenarioParams[scenario]
	s, found := Lookup(scenario)
	if !ok || !found {
		return nil
	}
	var out []Param
	for _, name := range sp.own {
		for _, p := range s.Params {
			if p.Name == name && p.Scalable {
				out = append(out, p)
			}
		}
	}
	c := dispatch.DefaultCPUCosts()
	if scenario == "budget-map" {
		c = scaleCPUPathBy(c, budgetMapPathFactor())
	}
	for _, st := range costSteps {
		skip := false
		for _, f := range sp.covered {
			skip = skip || f == st.field
		}
		if skip || *st.get(&c) == 0 {
			continue
		}
		ref := st.ref
		if scenario == "budget-map" && st.basis == BasisAssumed {
			ref = "assumed split of the sourced 1 us path (cpu.path): " + ref
		}
		out = append(out, Param{Name: ParamCostPrefix + st.field, Value: float64(*st.get(&c)), Unit: "ns",
			Basis: st.basis, Ref: ref, Scalable: true})
	}
	return out
}

// CostSensitivityClaims are the claims issue 15's done-when names: 001's two ratios,
// 002's patched mq-deadline read and 003's gain.
var CostSensitivityClaims = []string{"001/ratio/nr_hw_queues-1", "001/ratio/can_queue-div",
	"002/mq-deadline-patched/read", "003/IOPS-gain"}

// CostSensitivity evaluates claims (base: their unscaled results) with each
// CostParams entry of their scenarios halved and doubled (SensitivityFactors), one at
// a time. Rows are ordered by claim, then by CostParams' order. It returns an error
// naming a claim whose scenario has no cost parameters.
func CostSensitivity(ctx context.Context, claims []Claim, base []Result, o Options) ([]SensitivityRow, error) {
	for _, c := range claims {
		if CostParams(c.Scenario) == nil {
			return nil, fmt.Errorf("bench: CostSensitivity: claim %s: scenario %q has no cost parameters (want smartpqi, scsi-mq or budget-map)", c.ID, c.Scenario)
		}
	}
	return sensitivityOver(ctx, claims, base, func(s Scenario) []Param { return CostParams(s.Name) }, o), nil
}

// FormatCostSensitivity writes rows as a markdown table: one line per parameter, one
// column per claim with its value at ×0.5 / ×2, and "FLIP" where a scaled value is
// inside the claim's tolerance and the base value is not, or the other way round.
func FormatCostSensitivity(rows []SensitivityRow) string {
	var ids []string
	seen := map[string]bool{}
	type key struct{ claim, param string }
	cell := map[key]SensitivityRow{}
	var params []Param
	pseen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Claim.ID] {
			seen[r.Claim.ID] = true
			ids = append(ids, r.Claim.ID)
		}
		if !pseen[r.Param.Name] {
			pseen[r.Param.Name] = true
			params = append(params, r.Param)
		}
		cell[key{r.Claim.ID, r.Param.Name}] = r
	}
	var b strings.Builder
	b.WriteString("| parameter | basis | value |")
	for _, id := range ids {
		fmt.Fprintf(&b, " %s |", id)
	}
	b.WriteString("\n|---|---|---|")
	for range ids {
		b.WriteString("---|")
	}
	b.WriteString("\n| (base) | | |")
	for _, id := range ids {
		for _, r := range rows {
			if r.Claim.ID == id {
				fmt.Fprintf(&b, " %s (%s, %s) |", fmtSens(r.Base.Model), r.Base.Status, r.Claim.Bounds())
				break
			}
		}
	}
	b.WriteString("\n")
	var flips []string
	for _, p := range params {
		fmt.Fprintf(&b, "| %s | %s | %s %s |", p.Name, p.Basis, fmtSens(p.Value), p.Unit)
		for _, id := range ids {
			r, ok := cell[key{id, p.Name}]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			var vs []string
			for i, s := range r.Scaled {
				v := fmtSens(s.Model)
				inBase, _ := r.Claim.Within(r.Base.Model)
				in, _ := r.Claim.Within(s.Model)
				if in != inBase {
					v = "**" + v + " FLIP**"
					flips = append(flips, fmt.Sprintf("%s: %s (%s) ×%g → %s (base %s, accepted %s)", id, p.Name, p.Basis, SensitivityFactors[i], fmtSens(s.Model), fmtSens(r.Base.Model), r.Claim.Bounds()))
				}
				vs = append(vs, v)
			}
			fmt.Fprintf(&b, " %s |", strings.Join(vs, " / "))
		}
		b.WriteString("\n")
	}
	sort.Strings(flips)
	b.WriteString("\nFlips (the scaled value and the base value on different sides of the claim's tolerance):\n")
	if len(flips) == 0 {
		b.WriteString("- none\n")
	}
	for _, f := range flips {
		b.WriteString("- " + f + "\n")
	}
	return b.String()
}

// fmtSens prints v with four significant digits (model values and parameter values).
func fmtSens(v float64) string {
	switch {
	case v >= 1e5 || v <= -1e5:
		return fmt.Sprintf("%.1f K", v/1e3)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}
