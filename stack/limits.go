package stack

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// Limits bound the resources of one Run. Before the run, Run estimates its memory
// (from the jobs, their iodepth and the host's CPUs, hctxs and tags) and a lower bound
// of its simulated events (size-bound jobs: their I/O count); during the run it
// counts the events and projects the total from the rate so far (model time for a
// time-bound run, bytes issued for a size-bound one). Over a limit Run returns a
// *ResourceLimitError naming the figure and the limit, before the run for the
// estimates, as soon as the projection is clear during it.
type Limits struct {
	// MaxMemory caps the estimated memory of the run (bytes); 0 = DefaultMaxMemory
	// (half of this machine's memory), negative = no limit.
	MaxMemory int64
	// MaxEvents caps the simulated engine events of the run (the measure of its CPU
	// time: about 5–15 M events per second of one core); 0 = DefaultMaxEvents,
	// negative = no limit.
	MaxEvents int64
	// Progress, when non-nil, is called from Run's goroutine about every million
	// events (and at least at every watchdog check) with how far the run is. It must
	// not call back into the run; it does not change the result.
	Progress func(Progress)
	// Interrupt, when non-nil, ends the run early once it is closed (fio's
	// SIGINT: terminate the jobs and report what they did): Run looks at it
	// every InterruptSlice events and returns the results up to
	// the model time reached, every unfinished job's window ending there and
	// Result.Interrupted set. It does not change the result of a run it does
	// not interrupt.
	Interrupt <-chan struct{}
}

// Progress is how far a run is (Limits.Progress).
type Progress struct {
	// Now is the model time reached (ns).
	Now sim.Time
	// End is the model time a time-bound run ends at; 0 for a size-bound run.
	End sim.Time
	// Done is the fraction of the run done, [0, 1]: model time for a time-bound
	// run, bytes issued for a size-bound one.
	Done float64
	// Events is the number of engine events fired so far.
	Events uint64
}

// DefaultMaxEvents is Limits.MaxEvents of the zero value: 10^10 events, about half
// an hour to an hour of one core.
const DefaultMaxEvents = 10_000_000_000

// DefaultMaxMemory returns Limits.MaxMemory of the zero value: half of this machine's
// memory (MemTotal in /proc/meminfo), or 4 GiB when that cannot be read.
func DefaultMaxMemory() int64 { return defaultMaxMemory() }

var defaultMaxMemory = sync.OnceValue(func() int64 {
	if total := memTotal(); total > 0 {
		return total / 2
	}
	return 4 << 30
})

// memTotal reads MemTotal (bytes) from /proc/meminfo; 0 if unknown.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

func (l Limits) validate() error { return nil } // every value is meaningful (0 = default, < 0 = none)

func (l Limits) maxMemory() float64 {
	switch {
	case l.MaxMemory < 0:
		return -1
	case l.MaxMemory == 0:
		return float64(DefaultMaxMemory())
	}
	return float64(l.MaxMemory)
}

func (l Limits) maxEvents() float64 {
	switch {
	case l.MaxEvents < 0:
		return -1
	case l.MaxEvents == 0:
		return DefaultMaxEvents
	}
	return float64(l.MaxEvents)
}

// Memory model of a run (bytes), rounded up from runtime.MemStats allocation figures
// measured once on this code (about 55 KiB per job, 200 B per io_u, 75 B per (CPU,
// hctx) pair; no test pins them): a base, each job (its thread, collector,
// histograms), each io_u (with its bio), and per LUN each (CPU, hctx) pair (ctx maps)
// and each driver or scheduler tag.
const (
	memBase      = 8 << 20
	memPerJob    = 96 << 10
	memPerIoU    = 320
	memPerCtx    = 128
	memPerTag    = 64
	eventsPerIO  = 2 // lower bound of the engine events one I/O costs (submit, complete)
	projectAfter = 0.1
	// projectMinEvents are the events a projection needs before it may refuse a run
	// that is not a tenth done.
	projectMinEvents = 100_000
)

// estimateMemory returns the estimated bytes of the run and how they add up.
func (c *Config) estimateMemory(specs []fio.Spec) (float64, string) {
	hw := float64(max(c.Host.NrHwQueues, 1))
	ctx := float64(c.NrCPUs) * hw * float64(len(c.LUNs)) * memPerCtx
	tags := 0.0
	for _, l := range c.LUNs {
		tags += hw * float64(c.Host.CanQueue+max(l.NrRequests, 2*c.Host.CanQueue)) * memPerTag
	}
	ious := 0.0
	for i := range specs {
		ious += float64(max(specs[i].EffectiveIODepth, 1))
	}
	jobs := float64(len(specs)) * memPerJob
	if b := c.HistogramBits; b > fio.DefaultHistogramBits {
		// finer histograms: each job's two clat histograms may fill up
		jobs += float64(len(specs)) * 2 * float64(fio.HistogramMaxBytes(b)-fio.HistogramMaxBytes(fio.DefaultHistogramBits))
	}
	total := memBase + ctx + tags + ious*memPerIoU + jobs
	return total, fmt.Sprintf("%d jobs × %s, %.0f io_us × %d B, %d LUNs × %d CPUs × %.0f hctxs and their tags",
		len(specs), fmtBytes(memPerJob), ious, memPerIoU, len(c.LUNs), c.NrCPUs, hw)
}

// sizeBound reports whether the spec ends when its bytes are done (no runtime).
func sizeBound(s *fio.Spec) bool { return s.Runtime == 0 }

// sizeBoundBytes is what a size-bound job transfers (job.done): io_size, else its
// size, times loops, or number_ios blocks if fewer; as a float, so no product of
// the options' ranges overflows.
func sizeBoundBytes(s *fio.Spec, size int64) float64 {
	b := size
	if s.IOSize > 0 {
		b = s.IOSize
	}
	total := float64(b) * float64(max(s.Loops, 1))
	if s.NumberIOs > 0 {
		total = min(total, float64(s.NumberIOs)*float64(s.BlockSize))
	}
	return total
}

// checkResources compares the estimates made before the run with Limits.
func (c *Config) checkResources(specs []fio.Spec) error {
	if lim := c.Limits.maxMemory(); lim >= 0 {
		if m, how := c.estimateMemory(specs); m > lim {
			return &ResourceLimitError{Resource: "memory", Estimate: m, Limit: lim, Field: "Limits.MaxMemory", Flag: "--max-memory", Detail: how}
		}
	}
	if lim := c.Limits.maxEvents(); lim >= 0 {
		ios := 0.0
		for i := range specs {
			s := &specs[i]
			if sizeBound(s) {
				size := s.Size
				if size == 0 {
					size = 1 << 30
				}
				ios += sizeBoundBytes(s, size) / float64(s.BlockSize)
			}
		}
		if ev := ios * eventsPerIO; ev > lim {
			return &ResourceLimitError{Resource: "events", Estimate: ev, Limit: lim, Field: "Limits.MaxEvents", Flag: "--max-events",
				Detail: fmt.Sprintf("at least %d per I/O × %s I/Os of the size-bound jobs", eventsPerIO, fmtCount(ios))}
		}
	}
	return nil
}

// errStopped reports that a handler stopped the engine (sim.Engine.Stop): the run
// ends there.
var errStopped = errors.New("stack: engine stopped")

// errInterrupted reports that Limits.Interrupt was closed: Run ends the run at
// the model time reached and returns its results.
var errInterrupted = errors.New("stack: run interrupted")

// guard runs the engine in chunks of about chunkEvents events, checks the event
// limit and its projection between chunks, and reports progress.
type guard struct {
	r        *runner
	limit    float64  // max events, < 0 = none
	end      sim.Time // time-bound end; 0 = size-bound
	chunk    sim.Time // model time of the next chunk
	target   float64  // events per chunk
	lastEv   uint64
	progress func(Progress)
}

const chunkEvents = 1 << 20

// InterruptSlice is how many events a run with Limits.Interrupt fires at most
// between two looks at it: about 20-40 ms of wall time at the model's 1-2 µs of
// CPU per event, so Ctrl-C stops a run promptly (the guard's chunks of about
// chunkEvents events would take a second or more).
const InterruptSlice = 1 << 14

func (r *runner) newGuard(end sim.Time) *guard {
	g := &guard{r: r, limit: r.cfg.Limits.maxEvents(), end: end, chunk: sim.Millisecond, target: chunkEvents, progress: r.cfg.Limits.Progress}
	if g.limit >= 0 {
		g.target = min(chunkEvents, max(g.limit/16, 1024))
	}
	return g
}

// runTo fires the events up to t (as eng.RunUntil(t), in chunks) and returns a
// *ResourceLimitError when the run goes, or is projected to go, over the event
// limit, or errStopped when a handler stopped the engine.
func (g *guard) runTo(t sim.Time) error {
	eng := g.r.eng
	for eng.Now() < t {
		from := eng.Now()
		next := t
		if g.chunk < t-from {
			next = from + g.chunk
		}
		if stop := g.r.cfg.Limits.Interrupt; stop != nil {
			// a signal is looked at every InterruptSlice events, not only between
			// chunks; the slices fire the events one RunUntil would
			for eng.RunUntilCapped(next, InterruptSlice) {
				select {
				case <-stop:
					return errInterrupted
				default:
				}
			}
		} else {
			eng.RunUntil(next)
		}
		if eng.Now() < next {
			return errStopped
		}
		ev := eng.Fired()
		if d := ev - g.lastEv; d > 0 {
			// aim the next chunk at chunkEvents at the rate just seen
			g.chunk = max(sim.Time(float64(next-from)*g.target/float64(d)), sim.Microsecond)
		} else {
			g.chunk = min(2*g.chunk+sim.Millisecond, sim.MaxTime/4)
		}
		g.lastEv = ev
		if err := g.check(); err != nil {
			return err
		}
	}
	return nil
}

// done is the fraction of the run done: model time, or bytes issued by the
// size-bound jobs.
func (g *guard) done() float64 {
	now := g.r.eng.Now()
	if g.end > 0 {
		return min(float64(now)/float64(g.end), 1)
	}
	var issued, total float64
	for _, j := range g.r.jobs {
		if sizeBound(&j.spec) {
			issued += float64(j.issuedBytes)
			total += sizeBoundBytes(&j.spec, j.size)
		}
	}
	if total == 0 {
		return 0
	}
	return min(issued/total, 1)
}

func (g *guard) check() error {
	ev := g.r.eng.Fired()
	f := g.done()
	if g.progress != nil {
		g.progress(Progress{Now: g.r.eng.Now(), End: g.end, Done: f, Events: ev})
	}
	if g.r.cfg.Limits.Interrupt != nil {
		select {
		case <-g.r.cfg.Limits.Interrupt:
			return errInterrupted
		default:
		}
	}
	if g.limit < 0 {
		return nil
	}
	fired := float64(ev)
	if fired > g.limit {
		return &ResourceLimitError{Resource: "events", Estimate: fired, Limit: g.limit, Field: "Limits.MaxEvents", Flag: "--max-events",
			Detail: fmt.Sprintf("counted: the run was stopped at model time %v, %.3g %% done", g.r.eng.Now(), 100*f)}
	}
	if f <= 0 {
		return nil
	}
	// Project from the rate so far; a start-up transient (a burst bucket, a ramp)
	// can make it high, so before a tenth of the run it decides only when over twice
	// the limit.
	proj := fired / f
	if proj > 2*g.limit && fired >= min(projectMinEvents, g.limit/10) || f >= projectAfter && proj > g.limit {
		what := "model time"
		if g.end == 0 {
			what = "bytes issued"
		}
		return &ResourceLimitError{Resource: "events", Estimate: proj, Limit: g.limit, Field: "Limits.MaxEvents", Flag: "--max-events",
			Detail: fmt.Sprintf("projected: %s events in the first %.3g %% of the run by %s (model time %v)", fmtCount(fired), 100*f, what, g.r.eng.Now())}
	}
	return nil
}
