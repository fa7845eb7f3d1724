package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interruptStatus is the exit status of a run, sweep or claims stopped by SIGINT
// or SIGTERM after printing what it had: fio's (backend.c, sig_int sets
// exit_value to 128 whatever the signal).
const interruptStatus = 128

// secondSignalStatus is the exit status when a second signal arrives before the
// first one's results are out: the shell's 128 + SIGINT.
const secondSignalStatus = 130

// duplicateSignalWindow is how soon after the first signal the same signal counts as
// its duplicate delivery, not a second request: coreutils timeout sends its signal to
// the command and again to the command's process group (timeout.c cleanup), so both
// arrive within microseconds; a person pressing Ctrl-C twice takes longer.
const duplicateSignalWindow = 250 * time.Millisecond

// exitNow ends the process at a second signal (a variable so that a test can
// see the call).
var exitNow = os.Exit

// usr1Note is what a run prints at SIGUSR1, where fio prints its status report.
const usr1Note = "blkmq: signal 10 (SIGUSR1): fio would print the running jobs' statistics now and go on; blkmq does not report mid-run (the results come at the end, or at Ctrl-C for the model time reached); the run goes on"

// interrupt catches SIGINT and SIGTERM while a model runs (and SIGUSR1, which
// it answers with usr1Note). The first signal
// prints fio's "fio: terminating on signal N" on stderr and closes C, which
// the runs watch (stack.Limits.Interrupt) to end at the model time reached and
// report; a second one exits at once with secondSignalStatus, unless it is the same
// signal within duplicateSignalWindow (its duplicate delivery). Stop restores the
// default handling.
type interrupt struct {
	c      chan struct{}
	sigs   chan os.Signal
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	signal int // the first signal's number; 0 = none yet
}

// catchInterrupt starts catching SIGINT and SIGTERM; messages go to stderr.
func catchInterrupt(stderr io.Writer) *interrupt {
	in := &interrupt{c: make(chan struct{}), sigs: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(in.sigs, append([]os.Signal{os.Interrupt, syscall.SIGTERM}, statusSignals...)...)
	go func() {
		var first time.Time
		for n := 0; ; n++ {
			select {
			case <-in.done:
				return
			case s := <-in.sigs:
				if s != os.Interrupt && s != syscall.SIGTERM { // statusSignals
					// fio prints the running jobs' statistics at SIGUSR1
					// (show_running_run_stats) and goes on; the model cannot take
					// a mid-run snapshot without ending its jobs' windows, so it
					// says so and goes on
					fmt.Fprintln(stderr, usr1Note)
					n--
					continue
				}
				num := 2
				if s == syscall.SIGTERM {
					num = 15
				}
				if n > 0 && num == in.Signal() && time.Since(first) < duplicateSignalWindow {
					n-- // the first signal's duplicate delivery (timeout's group kill)
					continue
				}
				if n > 0 {
					fmt.Fprintf(stderr, "\nblkmq: signal %d again: exiting without results\n", num)
					exitNow(secondSignalStatus)
					return
				}
				// fio prints this on its output (log_info); blkmq on stderr, so that
				// JSON on stdout stays parseable
				fmt.Fprintf(stderr, "\nfio: terminating on signal %d\n", num)
				first = time.Now()
				in.mu.Lock()
				in.signal = num
				in.mu.Unlock()
				close(in.c)
			}
		}
	}()
	return in
}

// C is closed at the first signal.
func (in *interrupt) C() <-chan struct{} { return in.c }

// Signal returns the number of the signal caught, 0 if none.
func (in *interrupt) Signal() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.signal
}

// Stop stops catching signals.
func (in *interrupt) Stop() {
	in.once.Do(func() {
		signal.Stop(in.sigs)
		close(in.done)
	})
}

// interruptedError is the error of a command that a signal stopped after it
// printed its results: exit status interruptStatus, as fio's.
func interruptedError(format string, args ...any) error {
	return &exitError{interruptStatus, fmt.Errorf(format, args...)}
}

// interruptContext catches signals for a command whose work takes a context
// (claims): the context is cancelled at the first signal.
func interruptContext(cmd interface{ ErrOrStderr() io.Writer }) (context.Context, *interrupt) {
	sig := catchInterrupt(cmd.ErrOrStderr())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-sig.C():
		case <-sig.done:
		}
		cancel()
	}()
	return ctx, sig
}
