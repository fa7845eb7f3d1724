package fio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// optDef is one fio option the parser understands: its canonical name (the
// name fio documents; aliases map to it), how it sets a Spec, and, for an
// option accepted whatever its value but never modelled, why (note).
type optDef struct {
	name string
	set  func(j *jobBuilder, v string) error
	note string
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
	{[]string{"bsrange", "blocksize_range"}, setBSRange},
	{[]string{"bssplit"}, setBSSplit},
	{[]string{"blockalign", "ba"}, setBlockAlign},
	{[]string{"size"}, setSize},
	{[]string{"filesize"}, setSize},
	{[]string{"io_size", "io_limit"}, sizeField(func(s *Spec) *int64 { return &s.IOSize })},
	{[]string{"offset"}, setOffset},
	{[]string{"offset_increment"}, setOffsetIncrement},
	{[]string{"number_ios"}, int64Field(func(s *Spec) *int64 { return &s.NumberIOs })},
	{[]string{"loops"}, intField(func(s *Spec) *int { return &s.Loops }, 1, 1<<20)},
	{[]string{"ioengine"}, setIOEngine},
	{[]string{"iodepth"}, intField(func(s *Spec) *int { return &s.IODepth }, 1, MaxIODepth)},
	{[]string{"iodepth_low"}, intField(func(s *Spec) *int { return &s.IODepthLow }, 0, MaxIODepth)},
	{[]string{"iodepth_batch_submit", "iodepth_batch"}, intField(func(s *Spec) *int { return &s.IODepthBatchSubmit }, 0, MaxIODepth)},
	{[]string{"iodepth_batch_complete_min", "iodepth_batch_complete"}, intField(func(s *Spec) *int { return &s.IODepthBatchCompleteMin }, 0, MaxIODepth)},
	{[]string{"iodepth_batch_complete_max"}, intField(func(s *Spec) *int { return &s.IODepthBatchCompleteMax }, 0, MaxIODepth)},
	{[]string{"direct"}, setDirect},
	{[]string{"buffered"}, setBuffered},
	{[]string{"runtime", "timeout"}, durationField(func(s *Spec) *time.Duration { return &s.Runtime })},
	{[]string{"time_based"}, boolField(func(s *Spec) *bool { return &s.TimeBased })},
	{[]string{"ramp_time"}, durationField(func(s *Spec) *time.Duration { return &s.RampTime })},
	{[]string{"startdelay"}, setStartDelay},
	{[]string{"rate"}, rateField(func(s *Spec) *[2]int64 { return &s.Rate })},
	{[]string{"rate_min", "ratemin"}, rateField(func(s *Spec) *[2]int64 { return &s.RateMin })},
	{[]string{"rate_iops"}, rateIOPSField(func(s *Spec) *[2]int { return &s.RateIOPS })},
	{[]string{"rate_iops_min"}, rateIOPSField(func(s *Spec) *[2]int { return &s.RateIOPSMin })},
	{[]string{"rate_process"}, setRateProcess},
	{[]string{"ratecycle"}, avgTimeField(func(s *Spec) *time.Duration { return &s.RateCycle })},
	{[]string{"thinktime"}, usecField(func(s *Spec) *time.Duration { return &s.ThinkTime })},
	{[]string{"thinktime_spin"}, setThinkTimeSpin},
	{[]string{"thinktime_blocks"}, intField(func(s *Spec) *int { return &s.ThinkTimeBlocks }, 1, 1<<30)},
	{[]string{"thinktime_blocks_type"}, setThinkTimeBlocksType},
	{[]string{"random_distribution"}, setRandomDistribution},
	{[]string{"randseed"}, setRandSeed},
	{[]string{"cpus_allowed"}, setCPUsAllowed},
	{[]string{"cpus_allowed_policy"}, setCPUsAllowedPolicy},
	{[]string{"filename"}, setFilename},
	{[]string{"directory"}, stringField(func(s *Spec) *string { return &s.Directory })},
	{[]string{"ioscheduler"}, stringField(func(s *Spec) *string { return &s.IOScheduler })},
	{[]string{"group_reporting"}, boolField(func(s *Spec) *bool { return &s.GroupReporting })},
	{[]string{"stonewall", "wait_for_previous"}, boolField(func(s *Spec) *bool { return &s.Stonewall })},
	{[]string{"new_group"}, boolField(func(s *Spec) *bool { return &s.NewGroup })},
	{[]string{"wait_for"}, stringField(func(s *Spec) *string { return &s.WaitFor })},
	{[]string{"exitall"}, boolField(func(s *Spec) *bool { return &s.ExitAll })},
	{[]string{"fsync"}, syncField(func(s *Spec) *int { return &s.FSync })},
	{[]string{"fdatasync"}, syncField(func(s *Spec) *int { return &s.FDataSync })},
	{[]string{"end_fsync"}, setEndFsync},
	{[]string{"steadystate", "ss"}, setSteadyState},
	{[]string{"steadystate_duration", "ss_dur"}, durationField(func(s *Spec) *time.Duration { return &s.SteadyState.Dur })},
	{[]string{"steadystate_ramp_time", "ss_ramp"}, durationField(func(s *Spec) *time.Duration { return &s.SteadyState.Ramp })},
	{[]string{"clat_percentiles"}, boolField(func(s *Spec) *bool { return &s.ClatPercentiles })},
	{[]string{"slat_percentiles"}, boolField(func(s *Spec) *bool { return &s.SlatPercentiles })},
	{[]string{"lat_percentiles"}, boolField(func(s *Spec) *bool { return &s.LatPercentiles })},
	{[]string{"percentile_list"}, setPercentileList},
	{[]string{"kb_base"}, setKBBase},
	{[]string{"bwavgtime"}, markSet(avgTimeField(func(s *Spec) *time.Duration { return &s.BWAvgTime }), func(s *Spec) *bool { return &s.Logs.BWAvgTimeSet })},
	{[]string{"iopsavgtime"}, markSet(avgTimeField(func(s *Spec) *time.Duration { return &s.IOPSAvgTime }), func(s *Spec) *bool { return &s.Logs.IOPSAvgTimeSet })},
	{[]string{"write_bw_log"}, logPrefix(func(l *LogOptions) (*bool, *string) { return &l.BW, &l.BWPrefix })},
	{[]string{"write_lat_log"}, logPrefix(func(l *LogOptions) (*bool, *string) { return &l.Lat, &l.LatPrefix })},
	{[]string{"write_iops_log"}, logPrefix(func(l *LogOptions) (*bool, *string) { return &l.IOPS, &l.IOPSPrefix })},
	{[]string{"write_hist_log"}, setHistLog},
	{[]string{"log_avg_msec"}, intField(func(s *Spec) *int { return &s.Logs.AvgMsec }, 0, 1<<30)},
	{[]string{"log_hist_msec"}, setLogHistMsec},
	{[]string{"log_max_value"}, boolField(func(s *Spec) *bool { return &s.Logs.MaxValue })},
	{[]string{"per_job_logs"}, boolField(func(s *Spec) *bool { return &s.Logs.PerJob })},
	{[]string{"log_offset"}, boolField(func(s *Spec) *bool { return &s.Logs.Offset })},
	{[]string{"log_prio"}, boolField(func(s *Spec) *bool { return &s.Logs.Prio })},
	{[]string{"stats"}, setStats},
	{[]string{"randrepeat"}, setRandRepeat},
	{[]string{"allrandrepeat"}, setRandRepeat},
	{[]string{"norandommap"}, setNoRandomMap},
	{[]string{"hipri"}, setHipri},
	{[]string{"pre_read"}, setPreRead},
	{[]string{"thread"}, boolField(func(s *Spec) *bool { return &s.Thread })},
	{[]string{"sync"}, setSyncIO},
	{[]string{"nrfiles", "nr_files"}, setNrFiles},
}

// ignoredOptions are fio options accepted without a warning because they have
// no bearing on anything the model simulates or reports: descriptions, data
// contents and patterns, file housekeeping of a raw device, CPU and clock
// bookkeeping, errors the model never produces, and command-line output
// controls given in a job file.
var ignoredOptions = []string{
	"description", "invalidate", "clocksource", "lockmem",
	"refill_buffers", "scramble_buffers", "zero_buffers", "buffer_compress_percentage",
	"buffer_compress_chunk", "buffer_pattern", "dedupe_percentage",
	"fallocate", "create_on_open", "create_serialize", "allow_file_create", "unlink",
	"overwrite", "fsync_on_close",
	"exitall_on_error", "continue_on_error",
	"output-format", "output", "eta", "eta-newline", "status-interval", "minimal",
	"terse-version", "significant_figures", "group_reporting_percentiles",
}

// unmodelledOptions are fio options accepted whatever their value that change
// what fio does but not what the model simulates: each use is warned about,
// with why.
var unmodelledOptions = map[string]string{
	"gtod_reduce":            "fio would stop collecting latencies; the model still reports them all",
	"disable_clat":           "fio would not report clat; the model still reports it",
	"disable_slat":           "fio would not report slat; the model still reports it",
	"disable_lat":            "fio would not report lat; the model still reports it",
	"disable_bw_measurement": "fio would not sample bandwidth; the model still does",
	"disable_bw":             "fio would not sample bandwidth; the model still does",
	"file_service_type":      "the model drives one file per job, so there is no file to switch between",
	"unified_rw_reporting":   "the model reports reads and writes separately (fio's unified_rw_reporting=none)",
	"sqthread_poll":          "io_uring's SQ polling thread is not modelled: submissions are charged to the job's own thread and CPU",
	"sqthread_poll_cpu":      "io_uring's SQ polling thread is not modelled",
	"fixedbufs":              "registered buffers would save page pinning per I/O; the model's CPU costs do not include pinning, so nothing changes",
	"registerfiles":          "registered files would save a file reference per I/O; the model's CPU costs do not include it, so nothing changes",
	"cpumask":                "use cpus_allowed=; the hex CPU mask form is not modelled and the job runs on any CPU",
	"thinktime_iotime":       "thinktime_iotime is not modelled; thinktime applies every thinktime_blocks I/Os",
	"rate_ignore_thinktime":  "rate_ignore_thinktime is not modelled: thinktime counts against the rate",
	"ioprio":                 "I/O priorities are not modelled (mq-deadline treats every request as the same class)",
	"ioprio_class":           "I/O priorities are not modelled (mq-deadline treats every request as the same class)",
	"prio":                   "I/O priorities are not modelled",
	"prioclass":              "I/O priorities are not modelled",
	"nice":                   "CPU scheduling priority is not modelled",
	"offset_align":           "offset_align is not modelled: offsets are aligned to blockalign",
}

// notModelled are fio options that change the I/O in ways the model does not
// reproduce and cannot ignore: rejected with a message that says so, rather
// than "unknown".
var notModelled = []string{
	"verify", // a verify phase reads back what was written: I/O the model does not issue
	"rw_sequencer", "zonemode", "zonesize", "zonerange", "zoneskip", "trim_percentage",
	"flow", "flow_id", "read_iolog", "write_iolog", "replay_no_stall", "io_submit_mode",
	"verify_backlog", "trim_backlog", "latency_target", "latency_window", "max_latency",
	"file_append", "serialize_overlap", "exec_prerun", "exec_postrun",
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
	for n, why := range unmodelledOptions {
		options[n] = &optDef{name: n, set: func(*jobBuilder, string) error { return nil }, note: why}
	}
	for _, n := range notModelled {
		options[n] = &optDef{name: n, set: func(*jobBuilder, string) error {
			return errors.New("fio option not modelled by blkmq")
		}}
	}
	registerFio333()
}

// unknownOption is the error for a name fio would not accept, naming the
// closest accepted option when one is near (fio's show_closest_option).
func unknownOption(name string) error {
	best, bestD := "", 4
	for n := range options {
		if d := editDistance(name, n); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if best != "" && bestD <= min(2, len(name)/4+1) { // fio's string_distance_ok bound, at most 2
		return fmt.Errorf("unknown option; did you mean %s?", best)
	}
	return errors.New("unknown option")
}

// editDistance is the Levenshtein distance of a and b (capped inputs).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// jobBuilder accumulates one job's options into a Spec.
type jobBuilder struct {
	spec   Spec
	kbBase int
	cfg    *ParseConfig
	// where records, per canonical option name, the last option that set it,
	// so that cross-field errors point at the right line.
	where map[string]rawOption
	// globalOpts is, in the global builder, the global options so far (the
	// slice the jobs after it share).
	globalOpts []Option
	// pending is a note an option's setter leaves for its value ("" = none):
	// applyOptions records it as Unmodelled.
	pending string
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

// maxStartDelaySpan is the widest startdelay=LO-HI range fio 3.33 draws from
// correctly: rand_between (lib/rand.h) hands HI-LO microseconds to rand32_upto,
// a uint32_t, with the default 32-bit Tausworthe generator.
const maxStartDelaySpan = time.Duration(1<<32-1) * time.Microsecond

// setStartDelay parses startdelay=TIME or startdelay=LO-HI (also LO:HI, LO,HI):
// fio 3.33's option has off1 and off2 (options.c), so handle_option stores the
// first part as the delay and the second as its top, and fixup_options draws each
// job's delay between them. A reversed range, a third part (dropped by fio) and a
// span too wide for fio's 32-bit draw are refused.
func setStartDelay(j *jobBuilder, v string) error {
	t := strings.TrimSpace(v)
	if !strings.ContainsAny(t, ",:-") || strings.HasPrefix(t, "-") {
		d, err := parseDuration(t, time.Second)
		if err == nil {
			j.spec.StartDelay, j.spec.StartDelayHigh = d, 0
		}
		return err
	}
	if strings.Contains(t, "(") {
		return fmt.Errorf("fio 3.33 cuts this value at its ',', ':' or '-' even inside parentheses (parse.c handle_option) into a low and a high delay; give LO-HI without parentheses, or the result")
	}
	parts := fioParts(t)
	if len(parts) > 2 {
		return fmt.Errorf("three or more parts: fio 3.33 keeps a low and a high delay (startdelay=LO-HI) and drops %q without a word; give LO-HI", strings.Join(parts[2:], ","))
	}
	lo, err := parseDuration(parts[0], time.Second)
	if err != nil {
		return fmt.Errorf("low delay %q: %w", strings.TrimSpace(parts[0]), err)
	}
	hi, err := parseDuration(parts[1], time.Second)
	if err != nil {
		return fmt.Errorf("high delay %q: %w", strings.TrimSpace(parts[1]), err)
	}
	if hi < lo {
		return fmt.Errorf("range %v-%v is reversed: fio draws HI-LO microseconds as an unsigned number, so it would pick a delay far outside it; give LO-HI with LO <= HI", lo, hi)
	}
	if hi-lo > maxStartDelaySpan {
		return fmt.Errorf("range %v-%v is wider than %v: fio's rand_between draws the span as a 32-bit number of microseconds (random_generator=tausworthe), so it would wrap", lo, hi, maxStartDelaySpan)
	}
	j.spec.StartDelay, j.spec.StartDelayHigh = lo, hi
	if hi == lo {
		j.spec.StartDelayHigh = 0
	}
	return nil
}

// avgTimeField parses bwavgtime / iopsavgtime: default unit ms, at least
// 1 ms.
//
// fio declares both FIO_OPT_INT without is_time (options.c): the value is an
// integer of milliseconds read as a size, so a suffix is a size multiplier
// ("1k" is 1024 ms) and a time suffix is not a time: fio reads "250ms" as 250 ×
// 1024² ms (the "m") and "1s" as 1 ms. A value with a time suffix is refused,
// saying so; it was read as a time.
func avgTimeField(field func(*Spec) *time.Duration) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		n, err := parseSize(v, 1024, 0, 1<<63-1)
		if err == nil && (n < 1 || n > int64(maxDuration/time.Millisecond)) {
			return fmt.Errorf("out of range [1ms, %v]", maxDuration)
		}
		if err != nil {
			if num, suffix := splitNumber(strings.TrimSpace(v)); num != "" && suffix != "" {
				if _, terr := timeMultiplier(suffix, time.Millisecond); terr == nil {
					return fmt.Errorf("an integer of milliseconds in fio (FIO_OPT_INT: a suffix multiplies it as a size, so %q is not %s%s there); give the milliseconds as a number, e.g. %s", v, num, suffix, num)
				}
			}
			return err
		}
		*field(&j.spec) = time.Duration(n) * time.Millisecond
		return nil
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
	// fio 3.33 also takes these (options.c rw posval), and PATTERN:N (a hole of N
	// bytes after each sequential I/O, or a new random offset every N I/Os)
	if p, n, ok := strings.Cut(v, ":"); ok && p != "" {
		if err := setRW(j, p); err == nil {
			what := "a hole of " + n + " after each I/O"
			if strings.HasPrefix(p, "rand") {
				what = "a new random offset every " + n + " I/Os"
			}
			return fmt.Errorf("the offset modifier %q of rw=%s is not modelled by blkmq (fio: %s); give rw=%s alone", ":"+n, p, what, p)
		}
	}
	switch v {
	case "trim", "randtrim", "trimwrite", "randtrimwrite":
		return fmt.Errorf("rw=%s: trim workloads are not modelled by blkmq", v)
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

// setBlockSize parses bs=: one size for every direction, or read,write
// ("4k,64k"; an empty part keeps the default; a third part, trim, is
// accepted and unused since no pattern trims).
func setBlockSize(j *jobBuilder, v string) error {
	parts := strings.Split(v, ",")
	if len(parts) > 3 {
		return errors.New("want SIZE or READ,WRITE[,TRIM]")
	}
	if strings.TrimSpace(strings.Join(parts, "")) == "" {
		return errors.New("missing value")
	}
	var sizes [2]int64
	for i := range min(len(parts), 2) {
		if strings.TrimSpace(parts[i]) == "" {
			continue
		}
		n, err := parseBlockSize(parts[i], j.kbBase)
		if err != nil {
			return err
		}
		sizes[i] = n
	}
	switch {
	case len(parts) == 1:
		j.spec.BlockSize, j.spec.WriteBlockSize = sizes[0], 0
	default:
		if sizes[0] != 0 {
			j.spec.BlockSize = sizes[0]
		}
		if sizes[1] != 0 {
			j.spec.WriteBlockSize = sizes[1]
		}
	}
	return nil
}

func parseBlockSize(v string, kbBase int) (int64, error) {
	n, err := parseSize(v, kbBase, SectorSize, MaxBlockSize)
	if err != nil {
		return 0, err
	}
	if n%SectorSize != 0 {
		if l := strings.ToLower(v); strings.Contains(l, "ib") && kbBase == 1024 {
			// HOWTO "int": with kb_base=1024 (the default) the IEC spellings are
			// powers of 1000, "for compatibility with old scripts"
			return 0, fmt.Errorf("not a multiple of %d (%d bytes: with fio's default kb_base=1024, kib/mib/... are powers of 1000, 4kib is 4000; write 4k, or set kb_base=1000)", SectorSize, n)
		}
		if kbBase == 1000 && strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0 {
			// with kb_base=1000 the families swap: k/m/g are powers of 1000
			return 0, fmt.Errorf("not a multiple of %d (%d bytes: with kb_base=1000, k/m/g/... are powers of 1000 (4k is 4000); write kib/mib/..., which are powers of 1024 there, or drop kb_base=1000)", SectorSize, n)
		}
		return 0, fmt.Errorf("not a multiple of %d", SectorSize)
	}
	return n, nil
}

// setBSRange parses bsrange=MIN-MAX (or MIN:MAX), one range for both
// directions.
func setBSRange(j *jobBuilder, v string) error {
	if strings.Contains(v, ",") {
		return errors.New("per-direction ranges are not modelled; give one MIN-MAX range")
	}
	lo, hi, ok := strings.Cut(v, "-")
	if !ok {
		lo, hi, ok = strings.Cut(v, ":")
	}
	if !ok {
		return errors.New("want MIN-MAX, e.g. 4k-64k")
	}
	a, err := parseBlockSize(lo, j.kbBase)
	if err != nil {
		return err
	}
	b, err := parseBlockSize(hi, j.kbBase)
	if err != nil {
		return err
	}
	if b < a {
		a, b = b, a // fio swaps a reversed range
	}
	j.spec.BSRangeMin, j.spec.BSRangeMax = a, b
	return nil
}

// setBSSplit parses bssplit=SIZE/PCT:SIZE/PCT:... (options.c bssplit_ddir):
// entries without a percentage share what is left evenly; the total must be
// 100.
func setBSSplit(j *jobBuilder, v string) error {
	if strings.Contains(v, ",") {
		return errors.New("per-direction splits are not modelled; give one SIZE/PCT:SIZE/PCT list")
	}
	var out []BSSplit
	total, missing := 0.0, 0
	parts := strings.Split(v, ":")
	for i, part := range parts {
		if strings.TrimSpace(part) == "" {
			// split_parse_ddir stops at the first empty entry
			if rest := strings.TrimSpace(strings.Join(parts[i+1:], ":")); strings.Trim(rest, ": ") != "" {
				return fmt.Errorf("empty entry: fio 3.33 stops reading the split there (options.c split_parse_ddir) and ignores %q; remove the extra ':'", rest)
			}
			break
		}
		if len(out) == 64 {
			return errors.New("more than 64 entries")
		}
		sz, pct, hasPct := strings.Cut(part, "/")
		n, err := parseBlockSize(sz, j.kbBase)
		if err != nil {
			return err
		}
		e := BSSplit{Size: n, Percent: -1}
		if pct = strings.TrimSpace(pct); hasPct && pct != "" {
			p, err := strconv.ParseFloat(pct, 64)
			if err != nil || p < 0 || p > 100 {
				return fmt.Errorf("percentage %q out of range [0, 100]", pct)
			}
			if p != math.Trunc(p) {
				// split_parse_ddir reads it with atoi
				return fmt.Errorf("fractional percentage %q: fio 3.33 reads it with atoi (options.c split_parse_ddir), so it would use %d; give whole percentages", pct, int(p))
			}
			if p > 0 {
				e.Percent = p
				total += p
			}
		}
		if e.Percent < 0 {
			// no share, or /0, which split_parse_ddir reads as none given: the
			// entry shares what the others leave (bssplit=4k/0 is bs=4k)
			missing++
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return errors.New("empty split; want SIZE/PCT:SIZE/PCT")
	}
	if total > 100.0001 || missing == 0 && total < 99.9999 {
		return fmt.Errorf("percentages add up to %g, want 100", total)
	}
	for i := range out {
		if out[i].Percent < 0 {
			out[i].Percent = (100 - total) / float64(missing)
		}
	}
	j.spec.BSSplit = out
	return nil
}

func setBlockAlign(j *jobBuilder, v string) error {
	if strings.Contains(v, ",") {
		v, _, _ = strings.Cut(v, ",")
	}
	n, err := parseBlockSize(v, j.kbBase)
	if err == nil {
		j.spec.BlockAlign = n
	}
	return err
}

func setSize(j *jobBuilder, v string) error {
	n, pct, err := parseSizePercent(v, j.kbBase, 0, MaxSize)
	if err == nil {
		j.spec.Size, j.spec.SizePercent = n, pct
	}
	return err
}

func setOffset(j *jobBuilder, v string) error {
	n, pct, err := parseSizePercent(v, j.kbBase, 0, MaxSize)
	if err != nil {
		return err
	}
	if n%SectorSize != 0 {
		return fmt.Errorf("not a multiple of %d", SectorSize)
	}
	j.spec.Offset, j.spec.OffsetPercent = n, pct
	return nil
}

func setOffsetIncrement(j *jobBuilder, v string) error {
	n, err := parseSize(v, j.kbBase, 0, MaxSize)
	if err != nil {
		return err
	}
	if n%SectorSize != 0 {
		return fmt.Errorf("not a multiple of %d", SectorSize)
	}
	j.spec.OffsetIncrement = n
	return nil
}

func int64Field(field func(*Spec) *int64) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		n, err := parseSize(v, 1024, 0, 1<<62)
		if err == nil {
			*field(&j.spec) = n
		}
		return err
	}
}

// rateField parses rate= / rate_min=: bytes/s for read,write (one value
// applies to both; "rate=,1m" limits writes only).
func rateField(field func(*Spec) *[2]int64) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		r, err := readWritePair(v, "RATE", func(s string) (int64, error) { return parseSize(s, j.kbBase, 0, 1<<50) })
		if err == nil {
			*field(&j.spec) = r
		}
		return err
	}
}

// rateIOPSField parses rate_iops= / rate_iops_min= as rateField does, in IOPS.
func rateIOPSField(field func(*Spec) *[2]int) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		r, err := readWritePair(v, "IOPS", func(s string) (int, error) { return parseInt(s, 0, MaxRateIOPS) })
		if err == nil {
			*field(&j.spec) = r
		}
		return err
	}
}

// readWritePair splits fio's "VALUE" or "READ,WRITE[,TRIM]" form: one value applies
// to reads and writes, an empty part leaves that direction 0, trim is ignored.
func readWritePair[T any](v, what string, parse func(string) (T, error)) ([2]T, error) {
	var r [2]T
	parts := strings.Split(v, ",")
	if len(parts) > 3 {
		return r, errors.New("want " + what + " or READ,WRITE[,TRIM]")
	}
	for i := range min(len(parts), 2) {
		if strings.TrimSpace(parts[i]) == "" {
			continue
		}
		n, err := parse(parts[i])
		if err != nil {
			return r, err
		}
		r[i] = n
	}
	if len(parts) == 1 {
		r[1] = r[0]
	}
	return r, nil
}

func setRateProcess(j *jobBuilder, v string) error {
	switch v {
	case "linear":
		j.spec.RatePoisson = false
	case "poisson":
		j.spec.RatePoisson = true
	default:
		return errors.New("want linear or poisson")
	}
	return nil
}

// usecField parses a time whose bare number is in microseconds (fio's
// thinktime family).
func usecField(field func(*Spec) *time.Duration) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		d, err := parseDuration(v, time.Microsecond)
		if err == nil {
			*field(&j.spec) = d
		}
		return err
	}
}

func setThinkTimeBlocksType(j *jobBuilder, v string) error {
	switch v {
	case "complete":
		j.spec.ThinkTimeIssue = false
	case "issue":
		j.spec.ThinkTimeIssue = true
	default:
		return errors.New("want complete or issue")
	}
	return nil
}

// checkParam applies str_random_distribution_cb's ranges to Param: zipf's theta
// may be anything but 1.0 (lib/zipf.c divides by 1 - theta; 0 and negative thetas
// run, flattening the distribution), pareto's h is in (0, 1), normal's deviation in
// [0, 100) percent. fio reads the number with sscanf("%lf"), so it would also take
// nan and inf; they are refused here, being no distribution.
func (d Distribution) checkParam() error {
	p := d.Param
	if (d.Kind == DistZipf || d.Kind == DistPareto || d.Kind == DistNormal) && (math.IsNaN(p) || math.IsInf(p, 0)) {
		return fmt.Errorf("%s parameter %g is not a finite number", d.Kind, p)
	}
	switch {
	case d.Kind == DistZipf && p == 1:
		return errors.New("zipf theta must be different from 1.0 (fio's rule)")
	case d.Kind == DistPareto && !(p > 0 && p < 1):
		// options.c: "pareto input out of range (0 < input < 1.0)"
		return errors.New("pareto h must be in (0, 1) (fio's rule)")
	case d.Kind == DistNormal && !(p >= 0 && p < 100):
		// options.c: "normal deviation out of range (0 <= input < 100.0)"
		return errors.New("normal deviation must be in [0, 100) percent (fio's rule)")
	}
	return nil
}

// setRandomDistribution parses random_distribution= (options.c
// str_random_distribution_cb): random, zipf:THETA[:CENTER],
// pareto:H[:CENTER], normal:DEV[:CENTER], zoned:A/S:A/S..., zoned_abs:A/SIZE:...
func setRandomDistribution(j *jobBuilder, v string) error {
	kind, rest, hasParam := strings.Cut(v, ":")
	d := Distribution{Center: -1}
	switch kind {
	case "random":
		if rest != "" {
			return errors.New("random takes no parameter")
		}
	case "zipf", "pareto", "normal":
		d.Kind = map[string]DistKind{"zipf": DistZipf, "pareto": DistPareto, "normal": DistNormal}[kind]
		ps, cs, hasC := strings.Cut(rest, ":")
		// without ":PARAM" fio keeps its default (FIO_DEF_ZIPF 1.1,
		// FIO_DEF_PARETO 0.2, a normal deviation of 0)
		p := map[DistKind]float64{DistZipf: 1.1, DistPareto: 0.2, DistNormal: 0}[d.Kind]
		if hasParam {
			var err error
			p, err = strconv.ParseFloat(ps, 64)
			if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
				return fmt.Errorf("%s needs a finite number, as %s", kind, map[DistKind]string{DistZipf: "zipf:1.2", DistPareto: "pareto:0.2", DistNormal: "normal:5"}[d.Kind])
			}
		}
		if err := (Distribution{Kind: d.Kind, Param: p}).checkParam(); err != nil {
			return err
		}
		d.Param = p
		if hasC {
			c, err := strconv.ParseFloat(cs, 64)
			if err != nil || !(c >= 0 && c <= 1) {
				return fmt.Errorf("center %q out of range [0, 1]", cs)
			}
			d.Center = c
		}
	case "zoned", "zoned_abs":
		d.Kind = DistZoned
		if kind == "zoned_abs" {
			d.Kind = DistZonedAbs
		}
		if strings.Contains(rest, ",") {
			return errors.New("per-direction zones are not modelled; give one list")
		}
		total, totalSize := 0.0, 0.0
		var sizeMissing []int // zoned zones without a size share
		for z := range strings.SplitSeq(rest, ":") {
			if len(d.Zones) == 256 {
				return errors.New("more than 256 zones")
			}
			a, sz, ok := strings.Cut(z, "/")
			if d.Kind == DistZoned && (strings.TrimSpace(sz) == "" || strings.TrimSpace(sz) == "0") {
				// split_parse_ddir: no '/', an empty share or atoi's 0 is a missing
				// size share, which zone_split_ddir fills with what is left
				ap, err := strconv.ParseFloat(a, 64)
				if err != nil || ap < 0 || ap > 100 {
					return fmt.Errorf("zone %q: access share out of range [0, 100]", z)
				}
				total += ap
				sizeMissing = append(sizeMissing, len(d.Zones))
				d.Zones = append(d.Zones, Zone{Access: ap})
				continue
			}
			if !ok {
				return fmt.Errorf("zone %q: want ACCESS%%/SIZE", z)
			}
			ap, err := strconv.ParseFloat(a, 64)
			if err != nil || ap < 0 || ap > 100 {
				return fmt.Errorf("zone %q: access share out of range [0, 100]", z)
			}
			zone := Zone{Access: ap}
			if d.Kind == DistZoned {
				sp, err := strconv.ParseFloat(sz, 64)
				if err != nil || sp < 0 || sp > 100 {
					return fmt.Errorf("zone %q: size share out of range [0, 100]", z)
				}
				zone.Size = sp
				totalSize += sp
			} else {
				n, err := parseSize(sz, j.kbBase, 1, MaxSize)
				if err != nil {
					return fmt.Errorf("zone %q: %w", z, err)
				}
				zone.SizeBytes = n
			}
			total += ap
			d.Zones = append(d.Zones, zone)
		}
		if total < 99.9999 || total > 100.0001 {
			return fmt.Errorf("zone access shares add up to %g, want 100", total)
		}
		if n := len(sizeMissing); n > 0 {
			if totalSize > 100 {
				return fmt.Errorf("zone sizes add up to %g%%, more than 100", totalSize)
			}
			// zone_split_ddir: each missing share is (100 - given) / missing, an
			// integer division
			fill := math.Floor((100 - math.Floor(totalSize)) / float64(n))
			for _, i := range sizeMissing {
				d.Zones[i].Size = fill
				totalSize += fill
			}
		}
		if d.Kind == DistZoned && (totalSize < 99.9999 || totalSize > 100.0001) {
			return fmt.Errorf("zone sizes add up to %g%%, want 100 (fio also runs a sum under 100, leaving the rest of the file unread; that is not modelled)", totalSize)
		}
	default:
		return errors.New("want random, zipf:THETA, pareto:H, normal:DEV, zoned:A/S:... or zoned_abs:A/SIZE:...")
	}
	j.spec.Dist = d
	return nil
}

func setRandSeed(j *jobBuilder, v string) error {
	n, err := parseUint(v)
	if err == nil {
		j.spec.RandSeed, j.spec.RandSeedSet = n, true
	}
	return err
}

// setSteadyState parses ss= (steadystate.c str_steadystate_cb): iops:LIMIT,
// iops_slope:LIMIT, bw:LIMIT or bw_slope:LIMIT, LIMIT a number or a
// percentage.
func setSteadyState(j *jobBuilder, v string) error {
	kind, lim, ok := strings.Cut(v, ":")
	ss := j.spec.SteadyState
	switch kind {
	case "iops", "iops_slope", "bw", "bw_slope":
	default:
		ok = false
	}
	if !ok {
		return errors.New("want iops:LIMIT, iops_slope:LIMIT, bw:LIMIT or bw_slope:LIMIT (LIMIT a number or N%)")
	}
	ss.BW = strings.HasPrefix(kind, "bw")
	ss.Slope = strings.HasSuffix(kind, "_slope")
	num, pct := strings.CutSuffix(lim, "%")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f != f {
		return fmt.Errorf("limit %q: want a non-negative number or percentage", lim)
	}
	if !pct && ss.BW {
		// an absolute bandwidth limit takes fio's size suffixes
		n, err := parseSize(lim, j.kbBase, 0, 1<<50)
		if err == nil {
			f = float64(n)
		}
	}
	ss.Set, ss.Percent, ss.Limit = true, pct, f
	j.spec.SteadyState = ss
	return nil
}

func setDirect(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil {
		j.spec.Direct, j.spec.DirectSet = b, true
		if !b {
			j.pending = noteBuffered
		}
	}
	return err
}

// noteBuffered says what the model does with buffered I/O.
const noteBuffered = "buffered I/O is not modelled: there is no page cache, so every I/O goes to the block layer as with direct=1 (reads are not cached, writes are not deferred to writeback)"

func setBuffered(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil {
		j.spec.Direct, j.spec.DirectSet = !b, true
		if b {
			j.pending = noteBuffered
		}
	}
	return err
}

func setStats(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil && !b {
		j.pending = "fio would report no statistics for this job; the model reports them anyway"
	}
	return err
}

func setRandRepeat(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil && !b {
		j.pending = "fio would seed from the clock; the model stays deterministic (seeded by --seed, or randseed=)"
	}
	return err
}

func setNoRandomMap(j *jobBuilder, v string) error {
	_, err := parseBool(v)
	return err // the model draws random offsets with replacement, as fio does with norandommap
}

func setHipri(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil && b {
		j.pending = "polled completions (RWF_HIPRI / IORING_SETUP_IOPOLL) are not modelled: the I/O completes by interrupt on the modelled path (null_blk's and scsi_debug's poll queues are not simulated)"
	}
	return err
}

// setPreRead reads pre_read: fio 3.33 (filesetup.c, pre_read_files) reads each
// file's region once with plain read() calls of the largest read block size before
// the job's I/O starts, outside the job's statistics. The model skips that pass:
// the job starts at once and the disk's statistics (disk_util) leave those reads
// out. pre_read=0 changes nothing and is accepted silently.
func setPreRead(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil && b {
		j.pending = "fio would read the job's whole region once before the job starts (plain read() calls, not in the job's statistics); the model skips that pass: the job starts at once and disk_util leaves those reads out"
	}
	return err
}

func setSyncIO(j *jobBuilder, v string) error {
	switch v {
	case "0", "none", "":
		if v == "" {
			j.pending = "O_SYNC writes (FUA) are not modelled: writes complete as plain writes"
		}
		return nil
	case "1", "sync", "dsync":
		j.pending = "O_SYNC/O_DSYNC writes (FUA) are not modelled: writes complete as plain writes"
		return nil
	}
	return errors.New("want 0, 1, none, sync or dsync")
}

func setNrFiles(j *jobBuilder, v string) error {
	n, err := parseInt(v, 1, 1<<20)
	if err == nil && n > 1 {
		j.pending = fmt.Sprintf("the model drives one file per job; fio would spread the job over %d files", n)
	}
	return err
}

func setIOEngine(j *jobBuilder, v string) error {
	for i, n := range engineNames {
		if v == n {
			j.spec.IOEngine = IOEngine(i)
			return nil
		}
	}
	return engineError(v)
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

// noteFlush says what a flush costs in the model.
const noteFlush = "the modelled devices have no volatile write cache (QUEUE_FLAG_WC clear), so the kernel completes the empty flush at once (submit_bio_noacct drops REQ_PREFLUSH) and it costs nothing: the job's I/O is unchanged"

func syncField(field func(*Spec) *int) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		n, err := parseInt(v, 0, 1<<30)
		if err == nil {
			*field(&j.spec) = n
			if n > 0 {
				j.pending = noteFlush
			}
		}
		return err
	}
}

func setEndFsync(j *jobBuilder, v string) error {
	b, err := parseBool(v)
	if err == nil {
		j.spec.EndFsync = b
		if b {
			j.pending = noteFlush
		}
	}
	return err
}

func setThinkTimeSpin(j *jobBuilder, v string) error {
	d, err := parseDuration(v, time.Microsecond)
	if err == nil {
		j.spec.ThinkTimeSpin = d
		if d > 0 {
			j.pending = "the spinning part of thinktime is waited like the rest: it is not charged as busy CPU time"
		}
	}
	return err
}

// OptionClass tells how the parser treats an option.
type OptionClass uint8

// The classes of [OptionNames].
const (
	// OptModelled options change what the model simulates (some values may
	// still be noted as not modelled, e.g. direct=0).
	OptModelled OptionClass = iota
	// OptUnmodelled options are accepted whatever their value and always
	// noted (Spec.Unmodelled) because the model does not do what fio would.
	OptUnmodelled
	// OptIgnored options have no bearing on what is modelled or reported.
	OptIgnored
	// OptRejected options are known to fio and rejected as not modelled.
	OptRejected
)

// OptionNames returns every option name the parser knows (aliases
// included), each with its class.
func OptionNames() map[string]OptionClass {
	out := make(map[string]OptionClass, len(options))
	for _, o := range optionList {
		for _, n := range o.names {
			out[n] = OptModelled
		}
	}
	for n := range unmodelledOptions {
		out[n] = OptUnmodelled
	}
	for _, n := range ignoredOptions {
		out[n] = OptIgnored
	}
	for _, n := range notModelled {
		out[n] = OptRejected
	}
	return out
}

// setFilename sets filename=; a ':'-separated list of several files ("\\:"
// escapes a colon) is noted, as the model drives one file per job.
func setFilename(j *jobBuilder, v string) error {
	if v == "" {
		return errors.New("missing value")
	}
	j.spec.Filename = v
	if n := len(splitFilenames(v)); n > 1 {
		j.pending = fmt.Sprintf("the job names %d files; the model drives only the first, %s (fio would spread the I/O over all of them)", n, firstFilename(v))
	}
	return nil
}

// splitFilenames splits fio's ':'-separated file list ("\\:" is a colon).
func splitFilenames(list string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(list); i++ {
		switch {
		case list[i] == '\\' && i+1 < len(list) && list[i+1] == ':':
			b.WriteByte(':')
			i++
		case list[i] == ':':
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(list[i])
		}
	}
	return append(out, b.String())
}

// markSet wraps set so that a successful setting also sets the flag (an option
// whose being given matters, not only its value).
func markSet(set func(*jobBuilder, string) error, flag func(*Spec) *bool) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		err := set(j, v)
		if err == nil {
			*flag(&j.spec) = true
		}
		return err
	}
}

// logPrefix parses write_bw_log= / write_lat_log= / write_iops_log=: the log is
// written, named after the value, or after the job when the value is empty
// (fio init.c make_log_name).
func logPrefix(field func(*LogOptions) (*bool, *string)) func(*jobBuilder, string) error {
	return func(j *jobBuilder, v string) error {
		on, prefix := field(&j.spec.Logs)
		*on, *prefix = true, v
		return nil
	}
}

func setHistLog(j *jobBuilder, v string) error {
	j.spec.Logs.Hist, j.spec.Logs.HistPrefix = true, v
	j.pending = "completion-latency histogram logs (clat_hist) are not written by the model"
	return nil
}

func setLogHistMsec(j *jobBuilder, v string) error {
	n, err := parseInt(v, 0, 1<<30)
	if err == nil && n > 0 {
		j.pending = "completion-latency histogram logs (clat_hist) are not written by the model"
	}
	return err
}
