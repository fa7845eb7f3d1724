package oracle

import (
	"path/filepath"
	"testing"
)

// TestHostTransfer checks the model against reference sets recorded on other hosts
// (testdata/kernel/hosts/*/configs.json): committed cases re-run on a host that
// emulates the guest at another speed, each index calibrated from its own
// calibration cells only (the per-command overhead and the emulation slowdown), with
// the same tolerances, known-miss rules and effect signs as TestModelVsKernel and
// TestPolicyEffects. Nothing of the model is tuned on these sets: how each case's
// figures move with the host's speed is the model's prediction.
func TestHostTransfer(t *testing.T) {
	paths, err := filepath.Glob("../testdata/kernel/hosts/*/configs.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skip("no host-transfer reference set")
	}
	for _, p := range paths {
		ix, err := LoadIndex(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			f, err := ix.Slowdown()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: emulation slowdown %.2f (this host's calibration cells)", p, f)
			for drv, name := range ix.Calibration {
				d, err := ix.Overhead(ix.Find(name))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %s per-command emulation overhead %v (%s)", p, drv, d, name)
			}
			t.Run("cases", func(t *testing.T) { checkModelVsKernel(t, ix) })
			t.Run("effects", func(t *testing.T) { checkPolicyEffects(t, ix) })
		})
	}
}
