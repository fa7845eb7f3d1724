package oracle

import "testing"

// TestFioParentOption checks that ModelOptions.FioParent reaches the model's placement
// (stack.Placement.FioParent) and that it is off by default.
func TestFioParentOption(t *testing.T) {
	ix, err := LoadIndex("../testdata/kernel/hosts/2026-12-03-eve/configs.json")
	if err != nil {
		t.Fatal(err)
	}
	var c *Case
	for i := range ix.Cases {
		if ix.Cases[i].Name == "hold-p11-4q-ph-none-aio-rpin-walfree" {
			c = &ix.Cases[i]
		}
	}
	if c == nil {
		t.Fatal("case hold-p11-4q-ph-none-aio-rpin-walfree not in the eve set")
	}
	for _, on := range []bool{false, true} {
		cfg, _, _, err := prepareModel(c, ix.JobPath(c), ModelOptions{Seed: 1, FioParent: on})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Placement.FioParent != on {
			t.Errorf("FioParent %v: Placement.FioParent = %v", on, cfg.Placement.FioParent)
		}
	}
}
