package stack_test

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// scaleIOs is the number of I/Os one scaling run simulates, whatever its shape: the
// cost per simulated I/O is then comparable across job and CPU counts.
const scaleIOs = 1 << 18

// scaleRun simulates scaleIOs 4 KiB random reads spread over jobs libaio jobs
// (iodepth 4, unpinned) on cpus CPUs, one hctx per CPU sharing a host-wide tag set of
// 256 in front of a 20 µs null device with 64-deep LUN (so from 64 jobs up the tags
// are contended and submitters sleep in blk_mq_get_tag). jitter is the run's
// JitterSeed. It returns the run's result.
func scaleRun(tb testing.TB, engine string, jobs, cpus int, jitter uint64) *stack.Result {
	tb.Helper()
	per := max(scaleIOs/jobs, 1)
	cfg := stack.Config{NrCPUs: cpus, Host: stack.Host{CanQueue: 256, NrHwQueues: cpus, HostTagset: true}, Seed: 1,
		JitterSeed: jitter, Kernel: "6.1",
		LUNs: []stack.LUN{{QueueDepth: 64, Scheduler: "none", Device: func(eng *sim.Engine) (device.Device, error) {
			return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 20 * sim.Microsecond})
		}}}}
	job := fmt.Sprintf("[global]\ndirect=1\nbs=4k\nioengine=%s\nrw=randread\niodepth=4\nsize=%d\n[j]\nnumjobs=%d\n",
		engine, per*4096, jobs)
	specs, err := fio.Parse(strings.NewReader(job), "scale.fio")
	if err != nil {
		tb.Fatal(err)
	}
	res, err := stack.Run(cfg, specs)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// scaleJitterRuns counts the runs of each benchmark in this process (nextScaleJitter).
var scaleJitterRuns = map[string]uint64{}

// nextScaleJitter returns the next JitterSeed for benchmark name: 1, 2, 3, …
func nextScaleJitter(name string) uint64 {
	scaleJitterRuns[name]++
	return scaleJitterRuns[name]
}

// cpuTime returns the CPU time (user + system, ns) the process has used: on a
// shared, overloaded machine it measures the model's cost where wall time
// measures the queue for a core.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkScale measures the model's cost per simulated I/O (ns/simio wall time,
// cpu-ns/simio process CPU time, which includes the garbage collector's) and
// the heap a finished run retains per job (B/job: live heap with the result held,
// minus the live heap before, over jobs) against the number of fio jobs (8 CPUs) and
// against the number of CPUs (64 jobs). Each run simulates the same number of I/Os
// (scaleIOs), so a flat ns/simio is a model whose cost does not depend on how many
// threads wait. Each run uses its own JitterSeed (1, 2, 3, … per benchmark name over
// the process, so successive iterations and -count rounds differ), so that `-count N`
// shows the model's real spread. events/simio is the engine events
// fired per completed I/O. With -short (CI's smoke run) only the end shapes of each
// family run, with libaio.
func BenchmarkScale(b *testing.B) {
	type shape struct {
		by         string
		jobs, cpus int
	}
	var shapes []shape
	for _, j := range []int{1, 4, 16, 64, 256, 1024, 4096} {
		shapes = append(shapes, shape{"jobs", j, 8})
	}
	for _, c := range []int{2, 8, 32, 128, 1024} {
		shapes = append(shapes, shape{"cpus", 64, c})
	}
	engines := []string{"libaio", "io_uring"}
	if testing.Short() {
		// CI's smoke run: the end shapes of each family, one engine (4 runs, not 24)
		shapes = []shape{shapes[0], shapes[6], shapes[7], shapes[11]}
		engines = engines[:1]
	}
	for _, s := range shapes {
		for _, engine := range engines {
			b.Run(fmt.Sprintf("%s/engine=%s/jobs=%d/cpus=%d", s.by, engine, s.jobs, s.cpus), func(b *testing.B) {
				var ios, events, perJob, cpuNs, runs, async float64
				for i := 0; i < b.N; i++ {
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					t0 := cpuTime()
					res := scaleRun(b, engine, s.jobs, s.cpus, nextScaleJitter(b.Name()))
					cpuNs += float64(cpuTime() - t0)
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&after)
					for _, j := range res.Jobs {
						ios += float64(j.Fio.Read().TotalIOs)
					}
					events += float64(res.Events)
					for _, q := range res.Queues {
						runs += float64(q.Runs)
						async += float64(q.AsyncRuns)
					}
					perJob += (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(s.jobs)
					runtime.KeepAlive(res)
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ios, "ns/simio")
				b.ReportMetric(cpuNs/ios, "cpu-ns/simio")
				b.ReportMetric(events/ios, "events/simio")
				b.ReportMetric(perJob/float64(b.N), "B/job")
				b.ReportMetric(runs/ios, "runs/simio")
				b.ReportMetric(async/ios, "asyncruns/simio")
				if events > 0 {
					b.ReportMetric(cpuNs/events, "cpu-ns/event")
				}
			})
		}
	}
}

// BenchmarkScaleRatio runs each family's end shapes (1 and 4 096 jobs on 8 CPUs; 64
// jobs on 2 and 1 024 CPUs) alternately in every iteration and reports the ratio of
// their CPU time per simulated I/O (cost-ratio: the large shape's over the small
// one's; issue 18's target is at most 1.5) and of their engine events per I/O
// (events-ratio: the part of the growth that is the model's own work). Both shapes of
// a pair share the process and the host's load of the moment, so the ratio is
// steadier on a shared machine than two separate benchmarks' figures.
func BenchmarkScaleRatio(b *testing.B) {
	for _, f := range []struct {
		name         string
		small, large [2]int // jobs, cpus
	}{{"jobs=1-4096/cpus=8", [2]int{1, 8}, [2]int{4096, 8}}, {"jobs=64/cpus=2-1024", [2]int{64, 2}, [2]int{64, 1024}}} {
		b.Run(f.name, func(b *testing.B) {
			var cpu, ios, ev [2]float64
			for i := 0; i < b.N; i++ {
				for k, s := range [2][2]int{f.small, f.large} {
					runtime.GC()
					t0 := cpuTime()
					res := scaleRun(b, "libaio", s[0], s[1], nextScaleJitter(b.Name()))
					cpu[k] += float64(cpuTime() - t0)
					for _, j := range res.Jobs {
						ios[k] += float64(j.Fio.Read().TotalIOs)
					}
					ev[k] += float64(res.Events)
				}
			}
			b.ReportMetric((cpu[1]/ios[1])/(cpu[0]/ios[0]), "cost-ratio")
			b.ReportMetric((ev[1]/ios[1])/(ev[0]/ios[0]), "events-ratio")
			b.ReportMetric(cpu[0]/ios[0], "small-cpu-ns/simio")
			b.ReportMetric(cpu[1]/ios[1], "large-cpu-ns/simio")
		})
	}
}
