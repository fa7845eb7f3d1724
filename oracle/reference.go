package oracle

import "github.com/blkmq/blkmq/stack"

// CompareReference runs the model side of a reference case and compares it with
// the case's committed kernel results: the mean of its runs when it has repeats
// (Index.Reruns), each row then carrying the run-to-run difference. The model runs
// the profile of the kernel the results were measured on (Facts.Kernel). Unless o sets one, the model adds the
// emulation overhead calibrated for the case's driver (Index.Overhead). It returns an error when the results are
// missing or the model rejects the case.
func (ix *Index) CompareReference(c *Case, o ModelOptions) (*Comparison, *ModelRun, error) {
	fj, facts, err := ix.Reference(c)
	if err != nil {
		return nil, nil, err
	}
	kf, err := KernelFigures(fj, facts)
	if err != nil {
		return nil, nil, err
	}
	var runDiff *Comparison
	if rfj, rfacts, err := ix.Reruns(c); err != nil {
		return nil, nil, err
	} else if len(rfj) > 0 {
		all := []*Figures{kf}
		for i := range rfj {
			f, err := KernelFigures(rfj[i], rfacts[i])
			if err != nil {
				return nil, nil, err
			}
			all = append(all, f)
		}
		runDiff = Compare(c.Name, all[0], all[1], nil)
		kf = MeanFigures(all...)
	}
	if o.Kernel == "" {
		o.Kernel = facts.Kernel // the profile of the kernel the results were measured on
	}
	if o.EmulationSlowdown == 0 {
		if o.EmulationSlowdown, err = ix.Slowdown(); err != nil {
			return nil, nil, err
		}
	}
	if o.Wake == (stack.EmulationOptions{}) && !o.WakeOff {
		o.Wake = DefaultWake
	}
	if DefaultIRQPreempt && !o.IRQPreemptOff {
		o.IRQPreempt = true
	}
	if o.EmulationOverhead == 0 {
		if o.EmulationOverhead, err = ix.OverheadWith(c, o.EmulationSlowdown, o.Wake); err != nil {
			return nil, nil, err
		}
	}
	if !o.NoCycleOverhead && o.ReapSubmitDelay == 0 && o.EmulationOverhead >= 0 {
		if o.ReapSubmitDelay, err = ix.CycleOverheadWith(c, o.EmulationSlowdown, o.Wake); err != nil {
			return nil, nil, err
		}
	}
	// The guest's setup I/O (Facts.GuestSetup) differs from boot to boot in its
	// timing, and on a tag set shared by several disks that timing decides when the
	// timeout work idles a disk's hctx: the model then runs once per kernel run,
	// each with that run's setup, and its figures are their mean as the kernel's are.
	setups := []*stack.GuestSetup{o.Setup}
	if o.Setup == nil {
		setups[0] = facts.GuestSetup()
		if len(facts.Disks) > 1 && setups[0] != nil {
			_, rfacts, _ := ix.Reruns(c)
			for _, f := range rfacts {
				if s := f.GuestSetup(); s != nil {
					setups = append(setups, s)
				}
			}
		}
	}
	var m *ModelRun
	var mf []*Figures
	for i, s := range setups {
		o.Setup = s
		mi, err := RunModel(c, ix.JobPath(c), o)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			m = mi
		}
		mf = append(mf, mi.Figures())
	}
	cmp := Compare(c.Name, kf, MeanFigures(mf...), c.KnownMisses)
	if runDiff != nil {
		cmp.withRunDiff(runDiff)
	}
	return cmp, m, nil
}
