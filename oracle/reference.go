package oracle

// CompareReference runs the model side of a reference case and compares it with
// the case's committed kernel results. Unless o sets one, the model adds the
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
	if o.EmulationOverhead == 0 {
		if o.EmulationOverhead, err = ix.Overhead(c); err != nil {
			return nil, nil, err
		}
	}
	m, err := RunModel(c, ix.JobPath(c), o)
	if err != nil {
		return nil, nil, err
	}
	return Compare(c.Name, kf, m.Figures(), c.KnownMisses), m, nil
}
