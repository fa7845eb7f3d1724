package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/internal/stats"
	"github.com/blkmq/blkmq/stack"
	"github.com/spf13/cobra"
)

// maxReplicas bounds --replicas.
const maxReplicas = 1000

// runReplicas runs cfg n times with model-jitter seeds 1 … n (stack.Config.JitterSeed;
// replica 1 is the default stream, so its result is the run without --replicas), at
// most GOMAXPROCS at a time, and returns the results in seed order. The workload seed
// (cfg.Seed) is the same for all: the spread is the model's timing jitter only.
//
// Fewer run at once when GOMAXPROCS of them would together pass the memory limit,
// which holds for each run alone (memoryBoundParallel).
//
// first runs replica 1 (runStack, so that it shows progress); the others run with
// stack.Run. When stop is closed (nil: never) no further replica starts — its result
// is nil — and the running ones end at the model time reached (Result.Interrupted).
func runReplicas(cfg stack.Config, specs []fio.Spec, n int, stop <-chan struct{},
	first func(stack.Config, []fio.Spec) (*stack.Result, error)) ([]*stack.Result, error) {
	out := make([]*stack.Result, n)
	errs := make([]error, n)
	// as many at once as fit under the memory limit together (memoryBoundParallel)
	sem := make(chan struct{}, memoryBoundParallel(min(runtime.GOMAXPROCS(0), n), []stack.Config{cfg}, [][]fio.Spec{specs}))
	cfg.Limits.Interrupt = stop
	var wg sync.WaitGroup
launch:
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-stop:
			break launch
		}
		select { // a slot and the signal together: the signal wins
		case <-stop:
			<-sem
			break launch
		default:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := cfg
			c.JitterSeed = uint64(i) + 1
			sp := append([]fio.Spec(nil), specs...)
			if i == 0 && first != nil {
				out[i], errs[i] = first(c, sp)
				return
			}
			out[i], errs[i] = stack.Run(c, sp)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("replica %d (jitter seed %d): %w", i+1, i+1, err)
		}
	}
	return out, nil
}

// replicaTally sorts the replicas of an interrupted --replicas run: finished (ran
// to their end), interrupted (ended by the signal at the model time reached) and
// not started, each as jitter seeds.
type replicaTally struct {
	finished, interrupted, notStarted []uint64
}

func tallyReplicas(results []*stack.Result) replicaTally {
	var t replicaTally
	for i, r := range results {
		seed := uint64(i) + 1
		switch {
		case r == nil:
			t.notStarted = append(t.notStarted, seed)
		case r.Interrupted:
			t.interrupted = append(t.interrupted, seed)
		default:
			t.finished = append(t.finished, seed)
		}
	}
	return t
}

// Spread is one figure over the replicas: their mean, sample standard deviation and
// the 95 % confidence interval of the mean (Student's t with n−1 degrees of freedom;
// Lo = Hi = Mean for one replica).
type Spread struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Lo     float64 `json:"ci95_lo"`
	Hi     float64 `json:"ci95_hi"`
}

// spreadOf summarises xs (at least one value).
func spreadOf(xs []float64) Spread {
	var s Spread
	s.Mean, s.Stddev = stats.MeanSD(xs)
	if len(xs) < 2 {
		s.Lo, s.Hi = s.Mean, s.Mean
		return s
	}
	h := tQuantile975(len(xs)-1) * s.Stddev / math.Sqrt(float64(len(xs)))
	s.Lo, s.Hi = s.Mean-h, s.Mean+h
	return s
}

// tQuantile975 is Student's t 0.975 quantile (stats.TQuantile975).
var tQuantile975 = stats.TQuantile975

// DirSpread is the spread of one direction's figures of a reported job.
type DirSpread struct {
	IOPS     Spread `json:"iops"`
	BWBytes  Spread `json:"bw_bytes"`
	ClatMean Spread `json:"clat_mean_ns"`
	ClatP99  Spread `json:"clat_p99_ns"`
	SlatMean Spread `json:"slat_mean_ns"`
	TotalIOs Spread `json:"total_ios"`
}

// JobSpread is the spread of one reported job (or group_reporting group).
type JobSpread struct {
	JobName string     `json:"jobname"`
	Read    *DirSpread `json:"read,omitempty"`
	Write   *DirSpread `json:"write,omitempty"`
}

// DiskSpread is the spread of one disk's disk_util figures (fio.DiskUtil).
type DiskSpread struct {
	Name        string `json:"name"`
	ReadIOs     Spread `json:"read_ios"`
	WriteIOs    Spread `json:"write_ios"`
	ReadMerges  Spread `json:"read_merges"`
	WriteMerges Spread `json:"write_merges"`
	ReadTicks   Spread `json:"read_ticks"`
	WriteTicks  Spread `json:"write_ticks"`
	InQueue     Spread `json:"in_queue"`
	Util        Spread `json:"util"`
}

// ReplicaSummary is the "blkmq" object --replicas adds to fio's JSON.
type ReplicaSummary struct {
	// Replicas is the number of replicas summarised and JitterSeeds their seeds:
	// all of them, or after a signal the ones that finished.
	Replicas    int         `json:"replicas"`
	JitterSeeds []uint64    `json:"jitter_seeds"`
	Jobs        []JobSpread `json:"jobs"`
	// DiskUtil is the spread of each disk's disk_util entry (the top-level
	// disk_util is replica 1's, as the jobs are).
	DiskUtil []DiskSpread `json:"disk_util,omitempty"`
	// After a signal: the replicas asked for, and the seeds of those the signal
	// ended early (their results are not in the spread) or kept from starting.
	Requested   int      `json:"replicas_requested,omitempty"`
	Interrupted []uint64 `json:"interrupted_seeds,omitempty"`
	NotStarted  []uint64 `json:"not_started_seeds,omitempty"`
	// Warnings and Notes are the run's warning and note lines, as printed on
	// stderr (fio.BlkmqOutput's, which a run without --replicas writes).
	Warnings []string `json:"warnings,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// summarise collects each reported job's figures over the replicas reps, whose
// jitter seeds are seeds (all have the same jobs in the same order: the same
// specs). No replica gives an empty summary.
func summarise(reps []*fio.Output, seeds []uint64) ReplicaSummary {
	s := ReplicaSummary{Replicas: len(reps), JitterSeeds: append([]uint64{}, seeds...), Jobs: []JobSpread{}}
	if len(reps) == 0 {
		return s
	}
	for k, j := range reps[0].Jobs {
		js := JobSpread{JobName: j.JobName}
		dir := func(get func(*fio.JobOutput) *fio.DirOutput) *DirSpread {
			var iops, bw, clat, p99, slat, ios []float64
			any := false
			for _, r := range reps {
				d := get(&r.Jobs[k])
				any = any || d.TotalIOs > 0
				iops = append(iops, d.IOPS)
				bw = append(bw, float64(d.BWBytes))
				clat = append(clat, d.Clat.Mean)
				p99 = append(p99, float64(d.Clat.Percentile["99.000000"]))
				slat = append(slat, d.Slat.Mean)
				ios = append(ios, float64(d.TotalIOs))
			}
			if !any {
				return nil
			}
			return &DirSpread{IOPS: spreadOf(iops), BWBytes: spreadOf(bw), ClatMean: spreadOf(clat),
				ClatP99: spreadOf(p99), SlatMean: spreadOf(slat), TotalIOs: spreadOf(ios)}
		}
		js.Read = dir(func(o *fio.JobOutput) *fio.DirOutput { return &o.Read })
		js.Write = dir(func(o *fio.JobOutput) *fio.DirOutput { return &o.Write })
		s.Jobs = append(s.Jobs, js)
	}
	for k := range reps[0].DiskUtil {
		var ds [8][]float64
		name := ""
		for _, r := range reps {
			var d fio.DiskUtil
			if k >= len(r.DiskUtil) || json.Unmarshal(r.DiskUtil[k], &d) != nil {
				continue
			}
			name = d.Name
			for i, v := range []float64{float64(d.ReadIOs), float64(d.WriteIOs), float64(d.ReadMerges), float64(d.WriteMerges),
				float64(d.ReadTicks), float64(d.WriteTicks), float64(d.InQueue), d.Util} {
				ds[i] = append(ds[i], v)
			}
		}
		if len(ds[0]) == 0 {
			continue
		}
		s.DiskUtil = append(s.DiskUtil, DiskSpread{Name: name, ReadIOs: spreadOf(ds[0]), WriteIOs: spreadOf(ds[1]),
			ReadMerges: spreadOf(ds[2]), WriteMerges: spreadOf(ds[3]), ReadTicks: spreadOf(ds[4]), WriteTicks: spreadOf(ds[5]),
			InQueue: spreadOf(ds[6]), Util: spreadOf(ds[7])})
	}
	return s
}

// replicaOutputs renders each replica's fio output, disk_util included (nil
// results, replicas a signal kept from starting, give nil).
func replicaOutputs(results []*stack.Result, specs []fio.Spec, plus bool) []*fio.Output {
	outs := make([]*fio.Output, len(results))
	for i, r := range results {
		if r == nil {
			continue
		}
		outs[i] = reportOf(r).Output(fio.OutputOptions{Plus: plus, GlobalOptions: fio.GlobalOptionMap(specs), Depths: depthsOf(r),
			DiskUtil: r.DiskUtil()})
	}
	return outs
}

// writeReplicaJSON writes replica 1's fio JSON with the spread over all replicas
// under a "blkmq" key after fio's own keys.
func writeReplicaJSON(w io.Writer, first *fio.Output, s ReplicaSummary) error {
	doc := struct {
		fio.Output
		Blkmq ReplicaSummary `json:"blkmq"`
	}{*first, s}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // fio writes ">=64" as it is
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// writeReplicaText appends the spread to fio's text output.
func writeReplicaText(w io.Writer, s ReplicaSummary) error {
	if s.Requested > 0 {
		fmt.Fprintf(w, "\nblkmq: %d replicas (model jitter seeds %v; above: seed 1, to the signal if it was interrupted); mean [95%% interval]\n", s.Replicas, s.JitterSeeds)
	} else {
		fmt.Fprintf(w, "\nblkmq: %d replicas (model jitter seeds 1-%d; above: seed 1); mean [95%% interval]\n", s.Replicas, s.Replicas)
	}
	for _, j := range s.Jobs {
		for _, d := range []struct {
			name string
			d    *DirSpread
		}{{"read", j.Read}, {"write", j.Write}} {
			if d.d == nil {
				continue
			}
			_, err := fmt.Fprintf(w, "  %s %s: IOPS=%.1f [%.1f, %.1f], clat avg=%.0f [%.0f, %.0f] ns, clat p99=%.0f [%.0f, %.0f] ns\n",
				j.JobName, d.name, d.d.IOPS.Mean, d.d.IOPS.Lo, d.d.IOPS.Hi, d.d.ClatMean.Mean, d.d.ClatMean.Lo, d.d.ClatMean.Hi,
				d.d.ClatP99.Mean, d.d.ClatP99.Lo, d.d.ClatP99.Hi)
			if err != nil {
				return err
			}
		}
	}
	for _, d := range s.DiskUtil {
		_, err := fmt.Fprintf(w, "  disk %s: util=%.2f%% [%.2f, %.2f], ios=%.1f/%.1f, in_queue=%.1f [%.1f, %.1f] ms\n",
			d.Name, d.Util.Mean, d.Util.Lo, d.Util.Hi, d.ReadIOs.Mean, d.WriteIOs.Mean, d.InQueue.Mean, d.InQueue.Lo, d.InQueue.Hi)
		if err != nil {
			return err
		}
	}
	if s.Requested > 0 {
		_, err := fmt.Fprintf(w, "  interrupted: %d of %d replicas finished and are summarised (seeds %v); interrupted: %v; not started: %v\n",
			s.Replicas, s.Requested, s.JitterSeeds, s.Interrupted, s.NotStarted)
		return err
	}
	return nil
}

// runReplicated is `blkmq run --replicas n`: replica 1's fio output (the run without
// --replicas, disk_util included) plus the spread over all replicas, in each of
// formats (normal, json, json+; terse has no place for the spread and is refused),
// to path or stdout. Ctrl-C (SIGINT) or SIGTERM starts no further replica and ends
// the running ones at the model time reached, as plain run does: the output is
// replica 1's results so far and the spread over the replicas that had finished,
// and the exit status is 128; a second signal exits at once.
//
// warnings and notes are the lines already printed for the run; they go into the
// JSON's "blkmq" object with the ones the replicas add.
func runReplicated(cmd *cobra.Command, cfg stack.Config, specs []fio.Spec, n int, formats []string, path, eta string, warnings, notes []string) error {
	if slices.Contains(formats, "terse") {
		return usageError(fmt.Errorf("--replicas %d: the terse (--minimal) format has no field for the spread: use normal, json or json+", n))
	}
	sig := catchInterrupt(cmd.ErrOrStderr())
	results, err := runReplicas(cfg, specs, n, sig.C(), func(c stack.Config, sp []fio.Spec) (*stack.Result, error) {
		return runStack(cmd, c, sp, eta, sig.C())
	})
	sig.Stop()
	if err != nil {
		return runError(cmd, err)
	}
	if results[0] == nil {
		return interruptedError("run --replicas %d interrupted by signal %d before its first replica started: no results", n, sig.Signal())
	}
	for _, l := range idleJobLines(results[0]) {
		fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", l)
		warnings = append(warnings, l)
	}
	outs := replicaOutputs(results, specs, slices.Contains(formats, "json+"))
	tally := tallyReplicas(results)
	var done []*fio.Output
	for _, seed := range tally.finished {
		done = append(done, outs[seed-1])
	}
	sum := summarise(done, tally.finished)
	sum.Warnings, sum.Notes = warnings, notes
	stopped := len(tally.finished) < n
	if stopped {
		sum.Requested, sum.Interrupted, sum.NotStarted = n, tally.interrupted, tally.notStarted
		fmt.Fprintf(cmd.ErrOrStderr(), "blkmq: %d of %d replicas finished (their spread is reported); %d interrupted at the model time reached, %d not started\n",
			len(tally.finished), n, len(tally.interrupted), len(tally.notStarted))
	}
	err = writeOutputs(cmd, path, formats, func(w io.Writer, f string) error {
		if f == "json" || f == "json+" {
			return writeReplicaJSON(w, outs[0], sum)
		}
		if err := reportOf(results[0]).WriteTextWith(w, fio.TextOptions{Specs: specs, Depths: depthsOf(results[0]), DiskUtil: results[0].DiskUtil()}); err != nil {
			return err
		}
		return writeReplicaText(w, sum)
	})
	if err == nil && stopped {
		return interruptedError("run --replicas %d interrupted by signal %d: %d replicas finished; the results above are replica 1's up to the signal", n, sig.Signal(), len(tally.finished))
	}
	return err
}
