package bench

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/legacy"
	"github.com/blkmq/blkmq/sim"
)

// Legacy-tags scenario (seed 004, Jan Kara, v3.11 commit a6b3f7614ca6): a 3-tag
// adapter on the legacy request_fn path, a flusher streaming a large file, and a
// postmark-like small-file workload beside it. Both variants use the same disk,
// adapter and workloads; only the async tag formula differs.
const (
	// LegacyTagDepth: "a device has three tags available" (seed 004).
	LegacyTagDepth = 3
	// LegacyMaxSegments is the ipr driver's sg_tablesize (IPR_MAX_SGLIST = 64, read
	// in drivers/scsi/ipr.h); the source's adapter is an "IBM 573E Storage Adapter"
	// (ipr). max_sectors_kb stays at the v3.10 default cap of 512 KiB
	// (BLK_DEF_MAX_SECTORS; ipr's own limit IPR_IOA_MAX_SECTORS is larger).
	LegacyMaxSegments = 64
	// LegacyPageBytes: the machine is ppc64 (seed 004); distribution ppc64 kernels
	// of 2013 used 64 KiB pages [assumption]. With 64 segments the 512 KiB
	// max_sectors binds, so writeback commands are 512 KiB.
	LegacyPageBytes = 64 << 10
	// LegacyIssueLatency and LegacyCompletionLatency are the host + adapter
	// firmware times on each side of a command [assumption: 50 µs each].
	LegacyIssueLatency      = 50 * sim.Microsecond
	LegacyCompletionLatency = 50 * sim.Microsecond
	// LegacyStreamOffset places the streamed file mid-disk; LegacyPostmarkOffset and
	// LegacyPostmarkBytes place postmark's file set [assumptions].
	LegacyStreamOffset   = 36 << 30
	LegacyPostmarkOffset = 20 << 30
	LegacyPostmarkBytes  = 2 << 30
	// LegacyPostmarkIOs is the synchronous I/Os per postmark transaction: postmark's
	// data writes are buffered (written back by the flusher, async); what a
	// transaction waits for is reads missing the cache — a file or metadata block
	// and a directory/inode block [assumption: 2 reads of 4 KiB].
	LegacyPostmarkIOs = 2
)

// LegacyDisk is the source's 15,000 rpm disk, a Seagate Cheetah 15K.3 ST373453LC
// (73.4 GB, Ultra320 SCSI) as named in seed 004. Figures recalled from the
// Cheetah 15K.3 product manual, not re-verified here [M]: average seek 3.6 ms
// read / 4.0 ms write, track-to-track 0.2 ms, sustained media rate 75 MB/s outer
// to 49 MB/s inner. Assumptions: full stroke 7.4 ms, 12 zones, 100 µs command
// overhead, write cache off (the usual setting behind IBM RAID adapters and for
// enterprise SCSI disks of the era), and queued commands served in arrival order:
// device.HDD's shortest-positioning-time reordering has no starvation limit and
// would hold a random read forever behind a stream of sequential writes, which
// the drive's firmware does not do.
func LegacyDisk() device.HDDParams {
	return device.HDDParams{Name: "cheetah-15k3", RPM: 15000, CapacityBytes: 73.4e9,
		TrackToTrackSeek: 200 * sim.Microsecond, AverageSeek: 3600 * sim.Microsecond,
		FullStrokeSeek: 7400 * sim.Microsecond, WriteSeekExtra: 400 * sim.Microsecond,
		OuterBytesPerSec: 75e6, InnerBytesPerSec: 49e6, Zones: 12,
		CommandOverhead: 100 * sim.Microsecond, InterfaceBytesPerSec: 320e6, MaxQueue: 64}
}

// LegacyConfig is the scenario's run: old selects the async tag limit before
// a6b3f7614ca6; postmark adds the postmark-like workload beside the writer.
func LegacyConfig(old, postmark bool, seed uint64) legacy.StreamConfig {
	return legacyConfig(old, postmark, seed, nil)
}

func legacyConfig(old, postmark bool, seed uint64, sc Scale) legacy.StreamConfig {
	disk := LegacyDisk()
	disk.CommandOverhead = sim.Time(float64(disk.CommandOverhead) * sc.Of("cheetah.command-overhead"))
	c := legacy.StreamConfig{
		Queue: legacy.Config{QueueDepth: LegacyTagDepth, PreA6b3f7614ca6: old,
			MaxSegments: LegacyMaxSegments, IssueLatency: sim.Time(float64(LegacyIssueLatency) * sc.Of("ipr.host-latency")),
			CompletionLatency: sim.Time(float64(LegacyCompletionLatency) * sc.Of("ipr.host-latency"))},
		Disk:      disk,
		Writeback: legacy.WritebackParams{Offset: LegacyStreamOffset, PageBytes: LegacyPageBytes},
		Warmup:    2 * sim.Second,
		Duration:  30 * sim.Second,
	}
	if postmark {
		c.Postmark = &legacy.PostmarkParams{RegionOffset: LegacyPostmarkOffset,
			RegionBytes: LegacyPostmarkBytes, IOsPerTxn: LegacyPostmarkIOs, ReadPercent: 100, Seed: seed}
	}
	return c
}

// RunLegacyTags runs one variant ("formula=old" or "formula=new"): the writer
// alone, then the writer beside postmark. Metrics: stream-MBps (writer alone,
// 10^6 B/s), postmark-tps, stream-beside-MBps, async-inflight and sync-inflight
// (time-averaged started requests, writer alone / beside postmark),
// write-cmd-KiB (mean write command), tag-refusals-per-s (writer alone),
// write-svc-ms (mean time from request_fn start to end of a write, writer alone),
// read-svc-ms-pm and read-cmds-per-s-pm (postmark's reads beside the writer),
// postmark-io-ms (submit-to-completion time of a postmark read).
func RunLegacyTags(variant string, seed uint64) (map[string]float64, error) {
	return runLegacyTagsWith(variant, seed, nil)
}

func runLegacyTagsWith(variant string, seed uint64, sc Scale) (map[string]float64, error) {
	var old bool
	switch variant {
	case "formula=old":
		old = true
	case "formula=new":
	default:
		return nil, fmt.Errorf("bench: legacy-tags: unknown variant %q (want formula=old or formula=new)", variant)
	}
	alone, err := legacy.RunStream(legacyConfig(old, false, seed, sc))
	if err != nil {
		return nil, err
	}
	beside, err := legacy.RunStream(legacyConfig(old, true, seed, sc))
	if err != nil {
		return nil, err
	}
	s := alone.Stats
	return map[string]float64{
		"stream-MBps":         alone.StreamMBps,
		"postmark-tps":        beside.PostmarkTPS,
		"stream-beside-MBps":  beside.StreamMBps,
		"async-inflight":      s.MeanInFlight(false),
		"async-inflight-pm":   beside.Stats.MeanInFlight(false),
		"sync-inflight-pm":    beside.Stats.MeanInFlight(true),
		"write-cmd-KiB":       s.MeanWriteCmdBytes() / 1024,
		"tag-refusals-per-s":  float64(s.TagRefusals[0]+s.TagRefusals[1]) / s.Elapsed.Seconds(),
		"sync-refusals-per-s": float64(beside.Stats.TagRefusals[1]) / beside.Stats.Elapsed.Seconds(),
		"read-cmds-per-s-pm":  float64(beside.Stats.ReadCmds) / beside.Stats.Elapsed.Seconds(),
		"write-svc-ms":        float64(s.MeanServiceTime(device.OpWrite)) / 1e6,
		"postmark-io-ms":      float64(beside.PostmarkIOLatency) / 1e6,
		"read-svc-ms-pm":      float64(beside.Stats.MeanServiceTime(device.OpRead)) / 1e6,
	}, nil
}

func init() {
	Register(Scenario{Name: "legacy-tags", Source: "004_20aada19a4347f8a.txt",
		Variants: []string{"formula=old", "formula=new"}, Run: RunLegacyTags, RunScaled: runLegacyTagsWith,
		Params: []Param{
			{Name: "legacy.tags", Value: LegacyTagDepth, Unit: "", Basis: BasisSourced, Ref: "seed 004: \"a device has three tags available\""},
			{Name: "ipr.max-segments", Value: LegacyMaxSegments, Unit: "", Basis: BasisSourced, Ref: "ipr IPR_MAX_SGLIST (the IBM 573E adapter of seed 004 is ipr)"},
			{Name: "legacy.page", Value: LegacyPageBytes >> 10, Unit: "KiB", Basis: BasisAssumed, Ref: "ppc64 distribution kernels of 2013 used 64 KiB pages"},
			{Name: "ipr.host-latency", Value: float64(LegacyIssueLatency) / 1e3, Unit: "us each side", Basis: BasisAssumed, Scalable: true, Ref: "host + adapter firmware time per command; not measured"},
			{Name: "cheetah.command-overhead", Value: float64(LegacyDisk().CommandOverhead) / 1e3, Unit: "us", Basis: BasisAssumed, Scalable: true, Ref: "drive command overhead; not in the recalled manual figures"},
			{Name: "cheetah.seek-and-zones", Value: float64(LegacyDisk().AverageSeek) / 1e6, Unit: "ms avg seek", Basis: BasisAssumed, Ref: "Cheetah 15K.3 manual figures recalled, not re-verified (zones 75 -> 49 MB/s)"},
			{Name: "legacy.stream-offset", Value: float64(LegacyStreamOffset >> 30), Unit: "GiB", Basis: BasisAssumed, Ref: "the streamed file placed mid-disk (the zone sets the media rate; inner zones give 48.8 MB/s new formula)"},
			{Name: "legacy.postmark-ios", Value: LegacyPostmarkIOs, Unit: "reads/txn", Basis: BasisAssumed, Ref: "postmark's cache-missing reads per transaction"},
		}})
}
