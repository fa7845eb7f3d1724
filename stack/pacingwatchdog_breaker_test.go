package stack_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestPacingIsNotAHang: a size-bound job paced by its own options, with more than
// the watchdog (1 h) between two I/Os — thinktime=2h, or rate=1 (one 4 KiB I/O every
// 4096 s) — was stopped as a modelled hang (WatchdogError, exit status 1: "completed
// no I/O for 1h5m"), although it does what fio does: sleep between I/Os. A job
// asleep in its rate or thinktime is not idle for the watchdog; these runs finish.
func TestPacingIsNotAHang(t *testing.T) {
	for _, tt := range []struct {
		name, job string
		ios       int64
	}{
		{"thinktime", "[j]\ndirect=1\nrw=randread\nbs=4k\nsize=16k\nthinktime=2h\n", 4},
		{"rate", "[j]\ndirect=1\nrw=read\nbs=4k\nsize=8k\nrate=1\n", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := stack.Run(baseConfig(), parse(t, tt.job))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Jobs[0].Fio.Read().TotalIOs; got != tt.ios {
				t.Errorf("%d reads, want %d", got, tt.ios)
			}
		})
	}
}

// TestPacedPastTheModelClock: a size-bound job whose own pacing needs more model
// time than the clock holds (8192 reads of 512 B with thinktime=1000h between them:
// 935 years) stops with a *ResourceLimitError on model time at about 73 years, at
// once. The watchdog's idle step doubled past sim.MaxTime, its sum overflowed and the
// run loop spun without firing an event or looking at the interrupt (10 minutes of
// CPU, deaf to SIGTERM, before it was killed).
func TestPacedPastTheModelClock(t *testing.T) {
	_, err := stack.Run(baseConfig(), parse(t, "[j]\ndirect=1\nrw=randread\nbs=512\nsize=4m\nthinktime=1000h\n"))
	var rl *stack.ResourceLimitError
	if !errors.As(err, &rl) || rl.Resource != "model time" || !strings.Contains(err.Error(), "model time") {
		t.Fatalf("err %v, want a *ResourceLimitError on model time", err)
	}
}
