package bench

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestStorvscSensitivity is an exploration aid (STORVSC_SENS=1): how the wal figures
// move with the wake-up latencies that decide who takes a freed tag first.
func TestStorvscSensitivity(t *testing.T) {
	if os.Getenv("STORVSC_SENS") == "" {
		t.Skip("exploration only")
	}
	specs, _ := StorvscSpecs(60 * time.Second)
	for _, c := range []struct {
		name                   string
		wmin, wmax, rmin, rmax sim.Time
		owner, sticky          bool
	}{
		{"sticky-workers", 5e3, 30e3, 5e3, 30e3, false, true},
		{"workers-on-owner-cpu", 5e3, 30e3, 5e3, 30e3, true, false},
		{"equal-5-30us", 5e3, 30e3, 5e3, 30e3, false, false},
		{"workers-slow-50-100us", 50e3, 100e3, 5e3, 30e3, false, false},
		{"reap-slow-50-100us", 5e3, 30e3, 50e3, 100e3, false, false},
	} {
		for _, shared := range []bool{false, true} {
			cfg := StorvscConfig(shared, 56, 1)
			cfg.Timing.WakeupMin, cfg.Timing.WakeupMax = c.wmin, c.wmax
			cfg.Submit = stack.SubmitTiming{ReapMin: c.rmin, ReapMax: c.rmax, WorkersOnOwnerCPU: c.owner, StickyWorkers: c.sticky}
			res, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range res.Jobs {
				if j.Spec.Name == "wal" {
					w := j.Fio.Write()
					fmt.Printf("%-24s shared=%-5v wal %.0f IOPS clat %.1f ms slept %d/%d direct %.1f ms slept %.0f ms\n", c.name, shared, w.IOPS, w.Clat.Mean/1e6,
						j.Wait.Slept, j.Wait.N, j.Wait.DirectLatency/1e6, j.Wait.SleptLatency/1e6)
				}
			}
		}
	}
}
