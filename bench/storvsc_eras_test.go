package bench

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/blkmq/blkmq/stack"
)

func TestStorvscEras(t *testing.T) {
	if os.Getenv("STORVSC_ERAS") == "" {
		t.Skip()
	}
	specs, _ := StorvscSpecs(60 * time.Second)
	for _, k := range []string{"5.9", "5.17", "6.1", "6.12"} {
		for _, shared := range []bool{false, true} {
			cfg := StorvscConfig(shared, 56, 1)
			cfg.Kernel = k
			res, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range res.Jobs {
				if j.Spec.Name == "wal" {
					w := j.Fio.Write()
					fmt.Printf("kernel %-5s shared=%-5v sched=%s wal %.1f IOPS clat %.1f ms slept %d/%d direct %.1f ms\n", k, shared, res.Schedulers[0], w.IOPS, w.Clat.Mean/1e6, j.Wait.Slept, j.Wait.N, j.Wait.DirectLatency/1e6)
				}
			}
		}
	}
}
