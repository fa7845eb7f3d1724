package fio

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// optDef is one fio option the parser understands: its canonical name (the
// name fio documents; aliases map to it) and how it sets a Spec.
type optDef struct {
	name string
	set  func(j *jobBuilder, v string) error
}

// options maps every accepted option name (including aliases) to its
// definition. Built once in init from optionList.
var options = map[string]*optDef{}

// optionList is the modelled options, with their aliases (fio options.c).
var optionList = []struct {
	names []string
	set   func(j *jobBuilder, v string) error
}{
	{[]string{"name"}, setName},
	{[]string{"numjobs"}, intField(func(s *Spec) *int { return &s.NumJobs }, 1, MaxJobs)},
	{[]string{"rw", "readwrite"}, setRW},
	{[]string{"rwmixread"}, intField(func(s *Spec) *int { return &s.RWMixRead }, 0, 100)},
	{[]string{"rwmixwrite"}, setRWMixWrite},
	{[]string{"percentage_random"}, intField(func(s *Spec) *int { return &s.PercentageRandom }, 0, 100)},
	{[]string{"bs", "blocksize"}, setBlockSize},
	{[]string{"size", "filesize"}, sizeField(func(s *Spec) *int64 { return &s.Size })},
	{[]string{"offset"}, setOffset},
	{[]string{"loops"}, intField(func(s *Spec) *int { return &s.Loops }, 1, 1<<20)},
	{[]string{"ioengine"}, setIOEngine},
	{[]string{"iodepth"}, intField(func(s *Spec) *int { return &s.IODepth }, 1, MaxIODepth)},
	{[]string{"iodepth_low"}, intField(func(s *Spec) *int { return &s.IODepthLow }, 0, MaxIODepth)},
	{[]string{"iodepth_batch_submit", "iodepth_batch"}, intField(func(s *Spec) *int { return &s.IODepthBatchSubmit }, 0, MaxIODepth)},
	{[]string{"iodepth_batch_complete_min", "iodepth_batch_complete"}, intField(func(s *Spec) *int { return &s.IODepthBatchCompleteMin }, 0, MaxIODepth)},
	{[]string{"iodepth_batch_complete_max"}, intField(func(s *Spec) *int { return &s.IODepthBatchCompleteMax }, 0, MaxIODepth)},
	{[]string{"direct"}, boolField(func(s *Spec) *bool { return &s.Direct })},
	{[]string{"buffered"}, setBuffered},
	{[]string{"runtime", "timeout"}, durationField(func(s *Spec) *time.Duration { return &s.Runtime })},
	{[]string{"time_based"}, boolField(func(s *Spec) *bool { return &s.TimeBased })},
	{[]string{"ramp_time"}, durationField(func(s *Spec) *time.Duration { return &s.RampTime })},
	{[]string{"startdelay"}, durationField(func(s *Spec) *time.Duration { return &s.StartDelay })},
	{[]string{"rate_iops"}, intField(func(s *Spec) *int { return &s.RateIOPS }, 0, MaxRateIOPS)},
	{[]string{"cpus_allowed"}, setCPUsAllowed},
	{[]string{"cpus_allowed_policy"}, setCPUsAllowedPolicy},
	{[]string{"filename"}, stringField(func(s *Spec) *string { return &s.Filename })},
	{[]string{"directory"}, stringField(func(s *Spec) *string { return &s.Directory })},
	{[]string{"ioscheduler"}, stringField(func(s *Spec) *string { return &s.IOScheduler })},
	{[]string{"group_reporting"}, boolField(func(s *Spec) *bool { return &s.GroupReporting })},
	{[]string{"stonewall", "wait_for_previous"}, boolField(func(s *Spec) *bool { return &s.Stonewall })},
	{[]string{"new_group"}, boolField(func(s *Spec) *bool { return &s.NewGroup })},
	{[]string{"clat_percentiles"}, boolField(func(s *Spec) *bool { return &s.ClatPercentiles })},
	{[]string{"slat_percentiles"}, boolField(func(s *Spec) *bool { return &s.SlatPercentiles })},
	{[]string{"lat_percentiles"}, boolField(func(s *Spec) *bool { return &s.LatPercentiles })},
	{[]string{"percentile_list"}, setPercentileList},
	{[]string{"kb_base"}, setKBBase},
	{[]string{"bwavgtime"}, avgTimeField(func(s *Spec) *time.Duration { return &s.BWAvgTime })},
	{[]string{"iopsavgtime"}, avgTimeField(func(s *Spec) *time.Duration { return &s.IOPSAvgTime })},
}

// ignoredOptions are fio options accepted and listed in Spec.Ignored because
// they do not change what the model simulates (CPU-side bookkeeping, data
// patterns, logging, file housekeeping, command-line output controls).
var ignoredOptions = []string{
	"invalidate", "gtod_reduce", "thread", "norandommap", "randrepeat", "allrandrepeat",
	"randseed", "disable_clat", "disable_slat", "disable_lat", "disable_bw_measurement",
	"disable_bw", "end_fsync", "fsync_on_close", "create_on_open", "create_serialize",
	"unlink", "overwrite", "refill_buffers", "scramble_buffers", "zero_buffers",
	"buffer_compress_percentage", "buffer_compress_chunk", "description", "log_avg_msec",
	"write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "per_job_logs",
	"exitall", "exitall_on_error", "continue_on_error", "clocksource", "fallocate",
	"nrfiles", "file_service_type", "unified_rw_reporting", "hipri", "fixedbufs",
	"registerfiles", "sqthread_poll", "stats", "lockmem",
	"output-format", "output", "eta", "eta-newline", "status-interval", "minimal",
	"terse-version", "significant_figures", "allow_file_create",
}

// notModelled are fio options that change the I/O in ways the model does not
// reproduce: rejected with a message that says so, rather than "unknown".
var notModelled = []string{
	"verify", "rate", "rate_min", "rate_iops_min", "bssplit", "bsrange", "blocksize_range",
	"rw_sequencer", "zonemode", "zonesize", "thinktime", "trim_percentage", "fsync",
	"fdatasync", "sync", "random_distribution", "number_ios", "io_size", "io_limit",
	"include", "flow", "wait_for",
}

func init() {
	for _, o := range optionList {
		d := &optDef{name: o.names[0], set: o.set}
		for _, n := range o.names {
			options[n] = d
		}
	}
	for _, n := range ignoredOptions {
		options[n] = &optDef{name: n, set: ignore(n)}
	}
	for _, n := range notModelled {
		options[n] = &optDef{name: n, set: func(*jobBuilder, string) error {
			return errors.New("fio option not modelled by blkmq")
		}}
	}
}

// jobBuilder accumulates one job's options into a Spec.
type jobBuilder struct {
	spec   Spec
	kbBase int
	// where records, per canonical option name, the last option that set it,
	// so that cross-field errors point at the right line.
	where map[string]rawOption
}

func intField(field func(*Spec) *int, lo, hi int) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		n, err := parseInt(v, lo, hi)
		if err == nil {
			*field(&j.spec) = n
		}
		return err
	}
}

func boolField(field func(*Spec) *bool) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		b, err := parseBool(v)
		if err == nil {
			*field(&j.spec) = b
		}
		return err
	}
}

func sizeField(field func(*Spec) *int64) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		n, err := parseSize(v, j.kbBase, 0, MaxSize)
		if err == nil {
			*field(&j.spec) = n
		}
		return err
	}
}

func durationField(field func(*Spec) *time.Duration) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		d, err := parseDuration(v, time.Second)
		if err == nil {
			*field(&j.spec) = d
		}
		return err
	}
}

// avgTimeField parses bwavgtime / iopsavgtime: default unit ms, at least
// 1 ms.
func avgTimeField(field func(*Spec) *time.Duration) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		d, err := parseDuration(v, time.Millisecond)
		if err == nil && d < time.Millisecond {
			err = fmt.Errorf("out of range [1ms, %v]", maxDuration)
		}
		if err == nil {
			*field(&j.spec) = d
		}
		return err
	}
}

func stringField(field func(*Spec) *string) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		if v == "" {
			return errors.New("missing value")
		}
		*field(&j.spec) = v
		return nil
	}
}

func ignore(name string) func(*jobBuilder, string) error {
	return func(j *jobBuilder, _ string) error {
		for _, n := range j.spec.Ignored {
			if n == name {
				return nil
			}
		}
		j.spec.Ignored = append(j.spec.Ignored, name)
		return nil
	}
}

func setName(j *jobBuilder, v string) error {
	if v == "" {
		return errors.New("missing value")
	}
	j.spec.Name = v
	return nil
}

func setRW(j *jobBuilder, v string) error {
	for i, n := range rwNames {
		if v == n {
			j.spec.RW = RW(i)
			return nil
		}
	}
	if v == "readwrite" {
		j.spec.RW = RWReadWrite
		return nil
	}
	return errors.New("unknown pattern; want one of read, write, randread, randwrite, rw, readwrite, randrw")
}

func setRWMixWrite(j *jobBuilder, v string) error {
	n, err := parseInt(v, 0, 100)
	if err == nil {
		j.spec.RWMixRead = 100 - n
	}
	return err
}

func setBlockSize(j *jobBuilder, v string) error {
	if strings.ContainsAny(v, ",:") {
		return errors.New("per-direction block sizes are not supported; give one size")
	}
	n, err := parseSize(v, j.kbBase, SectorSize, MaxBlockSize)
	if err != nil {
		return err
	}
	if n%SectorSize != 0 {
		return fmt.Errorf("not a multiple of %d", SectorSize)
	}
	j.spec.BlockSize = n
	return nil
}

func setOffset(j *jobBuilder, v string) error {
	n, err := parseSize(v, j.kbBase, 0, MaxSize)
	if err != nil {
		return err
	}
	if n%SectorSize != 0 {
		return fmt.Errorf("not a multiple of %d", SectorSize)
	}
	j.spec.Offset = n
	return nil
}

func setIOEngine(j *jobBuilder, v string) error {
	for i, n := range engineNames {
		if v == n {
			j.spec.IOEngine = IOEngine(i)
			return nil
		}
	}
	return fmt.Errorf("unknown engine; want one of %s", strings.Join(engineNames[:], ", "))
}

func setBuffered(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil {
		j.spec.Direct = !b
	}
	return err
}

func setCPUsAllowed(j *jobBuilder, v string) error {
	cpus, err := parseCPUList(v)
	if err == nil {
		j.spec.CPUsAllowed = cpus
	}
	return err
}

func setCPUsAllowedPolicy(j *jobBuilder, v string) error {
	if v != "shared" && v != "split" {
		return errors.New("want shared or split")
	}
	j.spec.CPUsAllowedPolicy = v
	return nil
}

func setPercentileList(j *jobBuilder, v string) error {
	l, err := parsePercentileList(v)
	if err == nil {
		j.spec.PercentileList = l
	}
	return err
}

func setKBBase(j *jobBuilder, v string) error {
	if v != "1000" && v != "1024" {
		return errors.New("want 1000 or 1024")
	}
	return nil // applied in a first pass, before any size (see applyOptions)
}
