package fio

import (
	"errors"
	"fmt"
	"time"
)

// Validate checks a Spec built by hand (Parse already returns valid specs)
// against the same ranges the parser enforces. It returns the first problem
// as an error like `fio: job "wal": iodepth 0 out of range [1, 65536]`.
// It does not modify s; the derived fields (EffectiveIODepth, the batch
// fixups, Target) must be consistent with what Parse would compute.
func (s *Spec) Validate() error {
	bad := func(field string, v any, format string, args ...any) error {
		return fmt.Errorf("fio: job %q: %s %v %s", s.Name, field, v, fmt.Sprintf(format, args...))
	}
	type intCheck struct {
		field  string
		v      int
		lo, hi int
	}
	for _, c := range []intCheck{
		{"numjobs", s.NumJobs, 1, MaxJobs},
		{"index", s.Index, 0, max(s.NumJobs-1, 0)},
		{"rwmixread", s.RWMixRead, 0, 100},
		{"percentage_random", s.PercentageRandom, 0, 100},
		{"loops", s.Loops, 1, 1 << 20},
		{"iodepth", s.IODepth, 1, MaxIODepth},
		{"effective iodepth", s.EffectiveIODepth, 1, s.IODepth},
		{"iodepth_low", s.IODepthLow, 1, s.EffectiveIODepth},
		{"iodepth_batch_submit", s.IODepthBatchSubmit, 1, s.EffectiveIODepth},
		{"iodepth_batch_complete_min", s.IODepthBatchCompleteMin, 0, s.EffectiveIODepth},
		{"iodepth_batch_complete_max", s.IODepthBatchCompleteMax, max(s.IODepthBatchCompleteMin, 1), s.EffectiveIODepth},
		{"rate_iops[read]", s.RateIOPS[0], 0, MaxRateIOPS},
		{"rate_iops[write]", s.RateIOPS[1], 0, MaxRateIOPS},
		{"rate_iops_min[read]", s.RateIOPSMin[0], 0, MaxRateIOPS},
		{"rate_iops_min[write]", s.RateIOPSMin[1], 0, MaxRateIOPS},
		{"thinktime_blocks", s.ThinkTimeBlocks, 1, 1 << 30},
		{"fsync", s.FSync, 0, 1 << 30},
		{"fdatasync", s.FDataSync, 0, 1 << 30},
	} {
		if c.v < c.lo || c.v > c.hi {
			return bad(c.field, c.v, "out of range [%d, %d]", c.lo, c.hi)
		}
	}
	if int(s.RW) >= len(rwNames) {
		return bad("rw", s.RW, "unknown pattern")
	}
	if int(s.IOEngine) >= len(engineNames) {
		return bad("ioengine", s.IOEngine, "unknown engine")
	}
	if !s.IOEngine.Async() && s.EffectiveIODepth != 1 {
		return bad("effective iodepth", s.EffectiveIODepth, "must be 1 for synchronous engine %s", s.IOEngine)
	}
	if s.BlockSize < SectorSize || s.BlockSize > MaxBlockSize || s.BlockSize%SectorSize != 0 {
		return bad("bs", s.BlockSize, "out of range [%d, %d] or not a multiple of %d", SectorSize, MaxBlockSize, SectorSize)
	}
	if s.Size < 0 || s.Size > MaxSize {
		return bad("size", s.Size, "out of range [0, %d]", int64(MaxSize))
	}
	if s.Size != 0 && s.Size < s.BlockSize {
		return bad("size", s.Size, "smaller than bs %d", s.BlockSize)
	}
	if s.Offset < 0 || s.Offset > MaxSize || s.Offset%SectorSize != 0 {
		return bad("offset", s.Offset, "out of range [0, %d] or not a multiple of %d", int64(MaxSize), SectorSize)
	}
	for _, d := range []struct {
		field string
		v     int64
	}{{"runtime", int64(s.Runtime)}, {"ramp_time", int64(s.RampTime)}, {"startdelay", int64(s.StartDelay)}, {"startdelay high", int64(s.StartDelayHigh)}} {
		if d.v < 0 || d.v > int64(maxDuration) {
			return bad(d.field, d.v, "ns out of range [0, %d]", int64(maxDuration))
		}
	}
	if s.StartDelayHigh != 0 && s.StartDelayHigh < s.StartDelay {
		return bad("startdelay high", s.StartDelayHigh, "below startdelay %v", s.StartDelay)
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"bwavgtime", s.BWAvgTime}, {"iopsavgtime", s.IOPSAvgTime}} {
		if d.v < time.Millisecond || d.v > maxDuration {
			return bad(d.field, d.v, "out of range [1ms, %v]", maxDuration)
		}
	}
	if s.TimeBased && s.Runtime == 0 {
		return bad("time_based", s.TimeBased, "needs runtime > 0")
	}
	for _, c := range s.CPUsAllowed {
		if c < 0 || c > MaxCPU {
			return bad("cpus_allowed entry", c, "out of range [0, %d]", MaxCPU)
		}
	}
	if len(s.PercentileList) == 0 || len(s.PercentileList) > 64 {
		return bad("percentile_list length", len(s.PercentileList), "out of range [1, 64]")
	}
	for _, p := range s.PercentileList {
		if !(p > 0 && p <= 100) {
			return bad("percentile_list entry", p, "out of range (0, 100]")
		}
	}
	for _, v := range []struct {
		field string
		v     int64
	}{{"rate[read]", s.Rate[0]}, {"rate[write]", s.Rate[1]}, {"rate_min[read]", s.RateMin[0]}, {"rate_min[write]", s.RateMin[1]},
		{"io_size", s.IOSize}, {"number_ios", s.NumberIOs}, {"offset_increment", s.OffsetIncrement},
		{"thinktime", int64(s.ThinkTime)}, {"thinktime_spin", int64(s.ThinkTimeSpin)}} {
		if v.v < 0 {
			return bad(v.field, v.v, "must be >= 0")
		}
	}
	if s.WriteBlockSize != 0 && (s.WriteBlockSize < SectorSize || s.WriteBlockSize > MaxBlockSize || s.WriteBlockSize%SectorSize != 0) {
		return bad("bs[write]", s.WriteBlockSize, "out of range [%d, %d] or not a multiple of %d", SectorSize, MaxBlockSize, SectorSize)
	}
	if s.BSRangeMin != 0 || s.BSRangeMax != 0 {
		if s.BSRangeMin < SectorSize || s.BSRangeMax < s.BSRangeMin || s.BSRangeMax > MaxBlockSize {
			return bad("bsrange", fmt.Sprintf("%d-%d", s.BSRangeMin, s.BSRangeMax), "want %d <= min <= max <= %d", SectorSize, MaxBlockSize)
		}
	}
	if s.BlockAlign < 0 || s.BlockAlign%SectorSize != 0 {
		return bad("blockalign", s.BlockAlign, "must be a multiple of %d", SectorSize)
	}
	total := 0.0
	for _, e := range s.BSSplit {
		if e.Size < SectorSize || e.Size > MaxBlockSize || e.Size%SectorSize != 0 || e.Percent < 0 {
			return bad("bssplit entry", e, "size out of range or negative share")
		}
		total += e.Percent
	}
	if len(s.BSSplit) > 0 && (total < 99.9999 || total > 100.0001) {
		return bad("bssplit total", total, "want 100")
	}
	if int(s.Dist.Kind) >= len(distNames) {
		return bad("random_distribution", s.Dist.Kind, "unknown kind")
	}
	if err := s.Dist.checkParam(); err != nil {
		return bad("random_distribution parameter", s.Dist.Param, "%v", err)
	}
	if c := s.Dist.Center; c != -1 && !(c >= 0 && c <= 1) {
		return bad("random_distribution center", c, "out of range [0, 1] (or -1 = none)")
	}
	if (s.Dist.Kind == DistZoned || s.Dist.Kind == DistZonedAbs) && len(s.Dist.Zones) == 0 {
		return bad("random_distribution", s.Dist.Kind, "needs zones")
	}
	if s.Target == "" {
		return errors.New("fio: job " + fmt.Sprintf("%q", s.Name) + ": empty target; set Filename, Directory or Name")
	}
	return nil
}

// maxLoopedBytes bounds what one job transfers, io_size (else size) times loops:
// 4 EiB, the bound package stack puts on a LUN's regions, far from the int64 the
// run counts bytes in (2^60 × loops up to 2^20 would overflow it).
const maxLoopedBytes = 1 << 62

// loopedBytesOver reports whether io_size (else size) times loops exceeds
// maxLoopedBytes, and the per-loop bytes.
func (s *Spec) loopedBytesOver() (int64, bool) {
	b := s.IOSize
	if b <= 0 {
		b = s.Size
	}
	return b, b > 0 && float64(b)*float64(max(s.Loops, 1)) > maxLoopedBytes
}
