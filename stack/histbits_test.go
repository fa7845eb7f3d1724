package stack_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// histRun runs a short random reader with Config.HistogramBits = bits.
func histRun(t *testing.T, bits int) (*stack.Result, error) {
	t.Helper()
	specs, err := fio.Parse(strings.NewReader("[r]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=8\nfilesize=1G\nruntime=20ms\ntime_based\n"), "h.fio")
	if err != nil {
		t.Fatal(err)
	}
	cfg := stack.Config{NrCPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 4}, HistogramBits: bits,
		LUNs: []stack.LUN{{Device: func(eng *sim.Engine) (device.Device, error) {
			return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 50 * sim.Microsecond})
		}}}}
	return stack.Run(cfg, specs)
}

// TestHistogramBits checks Config.HistogramBits: 0 is fio's 6 bits, bit for bit; another
// precision changes the percentiles only (the model's run, its I/O counts and mean
// latencies stay the same); out of range is a ConfigError naming the field.
func TestHistogramBits(t *testing.T) {
	def, err := histRun(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	six, err := histRun(t, fio.DefaultHistogramBits)
	if err != nil {
		t.Fatal(err)
	}
	coarse, err := histRun(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	d, s, c := def.Jobs[0].Fio.Read(), six.Jobs[0].Fio.Read(), coarse.Jobs[0].Fio.Read()
	if d.TotalIOs == 0 || d.TotalIOs != s.TotalIOs || d.TotalIOs != c.TotalIOs || d.Clat.Mean != c.Clat.Mean || def.Events != coarse.Events {
		t.Fatalf("the precision changed the run: %d/%d/%d I/Os, clat mean %v/%v", d.TotalIOs, s.TotalIOs, c.TotalIOs, d.Clat.Mean, c.Clat.Mean)
	}
	if len(d.Clat.Percentiles) == 0 || len(d.Clat.Percentiles) != len(c.Clat.Percentiles) {
		t.Fatalf("percentiles: %d at 6 bits, %d at 2", len(d.Clat.Percentiles), len(c.Clat.Percentiles))
	}
	differ := false
	for i := range d.Clat.Percentiles {
		if d.Clat.Percentiles[i] != s.Clat.Percentiles[i] {
			t.Fatalf("HistogramBits 0 and 6 differ at %v", d.Clat.Percentiles[i])
		}
		differ = differ || d.Clat.Percentiles[i] != c.Clat.Percentiles[i]
	}
	if !differ {
		t.Error("2-bit percentiles identical to 6-bit ones: the precision is not applied")
	}
	for _, bad := range []int{-1, fio.MaxHistogramBits + 1} {
		_, err := histRun(t, bad)
		var ce *stack.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "HistogramBits") {
			t.Errorf("HistogramBits %d: %v, want a ConfigError naming HistogramBits", bad, err)
		}
	}
}
