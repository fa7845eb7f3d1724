package stack_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/stack"
)

// TestIOSizeCountsInEventEstimate: a size-bound job transfers io_size, not size
// (fio loops over the region until io_size is done). The run's event estimate and
// its projection counted size only, so size=1m io_size=1P (2.7e11 I/Os) passed the
// pre-run check and ran until it had fired the whole event limit (about half an
// hour to an hour of one core) instead of stopping at once with exit 2. Now it is
// refused before the run; a small io_size still runs to its io_size.
func TestIOSizeCountsInEventEstimate(t *testing.T) {
	cfg := baseConfig()
	_, err := stack.Run(cfg, parse(t, "[a]\nrw=randread\nsize=1m\nio_size=1p\n"))
	var rl *stack.ResourceLimitError
	if !errors.As(err, &rl) || rl.Resource != "events" || !strings.Contains(err.Error(), "size-bound") {
		t.Fatalf("err %v, want a *ResourceLimitError on events before the run", err)
	}
	res, err := stack.Run(baseConfig(), parse(t, "[a]\nrw=randread\nsize=1m\nio_size=8m\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0].Fio.Read().TotalIOs; got != 2048 {
		t.Errorf("io_size=8m of 4 KiB: %d I/Os, want 2048", got)
	}
}

// TestLoopsTimesIOSizeOverflow: io_size (or size) × loops past 4 EiB is refused,
// naming loops (stack checked size × loops, not io_size). io_size=1p loops=1048576 is 2^70 bytes, which wrapped to 0 in the
// run's int64 count, so the job stopped before its first I/O and the run exited 0
// with nothing done.
func TestLoopsTimesIOSizeOverflow(t *testing.T) {
	_, err := fio.Parse(strings.NewReader("[a]\nrw=randread\nsize=1m\nio_size=1p\nloops=1048576\n"), "t.fio")
	if err == nil || !strings.Contains(err.Error(), "loops=1048576") || !strings.Contains(err.Error(), "over 4611686018427387904 bytes") {
		t.Fatalf("parse: err %v, want loops named with the 4 EiB bound", err)
	}
	specs := parse(t, "[a]\nrw=randread\nsize=1m\n")
	specs[0].IOSize, specs[0].Loops = 1<<50, 1<<20
	_, err = stack.Run(baseConfig(), specs)
	var ce *stack.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "io_size 1125899906842624 × loops 1048576") {
		t.Fatalf("stack.Run of a Spec built in Go: err %v, want a *ConfigError naming loops", err)
	}
}
