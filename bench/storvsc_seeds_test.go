package bench

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestStorvscSeeds(t *testing.T) {
	if os.Getenv("STORVSC_SEEDS") == "" {
		t.Skip()
	}
	for seed := uint64(1); seed <= 4; seed++ {
		for _, shared := range []bool{false, true} {
			f, err := RunStorvsc(shared, 56, 60*time.Second, seed)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("seed %d shared=%v wal %.1f IOPS clat %.0f ms hogs %.0f slept %d/%d\n", seed, shared, f.WalIOPS, f.WalClatUs/1e3, f.HogsIOPS, f.Wal.Wait.Slept, f.Wal.Wait.N)
		}
	}
}
