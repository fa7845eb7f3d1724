package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/stack"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// The resource flags (--max-memory, --max-events) are persistent flags of the root
// command, so run, sweep and any later command that runs the model take them; each
// model run gets them through runStack or withLimits (stack.Limits).

// byteSize is a --max-memory value: bytes, with an optional binary suffix (k, m, g,
// t; KiB … TiB); 0 = the stack's default, "none" = no limit; a negative number is
// refused (parseScaled).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "bytes" }

func (b *byteSize) Set(s string) error {
	v, err := parseScaled(s, 1024, []string{"k", "m", "g", "t", "p"})
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

// eventCount is a --max-events value: a count with an optional decimal suffix (k, M,
// G, T) or in e-notation (1e10); 0 = the stack's default, "none" = no limit; a
// negative number is refused (parseScaled).
type eventCount int64

func (e *eventCount) String() string { return strconv.FormatInt(int64(*e), 10) }
func (e *eventCount) Type() string   { return "count" }

func (e *eventCount) Set(s string) error {
	v, err := parseScaled(s, 1000, []string{"k", "m", "g", "t", "p"})
	if err != nil {
		return err
	}
	*e = eventCount(v)
	return nil
}

// parseScaled parses "N[suffix]" (suffix i-th of suffixes = base^(i+1), case
// insensitive, an optional trailing "iB"/"B"), e-notation, or "none" / "unlimited"
// (-1, no limit). A negative number is an error, not a spelling of "no limit": the
// value would otherwise silently lift the limit.
func parseScaled(s string, base float64, suffixes []string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "none" || t == "unlimited" {
		return -1, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := 1.0
	for i, suf := range suffixes {
		if strings.HasSuffix(t, suf) {
			t, mult = strings.TrimSuffix(t, suf), math.Pow(base, float64(i+1))
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number with an optional suffix (%s), or none", strings.Join(suffixes, ", "))
	}
	v := f * mult
	if v < 0 {
		return 0, fmt.Errorf("%s out of range [0, %d]: say none for no limit", strings.TrimSpace(s), int64(math.MaxInt64))
	}
	if v >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(v), nil
}

// registerLimitFlags adds --max-memory and --max-events to the root command.
func registerLimitFlags(root *cobra.Command) {
	var mem byteSize
	var ev eventCount
	f := root.PersistentFlags()
	f.Var(&mem, "max-memory", fmt.Sprintf("refuse a model run whose estimated memory exceeds this (bytes >= 0; k, m, g, t suffixes; 0 = the default below, none = no limit, a negative value is refused) (default: half of this machine's memory, %s)",
		fmtGiB(stack.DefaultMaxMemory())))
	f.Var(&ev, "max-events", fmt.Sprintf("stop a model run whose simulated events exceed, or are projected to exceed, this (>= 0; k, M, G suffixes or 1e10; 0 = the default below, none = no limit, a negative value is refused) (default %.0e, about half an hour to an hour of one core)",
		float64(stack.DefaultMaxEvents)))
}

func fmtGiB(n int64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }

// withLimits returns cfg with the --max-memory and --max-events of cmd, and its
// --hist-bits where the command has it (run, sweep).
func withLimits(cmd *cobra.Command, cfg stack.Config) stack.Config {
	if f := cmd.Flags().Lookup("hist-bits"); f != nil && f.Changed {
		if n, err := cmd.Flags().GetInt("hist-bits"); err == nil {
			cfg.HistogramBits = n // out of range: refused by stack.Run's Config check
		}
	}
	if v, ok := cmd.Flags().Lookup("max-memory").Value.(*byteSize); ok {
		cfg.Limits.MaxMemory = int64(*v)
	}
	if v, ok := cmd.Flags().Lookup("max-events").Value.(*eventCount); ok {
		cfg.Limits.MaxEvents = int64(*v)
	}
	return cfg
}

// progressDelay is how long a run goes before it shows progress: short runs show none.
const progressDelay = time.Second

// runStack runs the model with cmd's limits, ending it early when stop is closed
// (nil: never; see interrupt), and shows its progress on stderr as fio's --eta
// says: "auto" (the default) a progress bar when stderr is a terminal and the
// run takes more than a second, cleared before the results are printed;
// "always" the bar at once on a terminal, else a line per second ("never": none).
func runStack(cmd *cobra.Command, cfg stack.Config, specs []fio.Spec, eta string, stop <-chan struct{}) (*stack.Result, error) {
	cfg = withLimits(cmd, cfg)
	cfg.Limits.Interrupt = stop
	stderr := cmd.ErrOrStderr()
	f, ok := stderr.(*os.File)
	tty := ok && term.IsTerminal(int(f.Fd()))
	switch {
	case eta == "never" || !tty && eta != "always":
		return stack.Run(cfg, specs)
	case !tty:
		cfg.Limits.Progress = newLineProgress(stderr, time.Now()).update
		return stack.Run(cfg, specs)
	}
	p := newRunProgress(stderr, time.Now())
	if eta == "always" {
		p.start = p.start.Add(-progressDelay)
	}
	cfg.Limits.Progress = p.update
	res, err := stack.Run(cfg, specs)
	p.finish()
	return res, err
}

// runProgress draws a run's progress once it has taken progressDelay.
type runProgress struct {
	w     io.Writer
	start time.Time
	bar   *progressbar.ProgressBar
}

func newRunProgress(w io.Writer, start time.Time) *runProgress {
	return &runProgress{w: w, start: start}
}

func (p *runProgress) update(pr stack.Progress) {
	if p.bar == nil {
		if time.Since(p.start) < progressDelay {
			return
		}
		p.bar = progressbar.NewOptions(1000, progressbar.OptionSetWriter(p.w), progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(), progressbar.OptionFullWidth())
	}
	desc := fmt.Sprintf("model time %v", pr.Now)
	if pr.End > 0 {
		desc += fmt.Sprintf(" of %v", pr.End)
	} else {
		desc += ", bytes done"
	}
	p.bar.Describe(desc)
	_ = p.bar.Set(int(pr.Done * 1000))
}

func (p *runProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}

// memoryBoundParallel caps want, the number of model runs to start at once (replicas,
// sweep points), so that their estimated memory together stays within the memory
// limit, which stack.Run applies to each run alone (cfgs[i].Limits.MaxMemory: 0 =
// stack.DefaultMaxMemory, negative = none). The estimate of each run is
// stack.Check's, read from the *stack.ResourceLimitError it returns when the limit is
// 1 byte; the largest one decides. The result is at least 1: a run over the limit
// alone is refused by Run itself, naming the flag.
func memoryBoundParallel(want int, cfgs []stack.Config, specs [][]fio.Spec) int {
	if want <= 1 || len(cfgs) == 0 {
		return max(want, 1)
	}
	limit := cfgs[0].Limits.MaxMemory
	if limit == 0 {
		limit = stack.DefaultMaxMemory()
	}
	if limit < 0 {
		return want
	}
	var most float64
	for i, c := range cfgs {
		c.Limits.MaxMemory, c.Limits.MaxEvents = 1, -1
		var rl *stack.ResourceLimitError
		if err := stack.Check(c, specs[i]); errors.As(err, &rl) && rl.Resource == "memory" {
			most = max(most, rl.Estimate)
		}
	}
	if most <= 0 {
		return want
	}
	return max(1, min(want, int(float64(limit)/most)))
}
