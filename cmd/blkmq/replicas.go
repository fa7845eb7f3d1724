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
	"github.com/blkmq/blkmq/stack"
	"github.com/spf13/cobra"
)

// maxReplicas bounds --replicas.
const maxReplicas = 1000

// runReplicas runs cfg n times with model-jitter seeds 1 … n (stack.Config.JitterSeed;
// replica 1 is the default stream, so its result is the run without --replicas), at
// most GOMAXPROCS at a time, and returns the results in seed order. The workload seed
// (cfg.Seed) is the same for all: the spread is the model's timing jitter only.
func runReplicas(cfg stack.Config, specs []fio.Spec, n int) ([]*stack.Result, error) {
	out := make([]*stack.Result, n)
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := cfg
			c.JitterSeed = uint64(i) + 1
			sp := append([]fio.Spec(nil), specs...)
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
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s := Spread{Mean: sum / n}
	if len(xs) < 2 {
		s.Lo, s.Hi = s.Mean, s.Mean
		return s
	}
	var m2 float64
	for _, x := range xs {
		m2 += (x - s.Mean) * (x - s.Mean)
	}
	s.Stddev = math.Sqrt(m2 / (n - 1))
	h := tQuantile975(len(xs)-1) * s.Stddev / math.Sqrt(n)
	s.Lo, s.Hi = s.Mean-h, s.Mean+h
	return s
}

// tQuantile975 is the 97.5 % quantile of Student's t distribution with df degrees of
// freedom (df >= 1): tabulated to df 30, then the normal quantile's Cornish-Fisher
// expansion in 1/df (error below 1e-3).
func tQuantile975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df <= len(table) {
		return table[df-1]
	}
	z, v := 1.959964, float64(df)
	return z + (z*z*z+z)/(4*v) + (5*z*z*z*z*z+16*z*z*z+3*z)/(96*v*v)
}

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

// ReplicaSummary is the "blkmq" object --replicas adds to fio's JSON.
type ReplicaSummary struct {
	Replicas    int         `json:"replicas"`
	JitterSeeds []uint64    `json:"jitter_seeds"`
	Jobs        []JobSpread `json:"jobs"`
}

// summarise collects each reported job's figures over the replicas (all have the same
// jobs in the same order: the same specs).
func summarise(reps []*fio.Output) ReplicaSummary {
	s := ReplicaSummary{Replicas: len(reps)}
	for i := range reps {
		s.JitterSeeds = append(s.JitterSeeds, uint64(i)+1)
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
	return s
}

// replicaOutputs renders each replica's fio output.
func replicaOutputs(results []*stack.Result, specs []fio.Spec, plus bool) []*fio.Output {
	outs := make([]*fio.Output, len(results))
	for i, r := range results {
		outs[i] = reportOf(r).Output(fio.OutputOptions{Plus: plus, GlobalOptions: fio.GlobalOptionMap(specs), Depths: depthsOf(r)})
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
	fmt.Fprintf(w, "\nblkmq: %d replicas (model jitter seeds 1-%d; above: seed 1); mean [95%% interval]\n", s.Replicas, s.Replicas)
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
	return nil
}

// runReplicated is `blkmq run --replicas n`: replica 1's fio output (the run without
// --replicas) plus the spread over all replicas, in each of formats (normal, json,
// json+; terse has no place for the spread and is refused), to path or stdout.
func runReplicated(cmd *cobra.Command, cfg stack.Config, specs []fio.Spec, n int, formats []string, path string) error {
	if slices.Contains(formats, "terse") {
		return usageError(fmt.Errorf("--replicas %d: the terse (--minimal) format has no field for the spread: use normal, json or json+", n))
	}
	results, err := runReplicas(cfg, specs, n)
	if err != nil {
		return runError(cmd, err)
	}
	for _, l := range idleJobLines(results[0]) {
		fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", l)
	}
	outs := replicaOutputs(results, specs, slices.Contains(formats, "json+"))
	sum := summarise(outs)
	return writeOutputs(cmd, path, formats, func(w io.Writer, f string) error {
		if f == "json" || f == "json+" {
			return writeReplicaJSON(w, outs[0], sum)
		}
		if err := reportOf(results[0]).WriteTextWith(w, fio.TextOptions{Specs: specs, Depths: depthsOf(results[0])}); err != nil {
			return err
		}
		return writeReplicaText(w, sum)
	})
}
