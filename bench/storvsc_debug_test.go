package bench

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestStorvscDebug(t *testing.T) {
	if os.Getenv("STORVSC_DEBUG") == "" {
		t.Skip()
	}
	for _, shared := range []bool{false, true} {
		st := time.Now()
		f, err := RunStorvsc(shared, 56, 10*time.Second, 1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("shared=%v wal %.1f IOPS clat %.0f us hogs %.0f wall %v events %d\n", shared, f.WalIOPS, f.WalClatUs, f.HogsIOPS, time.Since(st), f.Result.Events)
		fmt.Printf("  wal wait %+v cpu %d\n  q %+v sched %v\n", f.Wal.Wait, f.Wal.CPU, f.Result.Queues[0], f.Result.Schedulers)
		for _, j := range f.Result.Jobs[:2] {
			fmt.Printf("  hog %s iops %.0f clat %.0fus wait %+v\n", j.Spec.Instance(), j.Fio.Read().IOPS, j.Fio.Read().Clat.Mean/1e3, j.Wait)
		}
	}
	if os.Getenv("STORVSC_SWEEP") != "" {
		st := time.Now()
		m, err := runStorvscSweep("sweep", 1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("sweep wall", time.Since(st))
		for _, k := range sortedKeys(m) {
			fmt.Printf("  %s = %.1f\n", k, m[k])
		}
	}
}

func sortedKeys(m map[string]float64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}
