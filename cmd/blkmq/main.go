// Command blkmq runs the blkmq models from the command line.
//
//	blkmq claims            reproduce the published figures of the source documents
//	blkmq run JOB.fio       run an fio job file on a described host and disk
//	blkmq sweep JOB.fio     vary one or two settings and tabulate or plot a metric
//	blkmq version           print the module version
//
// Exit status: 0 on success, 1 when a claim is missed or a scenario fails, 2 on bad
// usage or input.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// exitError carries an exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.code != 1 {
				fmt.Fprintln(os.Stderr, "blkmq:", ee.err)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "blkmq:", err)
		os.Exit(2)
	}
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
	root.AddCommand(newClaimsCmd(), newVersionCmd(), newRunCmd(), newSweepCmd(), newValidateCmd())
	return root
}
