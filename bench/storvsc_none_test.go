package bench

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/blkmq/blkmq/stack"
)

// TestStorvscSharedNone is an exploration aid (STORVSC_NONE=1): shared tags with the
// scheduler forced to none (the source does not state which scheduler ran).
func TestStorvscSharedNone(t *testing.T) {
	if os.Getenv("STORVSC_NONE") == "" {
		t.Skip("exploration only")
	}
	specs, _ := StorvscSpecs(60 * time.Second)
	for _, sched := range []string{"none", "mq-deadline"} {
		for _, shared := range []bool{false, true} {
			cfg := StorvscConfig(shared, 56, 1)
			cfg.LUNs[0].Scheduler = sched
			res, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			hogs := 0.0
			for _, j := range res.Jobs {
				if j.Spec.Name == "read_hogs" {
					hogs += j.Fio.Read().IOPS
				}
			}
			for _, j := range res.Jobs {
				if j.Spec.Name == "wal" {
					w := j.Fio.Write()
					fmt.Printf("sched=%-11s shared=%-5v wal %.1f IOPS clat %.1f ms hogs %.0f slept %d/%d direct %.1f ms slept %.0f ms merged %d\n", sched, shared, w.IOPS, w.Clat.Mean/1e6,
						hogs, j.Wait.Slept, j.Wait.N, j.Wait.DirectLatency/1e6, j.Wait.SleptLatency/1e6, j.Wait.Merged)
				}
			}
		}
	}
}
