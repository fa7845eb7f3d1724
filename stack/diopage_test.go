package stack_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// dioPageBusy is the CPU 1 busy time per command (ns) of one direct reader of bs at
// iodepth 4 pinned to CPU 1 of a 2 ms null_blk, emulated at factor 20 with the
// per-page cost page.
func dioPageBusy(t *testing.T, bs string, page sim.Time) float64 {
	t.Helper()
	cfg := stack.Config{
		NrCPUs: 2,
		Host: stack.Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: stack.DriverNullBlk,
			NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
		LUNs: []stack.LUN{{Name: "/dev/nullb0", Device: nullDevice(2 * sim.Millisecond), Scheduler: "none"}},
		Seed: 1,
	}
	cfg, err := cfg.EmulatedWith(20, stack.EmulationOptions{DIOPage: page})
	if err != nil {
		t.Fatal(err)
	}
	specs := parse(t, `
[r]
ioengine=libaio
direct=1
rw=randread
bs=`+bs+`
iodepth=4
cpus_allowed=1
time_based=1
runtime=100ms
filename=/dev/nullb0
`)
	res, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatal(err)
	}
	return float64(res.CPUBusy[1]) / float64(res.Queues[0].Dispatched)
}

// TestDIOPage: a 64 KiB direct read pays DIOPage × factor for each of its 15 pages
// beyond the first; a 4 KiB read pays nothing; 0 charges nothing; a cost outside
// [0, 1 ms] is refused naming the field.
func TestDIOPage(t *testing.T) {
	const page = 18 * sim.Nanosecond
	base64 := dioPageBusy(t, "64k", 0)
	with64 := dioPageBusy(t, "64k", page)
	if want := float64(15 * page * 20); math.Abs(with64-base64-want) > 1 {
		t.Errorf("64k: %.0f ns per command with the page cost, %.0f without: want %.0f more", with64, base64, want)
	}
	if a, b := dioPageBusy(t, "4k", 0), dioPageBusy(t, "4k", page); a != b {
		t.Errorf("4k: %.0f ns per command with the page cost, %.0f without: want equal", b, a)
	}
	_, err := stack.Config{NrCPUs: 1}.EmulatedWith(2, stack.EmulationOptions{DIOPage: 2 * sim.Millisecond})
	var ce *stack.ConfigError
	if !errors.As(err, &ce) || ce.Field != "EmulationOptions.DIOPage" || !strings.Contains(err.Error(), "[0, 1ms]") {
		t.Errorf("DIOPage 2ms: err %v, want a ConfigError naming EmulationOptions.DIOPage", err)
	}
}
