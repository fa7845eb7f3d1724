package device_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestNullMBpsRange: NullParams.MBps above null_blk's unsigned int mbps was accepted
// and its bytes per second (MBps<<20) overflowed int64: 2^44+1 MiB/s became 1 MiB/s
// (a 4 KiB read took 4 ms), 2^43 turned the cap off. It is now refused naming the
// field and the kernel's range; the largest value still caps at its rate.
func TestNullMBpsRange(t *testing.T) {
	for _, mbps := range []int64{1<<44 + 1, 1 << 43, math.MaxInt64, math.MaxUint32 + 1} {
		p := device.NullBlkParams()
		p.MBps = mbps
		if _, err := device.NewNull(sim.NewEngine(), p); err == nil || !strings.Contains(err.Error(), "MBps") || !strings.Contains(err.Error(), "4294967295") {
			t.Errorf("MBps %d: error %v, want one naming MBps and [0, 4294967295]", mbps, err)
		}
	}
	eng := sim.NewEngine()
	p := device.NullBlkParams()
	p.MBps, p.CompletionNsec = math.MaxUint32, 0
	d, err := device.NewNull(eng, p)
	if err != nil {
		t.Fatal(err)
	}
	var done sim.Time = -1
	cmd := &device.Command{Length: 4096, Done: device.CompleterFunc(func(_ *device.Command, now sim.Time) { done = now })}
	if st := d.Submit(cmd); st != device.Accepted {
		t.Fatalf("Submit: %v", st)
	}
	eng.Run()
	if done < 0 || done > sim.Microsecond {
		t.Errorf("4 KiB at %d MiB/s completed at %v, want within 1us", p.MBps, done)
	}
}
