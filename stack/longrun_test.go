package stack_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// heapProbe wraps a device and measures the live heap (after a forced GC) every
// probeEvery accepted commands, keeping the peak: the memory a long run retains,
// measured while it runs.
type heapProbe struct {
	device.Device
	n, peak uint64
}

const probeEvery = 1 << 15

func (p *heapProbe) Submit(cmd *device.Command) device.Status {
	st := p.Device.Submit(cmd)
	if p.n++; p.n%probeEvery == 0 {
		p.sample()
	}
	return st
}

func (p *heapProbe) sample() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.peak = max(p.peak, ms.HeapAlloc)
}

// longRun runs ios 4 KiB random reads (libaio, iodepth 32) and sequential writes
// (io_uring, iodepth 8, 64 KiB) on a null device behind mq-deadline with host-wide
// tags, size-bound, and returns the peak live heap sampled during the run (bytes)
// and the I/Os completed.
func longRun(tb testing.TB, ios int64) (peak uint64, done int64) {
	tb.Helper()
	probe := &heapProbe{}
	cfg := stack.Config{NrCPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 4, HostTagset: true}, Seed: 1,
		Watchdog: sim.Time(ios) * 100 * sim.Microsecond,
		LUNs: []stack.LUN{{QueueDepth: 32, Scheduler: "mq-deadline", Device: func(eng *sim.Engine) (device.Device, error) {
			d, err := device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 20 * sim.Microsecond})
			probe.Device = d
			return probe, err
		}}}}
	job := fmt.Sprintf("[global]\ndirect=1\nbs=4k\n[r]\nioengine=libaio\nrw=randread\niodepth=32\nsize=%d\n"+
		"[w]\nioengine=io_uring\nrw=write\niodepth=8\nsize=%d\n", ios*3/4*4096, ios/4*4096)
	specs, err := fio.Parse(strings.NewReader(job), "longrun.fio")
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	res, err := stack.Run(cfg, specs)
	if err != nil {
		tb.Fatal(err)
	}
	probe.sample() // the result is still live: its size counts too
	for _, j := range res.Jobs {
		done += j.Fio.Read().TotalIOs + j.Fio.Write().TotalIOs
	}
	return probe.peak, done
}

// TestLongRunMemoryFlat: the heap a run retains does not grow with the number of
// simulated I/Os (Run's doc promises it): the peak live heap of a 10^6-I/O run is
// less than twice that of a 10^5-I/O run (10^4 vs 10^5 under -short). With
// BLKMQ_LONGRUN=1 it also runs 10^8 I/Os (minutes) against the 10^6 figure.
func TestLongRunMemoryFlat(t *testing.T) {
	small, large := int64(1e5), int64(1e6)
	if testing.Short() {
		small, large = 1e4, 1e5
	}
	sizes := []int64{small, large}
	if os.Getenv("BLKMQ_LONGRUN") == "1" {
		sizes = append(sizes, 1e8)
	}
	var base uint64
	for i, n := range sizes {
		peak, done := longRun(t, n)
		if done != n*3/4+n/4 {
			t.Fatalf("%d I/Os: %d completed", n, done)
		}
		t.Logf("%.0e I/Os: peak live heap %d bytes", float64(n), peak)
		if i == 0 {
			base = peak
			continue
		}
		if peak >= 2*base {
			t.Errorf("%.0e I/Os: peak live heap %d bytes >= 2 x %d (%.0e I/Os): memory grows with run length", float64(n), peak, base, float64(small))
		}
	}
}

// BenchmarkSimulatedIO runs one simulation of b.N I/Os (the longRun mix), so ns/op,
// B/op and allocs/op are per simulated I/O; peak-live-B is the largest live heap
// measured during the run.
func BenchmarkSimulatedIO(b *testing.B) {
	b.ReportAllocs()
	peak, _ := longRun(b, max(int64(b.N), 4))
	b.ReportMetric(float64(peak), "peak-live-B")
}
