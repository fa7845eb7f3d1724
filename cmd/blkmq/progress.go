package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/blkmq/blkmq/bench"
	"github.com/blkmq/blkmq/stack"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// etaModes are the values of --eta, as fio's --eta takes them.
var etaModes = []string{"auto", "always", "never"}

// checkEta validates an --eta value.
func checkEta(v string) error {
	if !contains(etaModes, v) {
		return fmt.Errorf("--eta %q: allowed values are auto, always, never", v)
	}
	return nil
}

// lineProgress prints a run's progress as plain lines (--eta=always when stderr
// is not a terminal, as fio's --eta=always --eta-newline): the first update at
// once, then at most one a second.
type lineProgress struct {
	w    io.Writer
	last time.Time
	now  func() time.Time
}

func newLineProgress(w io.Writer, start time.Time) *lineProgress {
	return &lineProgress{w: w, now: time.Now}
}

// progressLine describes pr: "model time 1.2s of 10s (12.0%)", or for a
// size-bound run "model time 1.2s, 12.0% of the bytes done".
func progressLine(pr stack.Progress) string {
	if pr.End > 0 {
		return fmt.Sprintf("model time %v of %v (%.1f%%)", pr.Now, pr.End, 100*pr.Done)
	}
	return fmt.Sprintf("model time %v, %.1f%% of the bytes done", pr.Now, 100*pr.Done)
}

func (p *lineProgress) update(pr stack.Progress) {
	t := p.now()
	if !p.last.IsZero() && t.Sub(p.last) < time.Second {
		return
	}
	p.last = t
	fmt.Fprintf(p.w, "blkmq: progress: %s\n", progressLine(pr))
}

// withScenarioProgress runs f (claims' scenario runs) and shows, as --eta says,
// how many of the scenario runs are done (through opts.Progress): on a terminal
// ("auto", "always") what is running, the runs done and the time elapsed, once a
// second after the first, cleared when f returns; with "always" and no terminal a
// line per finished run; "never" nothing.
func withScenarioProgress(cmd *cobra.Command, eta, what string, opts *bench.Options, f func()) {
	w := cmd.ErrOrStderr()
	fd, ok := w.(*os.File)
	tty := ok && term.IsTerminal(int(fd.Fd()))
	switch {
	case eta == "never" || !tty && eta != "always":
		f()
		return
	case !tty:
		opts.Progress = func(d, t int) { fmt.Fprintf(w, "blkmq: progress: %d of %d scenario runs done\n", d, t) }
		f()
		return
	}
	var done, total atomic.Int64
	opts.Progress = func(d, t int) { done.Store(int64(d)); total.Store(int64(t)) }
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		start := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-stop:
				if shown {
					fmt.Fprint(fd, "\r\033[K")
				}
				return
			case now := <-tick.C:
				runs := ""
				if t := total.Load(); t > 0 {
					runs = fmt.Sprintf(": %d of %d scenario runs done", done.Load(), t)
				}
				fmt.Fprintf(fd, "\r\033[K%s%s… %s", what, runs, now.Sub(start).Truncate(time.Second))
				shown = true
			}
		}
	}()
	f()
	close(stop)
	<-stopped
}
