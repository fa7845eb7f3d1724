// Command storvsc-explore prints the internals of the storvsc scenario of package
// bench (source 000): where the wal job's requests wait, how the figures move with the
// seed, the wake-up timing, the scheduler and the kernel era. It is an exploration aid
// for model work (it was a set of environment-gated tests in bench); the claims
// themselves are judged by bench.TestClaims and `blkmq claims`.
//
// Usage:
//
//	go run ./cmd/storvsc-explore -what debug   # one 10 s run per policy (STORVSC_60=1: 60 s; STORVSC_SWEEP=1: the nr_requests sweep)
//	go run ./cmd/storvsc-explore -what seeds   # seeds 1-4
//	go run ./cmd/storvsc-explore -what wakeups # wake-up and reap timing variants
//	go run ./cmd/storvsc-explore -what none    # shared tags with scheduler none
//	go run ./cmd/storvsc-explore -what eras    # kernels 5.9, 5.17, 6.1, 6.12
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/blkmq/blkmq/bench"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

func main() {
	what := flag.String("what", "debug", "debug, seeds, wakeups, none or eras")
	flag.Parse()
	switch *what {
	case "debug":
		debug()
	case "seeds":
		seeds()
	case "wakeups":
		wakeups()
	case "none":
		schedNone()
	case "eras":
		eras()
	default:
		fmt.Fprintf(os.Stderr, "storvsc-explore: -what %q: allowed values are debug, seeds, wakeups, none, eras\n", *what)
		os.Exit(2)
	}
}

func debug() {
	for _, shared := range []bool{false, true} {
		st := time.Now()
		d := 10 * time.Second
		if os.Getenv("STORVSC_60") != "" {
			d = 60 * time.Second
		}
		f, err := bench.RunStorvsc(shared, 56, d, 1)
		if err != nil {
			log.Fatal(err)
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
		sweep, _ := bench.Lookup("storvsc-nr-requests")
		st := time.Now()
		m, err := sweep.Run("tags=per-hctx", 1)
		if err != nil {
			log.Fatal(err)
		}
		m2, err := sweep.Run("tags=shared", 1)
		if err != nil {
			log.Fatal(err)
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

func seeds() {
	for seed := uint64(1); seed <= 4; seed++ {
		for _, shared := range []bool{false, true} {
			f, err := bench.RunStorvsc(shared, 56, 60*time.Second, seed)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("seed %d shared=%v wal %.1f IOPS clat %.0f ms hogs %.0f slept %d/%d\n", seed, shared, f.WalIOPS, f.WalClatUs/1e3, f.HogsIOPS, f.Wal.Wait.Slept, f.Wal.Wait.N)
		}
	}
}

func wakeups() {
	specs, _ := bench.StorvscSpecs(60 * time.Second)
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
			cfg := bench.StorvscConfig(shared, 56, 1)
			cfg.Timing.WakeupMin, cfg.Timing.WakeupMax = c.wmin, c.wmax
			cfg.Submit = stack.SubmitTiming{ReapMin: c.rmin, ReapMax: c.rmax, WorkersOnOwnerCPU: c.owner, StickyWorkers: c.sticky}
			res, err := stack.Run(cfg, specs)
			if err != nil {
				log.Fatal(err)
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

func schedNone() {
	specs, _ := bench.StorvscSpecs(60 * time.Second)
	for _, sched := range []string{"none", "mq-deadline"} {
		for _, shared := range []bool{false, true} {
			cfg := bench.StorvscConfig(shared, 56, 1)
			cfg.LUNs[0].Scheduler = sched
			res, err := stack.Run(cfg, specs)
			if err != nil {
				log.Fatal(err)
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

func eras() {
	specs, _ := bench.StorvscSpecs(60 * time.Second)
	for _, k := range []string{"5.9", "5.17", "6.1", "6.12"} {
		for _, shared := range []bool{false, true} {
			cfg := bench.StorvscConfig(shared, 56, 1)
			cfg.Kernel = k
			res, err := stack.Run(cfg, specs)
			if err != nil {
				log.Fatal(err)
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
