// Command blkmq runs the blkmq models from the command line.
//
//	blkmq claims            reproduce the published figures of the source documents
//	blkmq run JOB.fio       run an fio job file on a described host and disk
//	blkmq sweep JOB.fio     vary one or two settings and tabulate or plot a metric
//	blkmq validate JOB.fio  run a job on the model and on Debian's 6.1 kernel in QEMU
//	blkmq version           print the module version
//
// Exit status: 0 on success, 1 when a claim is missed or a scenario fails or the model
// hangs (the watchdog), 2 on bad usage or input, or a run over --max-memory or
// --max-events. The status comes from the error's type, never from its text.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/blkmq/blkmq/stack"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitError carries an exit status chosen by a command through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the error the status was chosen for.
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(report(os.Stderr, newRootCmd().Execute()))
}

// report prints err (if it has a message) as "blkmq: MESSAGE" to w and returns the
// exit status (exitStatus).
func report(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if !errors.As(err, &ee) || ee.err != nil {
		fmt.Fprintln(w, "blkmq:", err)
	}
	return exitStatus(err)
}

// exitStatus maps an error to the exit status by its type (errors.As), never by its
// text (a job may be named "watchdog"):
//
//   - nil: 0;
//   - an *exitError: the status its command chose (claims: 1 for a missed claim);
//   - a *stack.WatchdogError: 1, the model failed (a modelled hang) on valid input;
//   - a *stack.ResourceLimitError (the run would exceed --max-memory or
//     --max-events), a *stack.ConfigError, a parse or setup error, or any other: 2,
//     bad usage or input.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var we *stack.WatchdogError
	if errors.As(err, &we) {
		return 1
	}
	return 2
}

// classify gives a model run's error its exit status (exitStatus): 1 for a modelled
// hang, 2 for an input the stack rejects or a resource limit.
func classify(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{exitStatus(err), err}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "blkmq",
		Short: "Model the Linux block layer's tag allocation and dispatch",
		Long: `blkmq models the Linux block layer (sbitmap, blk_mq_tags, SCSI budget, blk-mq
dispatch) in virtual time, and reproduces the published figures of kernel patch
discussions from the modelled mechanisms.`,
		Example: `  blkmq claims                                   # reproduce the published figures
  blkmq run testdata/fio/000_storvsc.fio --kernel 5.17 --cpus 16 --device cloud \
      --set device/queue_depth=15 --set queue/nr_requests=56
  blkmq sweep testdata/fio/000_storvsc.fio --kernel 5.17 --cpus 16 --device cloud \
      --vary queue/nr_requests=8..256 --vary tags=per-hctx,shared --csv out.csv`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	registerLimitFlags(root)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newClaimsCmd(), newVersionCmd(), newRunCmd(), newSweepCmd(), newValidateCmd())
	return root
}

// flagError rewrites a flag value the flag's type cannot parse (pflag's
// InvalidValueError, whose text is strconv's: `strconv.ParseInt: parsing "1.5":
// invalid syntax`) as the flag, the value, the kind of value wanted and the flag's
// own usage line, which gives its range; every flag error is bad usage (exit 2).
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return usageError(err)
	}
	f := ive.GetFlag()
	var want string
	switch f.Value.Type() {
	case "int", "int64", "int32":
		want = "a whole number"
	case "uint64", "uint", "uint32":
		want = "a whole number in [0, 18446744073709551615]"
	case "float64":
		want = "a number"
	case "duration":
		want = "a duration with its unit (ns, us, ms, s, m, h; e.g. 1500ms, 10s, 2m)"
	case "bool":
		want = "true or false"
	default:
		return usageError(err) // blkmq's own flag types say what they want
	}
	usage := strings.Join(strings.Fields(f.Usage), " ")
	return usageError(fmt.Errorf("--%s %q: want %s; --%s: %s", f.Name, ive.GetValue(), want, f.Name, usage))
}
