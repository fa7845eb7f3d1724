package stack_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestDataCopyCharge: under emulation (factor 10) a SCSI host whose LLD copies its
// data (Host.CopiesData, scsi_debug) charges EmulationOptions.DataCopyCmd plus
// DataCopy per KiB, scaled, on each dispatched command; a host that does not copy,
// or options without the costs, charge nothing more. One 16 KiB reader at queue
// depth 1, so every command costs the same.
func TestDataCopyCharge(t *testing.T) {
	const factor = 10
	o := stack.EmulationOptions{DataCopy: 13 * sim.Nanosecond, DataCopyCmd: 170 * sim.Nanosecond}
	perCmd := func(copies bool, o stack.EmulationOptions) float64 {
		t.Helper()
		cfg := stack.Config{
			NrCPUs: 2,
			Host:   stack.Host{CanQueue: 32, NrHwQueues: 2, CmdPerLun: 32, CopiesData: copies},
			LUNs:   []stack.LUN{{Name: "/dev/sda", Device: nullDevice(sim.Millisecond), Scheduler: "none"}},
			Seed:   1,
		}
		cfg, err := cfg.EmulatedWith(factor, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := stack.Run(cfg, parse(t, `
[r]
ioengine=libaio
direct=1
rw=randread
bs=16k
iodepth=1
cpus_allowed=0
time_based=1
runtime=100ms
filename=/dev/sda
`))
		if err != nil {
			t.Fatal(err)
		}
		var busy sim.Time
		for _, b := range res.CPUBusy {
			busy += b
		}
		n := res.Disks[0].IOs[0] + res.Disks[0].IOs[1]
		if n == 0 {
			t.Fatal("no command completed")
		}
		return float64(busy) / float64(n)
	}
	base := perCmd(false, stack.EmulationOptions{})
	want := float64(factor * (170 + 13*16)) // ns per 16 KiB command
	for _, tc := range []struct {
		name   string
		copies bool
		o      stack.EmulationOptions
		extra  float64
	}{
		{"copying-host", true, o, want},
		{"dma-host", false, o, 0},
		{"options-off", true, stack.EmulationOptions{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := perCmd(tc.copies, tc.o) - base
			if math.Abs(got-tc.extra) > 0.02*want {
				t.Errorf("extra CPU per command %.0f ns, want %.0f", got, tc.extra)
			}
		})
	}
}

// TestDataCopyErrors: a cost outside [0, 1 ms] is an error naming the option.
func TestDataCopyErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     stack.EmulationOptions
		field string
	}{
		{"per-kib-negative", stack.EmulationOptions{DataCopy: -1}, "EmulationOptions.DataCopy"},
		{"per-cmd-too-large", stack.EmulationOptions{DataCopyCmd: 2 * sim.Millisecond}, "EmulationOptions.DataCopyCmd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := baseConfig().EmulatedWith(10, tc.o)
			var ce *stack.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), "out of range") {
				t.Fatalf("error %v, want a *ConfigError for %s", err, tc.field)
			}
		})
	}
}
