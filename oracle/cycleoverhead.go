package oracle

import (
	"fmt"
	"time"

	"github.com/blkmq/blkmq/stack"
)

// CycleOverhead derives, from the queue-depth-1 calibration run that EmulationOverhead
// uses, the part of each command's cycle that the guest spends outside clat beyond
// the model: the kernel's 1/IOPS − clat mean (fio's slat and its loop between
// io_getevents and the next io_submit) minus the model's. At queue depth 1 a cycle is
// slat + clat + that loop, so EmulationOverhead (fitted on clat) leaves it out, and
// the model's cycle is short by it: on the round-8 references calib-scsi_debug gives
// 0.234 ms against the model's 0.021 (4.478 ms cycles against 4.255) and calib-null_blk
// 0.177 against 0.015. It is an instrument correction (QEMU TCG), not a block-layer
// mechanism; the guest does not show it as CPU time (a CPU-bound reader's cpu_busy
// has no room for it), so the model adds it as latency (stack.SubmitTiming.ReapSubmitDelay).
// It returns an error when either side has no single job with IOPS; a negative
// difference is returned as 0.
func CycleOverhead(kernel, model *Figures) (time.Duration, error) {
	if len(kernel.Jobs) != 1 || len(model.Jobs) != 1 {
		return 0, fmt.Errorf("oracle: cycle calibration needs exactly one job on each side (kernel %d, model %d)", len(kernel.Jobs), len(model.Jobs))
	}
	k, m := kernel.Jobs[0], model.Jobs[0]
	if k.IOPS <= 0 || m.IOPS <= 0 {
		return 0, fmt.Errorf("oracle: cycle calibration: no IOPS (kernel %v, model %v)", k.IOPS, m.IOPS)
	}
	gap := func(j JobFigures) float64 { return 1e9/j.IOPS - j.ClatMean }
	return time.Duration(max(gap(k)-gap(m), 0)), nil
}

// CycleOverheadWith is the per-cycle latency (CycleOverhead) calibrated for the case's
// driver on the case that calibrates its overhead (Index.Calibration, or the one
// BLKMQ_ORACLE_CALIBRATION names, as OverheadWith) at this slowdown and wake-up
// charging, the model run with the driver's completion overhead (OverheadWith); 0 for
// a driver without a calibration case. Calibrations are cached.
func (ix *Index) CycleOverheadWith(c *Case, slowdown float64, wake stack.EmulationOptions) (time.Duration, error) {
	drv := c.Driver()
	name, ok, err := ix.calibrationCase(drv)
	if err != nil || !ok {
		return 0, err
	}
	slowdown = max(slowdown, 1)
	k := overheadKey{drv, slowdown, wake}
	if d, ok := ix.cycle[k]; ok {
		return d, nil
	}
	cal := ix.Find(name)
	over, err := ix.OverheadWith(cal, slowdown, wake)
	if err != nil {
		return 0, err
	}
	kf, mf, err := ix.calibrationFigures(cal, ModelOptions{Seed: 1, EmulationSlowdown: slowdown, Wake: wake, EmulationOverhead: over})
	if err != nil {
		return 0, err
	}
	d, err := CycleOverhead(kf, mf)
	if err != nil {
		return 0, fmt.Errorf("oracle: calibration case %s: %w", name, err)
	}
	if ix.cycle == nil {
		ix.cycle = map[overheadKey]time.Duration{}
	}
	ix.cycle[k] = d
	return d, nil
}
