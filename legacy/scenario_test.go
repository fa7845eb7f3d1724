package legacy_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/legacy"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

func testDisk() device.HDDParams {
	return device.HDDParams{Name: "t15k", RPM: 15000, CapacityBytes: 73e9,
		TrackToTrackSeek: 200 * sim.Microsecond, AverageSeek: 3600 * sim.Microsecond,
		FullStrokeSeek: 7400 * sim.Microsecond, OuterBytesPerSec: 75e6, InnerBytesPerSec: 49e6,
		Zones: 8, CommandOverhead: 100 * sim.Microsecond, InterfaceBytesPerSec: 320e6}
}

func streamConfig(old bool, seed uint64) legacy.StreamConfig {
	return legacy.StreamConfig{
		Queue: legacy.Config{QueueDepth: 3, PreA6b3f7614ca6: old, MaxSegments: 64,
			IssueLatency: 50 * sim.Microsecond, CompletionLatency: 50 * sim.Microsecond},
		Disk:      testDisk(),
		Writeback: legacy.WritebackParams{Offset: 30 << 30, PageBytes: 64 << 10},
		Postmark: &legacy.PostmarkParams{RegionOffset: 10 << 30, RegionBytes: 1 << 30,
			IOsPerTxn: 2, ReadPercent: 100, Seed: seed},
		Warmup: sim.Second, Duration: 5 * sim.Second,
	}
}

// Same seed, same result, bit for bit; another seed moves postmark's offsets.
func TestDeterminism(t *testing.T) {
	a, err := legacy.RunStream(streamConfig(true, 7))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := legacy.RunStream(streamConfig(true, 7))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different results (-a +b):\n%s", diff)
	}
	c, _ := legacy.RunStream(streamConfig(true, 8))
	if cmp.Equal(a, c) {
		t.Error("different seeds gave identical results")
	}
}

// The writer alone keeps exactly the formula's async limit in flight: 1 tag of
// 3 before a6b3f7614ca6, 2 after; its commands are max_sectors (512 KiB).
func TestStreamAsyncInFlight(t *testing.T) {
	for _, tc := range []struct {
		name string
		old  bool
		want float64
	}{{"004/old-formula", true, 1}, {"004/new-formula", false, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			c := streamConfig(tc.old, 1)
			c.Postmark = nil
			r, err := legacy.RunStream(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Stats.MeanInFlight(false); got < tc.want-0.02 || got > tc.want {
				t.Errorf("mean async in flight = %.3f, want %v", got, tc.want)
			}
			if got := r.Stats.MeanWriteCmdBytes(); got != 512<<10 {
				t.Errorf("mean write command = %.0f bytes, want 512 KiB", got)
			}
		})
	}
}

func TestRunStreamErrors(t *testing.T) {
	bad := []func(*legacy.StreamConfig){
		func(c *legacy.StreamConfig) { c.Duration = 0 },
		func(c *legacy.StreamConfig) { c.Queue.QueueDepth = 0 },
		func(c *legacy.StreamConfig) { c.Disk.RPM = 0 },
		func(c *legacy.StreamConfig) { c.Writeback.PageBytes = 100 },
		func(c *legacy.StreamConfig) { c.Postmark.IOsPerTxn = 100 },
		func(c *legacy.StreamConfig) { c.Postmark.RegionBytes = 1 },
	}
	for i, f := range bad {
		c := streamConfig(true, 1)
		f(&c)
		if _, err := legacy.RunStream(c); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
}

// A 3-tag adapter behind the legacy queue: a flusher streams a file with 512 KiB
// writes. Before commit a6b3f7614ca6 asynchronous writes may use only tag 0, so
// the disk idles for a revolution after every write; since v3.11 they may use two
// tags and the next write is always queued at the disk.
func Example() {
	for _, old := range []bool{true, false} {
		cfg := legacy.StreamConfig{
			Queue:     legacy.Config{QueueDepth: 3, PreA6b3f7614ca6: old, MaxSegments: 64},
			Disk:      testDisk(),
			Writeback: legacy.WritebackParams{Offset: 0, PageBytes: 64 << 10},
			Warmup:    sim.Second, Duration: 10 * sim.Second,
		}
		r, err := legacy.RunStream(cfg)
		if err != nil {
			panic(err)
		}
		fmt.Printf("pre-a6b3f7614ca6=%v: async tags in flight %.1f, %.0f KiB writes, %.0f MB/s\n",
			old, r.Stats.MeanInFlight(false), r.Stats.MeanWriteCmdBytes()/1024, r.StreamMBps)
	}
	// Output:
	// pre-a6b3f7614ca6=true: async tags in flight 1.0, 512 KiB writes, 48 MB/s
	// pre-a6b3f7614ca6=false: async tags in flight 2.0, 512 KiB writes, 75 MB/s
}
