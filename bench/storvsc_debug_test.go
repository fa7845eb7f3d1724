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
		d := 10 * time.Second
		if os.Getenv("STORVSC_60") != "" {
			d = 60 * time.Second
		}
		f, err := RunStorvsc(shared, 56, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("shared=%v wal %.1f IOPS clat %.0f us hogs %.0f wall %v events %d\n", shared, f.WalIOPS, f.WalClatUs, f.HogsIOPS, time.Since(st), f.Result.Events)
		wd := f.Wal.Fio.Write()
		fmt.Printf("  wal fio: slat %.0f us clat %.0f us lat %.0f us; IOPS x clat %.2f, IOPS x lat %.2f\n", wd.Slat.Mean/1e3, wd.Clat.Mean/1e3, wd.Lat.Mean/1e3,
			wd.IOPS*wd.Clat.Mean/1e9, wd.IOPS*wd.Lat.Mean/1e9)
		w := f.Wal.Wait
		fmt.Printf("  wal: n %d tagwait %.1f ms queued %.1f ms (dispatch list %.1f ms) device %.1f ms; slept %d (%.0f ms) direct %.1f ms; wouldblock %d merged %d cpu %d\n",
			w.N, w.TagWait/1e6, w.Queued/1e6, w.DispatchList/1e6, w.Device/1e6, w.Slept, w.SleptLatency/1e6, w.DirectLatency/1e6, w.WouldBlock, w.Merged, f.Wal.CPU)
		fmt.Printf("  q %+v sched %v\n", f.Result.Queues[0], f.Result.Schedulers)
		for i, h := range f.Result.Hctxs[0] {
			fmt.Printf("  hctx %d dispatched %d maxdispatch %d runs %d\n", i, h.Dispatched, h.MaxDispatch, h.Runs)
		}
		for _, j := range f.Result.Jobs[:2] {
			fmt.Printf("  hog %s iops %.0f clat %.0fus wait %+v\n", j.Spec.Instance(), j.Fio.Read().IOPS, j.Fio.Read().Clat.Mean/1e3, j.Wait)
		}
	}
	if os.Getenv("STORVSC_SWEEP") != "" {
		st := time.Now()
		m, err := runStorvscSweep("tags=per-hctx", 1)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := runStorvscSweep("tags=shared", 1)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range m2 {
			m["shared-"+k] = v
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
