package fio

import (
	"fmt"
	"time"
)

// RW is fio's rw= (readwrite=) I/O pattern.
type RW uint8

// The I/O patterns of fio's rw= option (options.c, "rw").
const (
	RWRead      RW = iota // read: sequential reads
	RWWrite               // write: sequential writes
	RWRandRead            // randread: random reads
	RWRandWrite           // randwrite: random writes
	RWReadWrite           // rw / readwrite: sequential mixed reads and writes
	RWRandRW              // randrw: random mixed reads and writes
)

var rwNames = [...]string{"read", "write", "randread", "randwrite", "rw", "randrw"}

// String returns the fio spelling of the pattern ("randread", "rw", ...).
func (rw RW) String() string {
	if int(rw) < len(rwNames) {
		return rwNames[rw]
	}
	return fmt.Sprintf("RW(%d)", uint8(rw))
}

// Random reports whether offsets are random (randread, randwrite, randrw).
func (rw RW) Random() bool { return rw == RWRandRead || rw == RWRandWrite || rw == RWRandRW }

// Reads reports whether the pattern issues reads.
func (rw RW) Reads() bool { return rw != RWWrite && rw != RWRandWrite }

// Writes reports whether the pattern issues writes.
func (rw RW) Writes() bool { return rw != RWRead && rw != RWRandRead }

// Mixed reports whether the pattern mixes reads and writes (rw, randrw), in
// which case [Spec.RWMixRead] gives the read share.
func (rw RW) Mixed() bool { return rw == RWReadWrite || rw == RWRandRW }

// IOEngine is fio's ioengine= option, reduced to what the model needs: whether
// the engine keeps more than one I/O in flight.
type IOEngine uint8

// The engines accepted by the parser. Asynchronous engines honour iodepth;
// synchronous ones issue one I/O at a time (fio caps their depth at 1).
const (
	EnginePsync    IOEngine = iota // psync: pread/pwrite, synchronous (fio's Linux default)
	EngineSync                     // sync: read/write, synchronous
	EngineVsync                    // vsync: readv/writev, synchronous
	EnginePvsync                   // pvsync: preadv/pwritev, synchronous
	EnginePvsync2                  // pvsync2: preadv2/pwritev2, synchronous
	EngineLibaio                   // libaio: Linux native AIO, asynchronous
	EngineIOUring                  // io_uring: asynchronous
	EnginePosixaio                 // posixaio: POSIX AIO, asynchronous
)

var engineNames = [...]string{"psync", "sync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "posixaio"}

// String returns the fio spelling of the engine ("io_uring", "libaio", ...).
func (e IOEngine) String() string {
	if int(e) < len(engineNames) {
		return engineNames[e]
	}
	return fmt.Sprintf("IOEngine(%d)", uint8(e))
}

// Async reports whether the engine can keep iodepth I/Os in flight.
func (e IOEngine) Async() bool { return e >= EngineLibaio }

// Dir is an I/O direction, the index of fio's per-direction statistics
// (fio's enum fio_ddir: DDIR_READ, DDIR_WRITE, DDIR_TRIM).
type Dir uint8

// Directions, in fio's order.
const (
	DirRead  Dir = iota // DDIR_READ
	DirWrite            // DDIR_WRITE
	DirTrim             // DDIR_TRIM (never issued by the parser's patterns; kept for the JSON layout)
	NrDirs              // number of directions
)

var dirNames = [...]string{"read", "write", "trim"}

// String returns "read", "write" or "trim".
func (d Dir) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", uint8(d))
}

// Limits enforced by the parser and by [Spec.Validate].
const (
	// MaxJobs caps the number of job instances in one job file after numjobs
	// expansion, and numjobs itself (fio's REAL_MAX_JOBS is 4096).
	MaxJobs = 4096
	// MaxIODepth caps iodepth.
	MaxIODepth = 65536
	// SectorSize is the unit block sizes and offsets must be multiples of (bytes).
	SectorSize = 512
	// MaxBlockSize caps bs (bytes).
	MaxBlockSize = 1 << 30
	// MaxSize caps size, filesize and offset (bytes; 1 EiB).
	MaxSize = 1 << 60
	// MaxCPU is the largest CPU number cpus_allowed accepts.
	MaxCPU = 4095
	// MaxRateIOPS caps rate_iops.
	MaxRateIOPS = 1_000_000_000
)

// DefaultAvgTime is fio's default bwavgtime and iopsavgtime.
const DefaultAvgTime = 500 * time.Millisecond

// DefaultPercentiles is fio's default percentile_list (stat.c), in percent.
var DefaultPercentiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// Spec is one fio job instance after [global] inheritance and numjobs
// expansion, with every value converted and range-checked. It is a plain
// value: copy it freely. Its slices (CPUsAllowed, PercentileList, Ignored)
// may be shared by the clones of one numjobs job: treat them as read-only.
//
// Zero values are not fio's defaults; start from [DefaultSpec] when building
// a Spec by hand, then call [Spec.Validate].
type Spec struct {
	// Name is the job name as fio prints it ("jobname" in the JSON): the
	// section name, or the name= option. All clones of a numjobs job share it.
	Name string
	// Index is the clone number, 0..NumJobs-1 (fio's subjob_number).
	Index int
	// NumJobs is the numjobs option of the job this instance was cloned from.
	NumJobs int
	// Seq is the instance's position among all instances of the job file,
	// from 0 (fio's thread_number minus one). Unique within one parse.
	Seq int
	// GroupID is fio's groupid: 0 for the first group, incremented by a job
	// with stonewall or new_group that follows a non-empty group
	// (init.c, add_job).
	GroupID int
	// File and Line locate the job's section header (or --name argument).
	File string
	Line int

	// RW is the I/O pattern (rw=, readwrite=). Default read.
	RW RW
	// RWMixRead is the percentage of reads in a mixed pattern, 0..100
	// (rwmixread=, or 100 - rwmixwrite=). Default 50.
	RWMixRead int
	// PercentageRandom is the percentage of random offsets for random
	// patterns, 0..100 (percentage_random=). Default 100.
	PercentageRandom int
	// BlockSize is bs= (blocksize=) in bytes, a multiple of 512. Default 4096.
	BlockSize int64
	// Size is size= (filesize=) in bytes; 0 means the whole target.
	Size int64
	// Offset is offset= in bytes: where I/O starts in the target. Default 0.
	Offset int64
	// Loops is loops=: how many times a size-bound job repeats. Default 1.
	Loops int

	// IOEngine is ioengine=. Default psync (fio's default on Linux).
	IOEngine IOEngine
	// IODepth is iodepth= as given, 1..MaxIODepth. Default 1.
	IODepth int
	// EffectiveIODepth is the number of I/Os the job keeps in flight: IODepth
	// for asynchronous engines, 1 for synchronous ones (fio caps it and
	// prints "queue depth will be capped at 1").
	EffectiveIODepth int
	// IODepthLow is iodepth_low=, the refill low-water mark; 0 or more than
	// the depth means the depth (init.c, fixup_options).
	IODepthLow int
	// IODepthBatchSubmit is iodepth_batch_submit= (iodepth_batch=): how many
	// I/Os are submitted at once. 0 or more than the depth means the depth
	// (fixup_options). Default 1.
	IODepthBatchSubmit int
	// IODepthBatchCompleteMin is iodepth_batch_complete_min=
	// (iodepth_batch_complete=): the fewest completions reaped at once; 0
	// means poll without waiting. Default 1.
	IODepthBatchCompleteMin int
	// IODepthBatchCompleteMax is iodepth_batch_complete_max=: the most
	// completions reaped at once; raised to IODepthBatchCompleteMin when
	// smaller (fixup_options).
	IODepthBatchCompleteMax int
	// Direct is direct= (or the inverse of buffered=): O_DIRECT I/O.
	Direct bool
	// DirectSet reports that direct= or buffered= was given (in the job or a
	// [global] section above it); false means fio's default, buffered I/O.
	DirectSet bool

	// Runtime is runtime= (default unit seconds); 0 = until Size is done.
	Runtime time.Duration
	// TimeBased is time_based=: run for Runtime even when Size is done.
	TimeBased bool
	// RampTime is ramp_time=: I/O before the statistics window opens.
	RampTime time.Duration
	// StartDelay is startdelay=: delay before the job starts.
	StartDelay time.Duration
	// StartDelayHigh is the top of a startdelay=LO-HI range (0 = one value): each
	// job then starts after a delay drawn uniformly from [StartDelay,
	// StartDelayHigh] at microsecond steps, as fio's fixup_options draws it with
	// rand_between (init.c); the model draws from its own seeded stream, so the
	// value is not fio's.
	StartDelayHigh time.Duration

	// CPUsAllowed is cpus_allowed= as a sorted list of CPU numbers; nil = any.
	CPUsAllowed []int
	// CPUsAllowedPolicy is cpus_allowed_policy= ("shared" or "split").
	CPUsAllowedPolicy string

	// Filename is filename= as given (fio separates several files with ':').
	Filename string
	// Directory is directory= as given.
	Directory string
	// Target names the device the job drives, to be mapped to a LUN: the
	// first file of Filename when it is an absolute path (/dev/sdb); else
	// Directory (the file system the job's files live on); else the first
	// file of Filename; else the job name (fio then opens a file named
	// after the job, which is how [/dev/sdb] with no filename drives
	// /dev/sdb).
	Target string
	// IOScheduler is ioscheduler= (recorded: the scheduler the job asks the
	// device to use); "" = leave as is.
	IOScheduler string

	// GroupReporting is group_reporting=: report the job's group as a whole.
	GroupReporting bool
	// Stonewall is stonewall= (wait_for_previous=): wait for all previous
	// jobs to finish before starting; it also starts a new group.
	Stonewall bool
	// NewGroup is new_group=: start a new reporting group without waiting.
	NewGroup bool

	// ClatPercentiles, SlatPercentiles and LatPercentiles are fio's
	// clat_percentiles= (default on), slat_percentiles= and
	// lat_percentiles= (default off): which latencies get percentiles.
	ClatPercentiles bool
	SlatPercentiles bool
	LatPercentiles  bool
	// PercentileList is percentile_list= in percent; default
	// [DefaultPercentiles].
	PercentileList []float64
	// BWAvgTime and IOPSAvgTime are bwavgtime= and iopsavgtime= (default
	// unit ms, default 500 ms): the interval over which fio samples a job's
	// bandwidth and IOPS for bw_min/bw_max/bw_mean and the iops_* figures.
	BWAvgTime   time.Duration
	IOPSAvgTime time.Duration

	// Thread is fio's thread option: the job runs as a thread of fio's process
	// (pthread_create) instead of a forked process of its own, so every job with it
	// shares one address space (fio's backend.c fork_main / thread_main).
	Thread bool
	// Ignored lists, in first-seen order, the options accepted that have no
	// bearing on what is modelled at all (descriptions, output controls,
	// data patterns): they need no warning.
	Ignored []string
	// Unmodelled lists, once per option name (the last setting wins), the
	// options accepted that would change what fio does but do not change
	// what the model simulates, each with why: the run warns about each
	// (and --strict rejects them).
	Unmodelled []Unmodelled
	// GlobalOptions lists the options of the [global] sections above the
	// job, in order (fio's JSON "global options"); the jobs of one parse
	// share this slice: read-only.
	GlobalOptions []Option
	// Options lists the job's own options as written, in order (fio's JSON
	// "job options").
	Options []Option

	// WriteBlockSize is the write block size of bs=R,W (blocksize=);
	// 0 = BlockSize.
	WriteBlockSize int64
	// BSRangeMin and BSRangeMax are bsrange= (blocksize_range=): each I/O
	// draws a size in [min, max] in steps of min (io_u.c get_next_buflen);
	// 0 = fixed BlockSize.
	BSRangeMin, BSRangeMax int64
	// BSSplit is bssplit=: block sizes with their share of I/Os in percent;
	// entries without a share split the rest evenly (options.c
	// bssplit_ddir). nil = none.
	BSSplit []BSSplit
	// BlockAlign is blockalign= (ba=): random offsets are multiples of it;
	// 0 = the smallest block size.
	BlockAlign int64
	// Dist is random_distribution=: how random offsets are drawn.
	Dist Distribution
	// RandSeed is randseed= when RandSeedSet: the seed of the job's random
	// offsets and read/write mix instead of the run's seed.
	RandSeed    uint64
	RandSeedSet bool

	// Rate and RateMin are rate= and rate_min= in bytes/s per direction
	// (read, write); RateIOPS and RateIOPSMin are rate_iops= and
	// rate_iops_min=. fio turns an IOPS rate into bytes/s with the
	// direction's smallest block size. 0 = none.
	Rate, RateMin         [2]int64
	RateIOPS, RateIOPSMin [2]int
	// RatePoisson is rate_process=poisson: exponentially distributed gaps
	// between I/Os instead of even spacing (linear).
	RatePoisson bool
	// RateCycle is ratecycle= (default 1 s): the window over which rate_min
	// is checked.
	RateCycle time.Duration

	// ThinkTime is thinktime=: the job waits this long (after its I/O in
	// flight completes) every ThinkTimeBlocks I/Os; ThinkTimeSpin is the
	// part of it spent spinning (thinktime_spin=). ThinkTimeIssue is
	// thinktime_blocks_type=issue (count issued, not completed, I/Os).
	ThinkTime, ThinkTimeSpin time.Duration
	ThinkTimeBlocks          int
	ThinkTimeIssue           bool

	// OffsetPercent is offset= given as a percentage of the target (0 =
	// Offset in bytes); OffsetIncrement is offset_increment=: clone i
	// starts at Offset + i × OffsetIncrement; SizePercent is size= as a
	// percentage.
	OffsetPercent, SizePercent float64
	OffsetIncrement            int64
	// IOSize is io_size= (io_limit=): the bytes the job transfers before it
	// is done, if not the region's size; 0 = Size.
	IOSize int64
	// NumberIOs is number_ios=: the job is done after this many I/Os; 0 =
	// no limit.
	NumberIOs int64

	// FSync and FDataSync are fsync= and fdatasync=: a flush after every N
	// writes; EndFsync is end_fsync=: one flush when the job is done.
	FSync, FDataSync int
	EndFsync         bool

	// ExitAll is exitall=: when this job finishes, every other job stops.
	ExitAll bool
	// WaitFor is wait_for=: the job starts when the named job has finished.
	WaitFor string
	// SteadyState is ss= (steadystate=): the job ends early once its IOPS or
	// bandwidth is steady (see SteadyState).
	SteadyState SteadyState
	// Logs is the write_*_log options and their settings (see LogOptions).
	Logs LogOptions
}

// LogOptions are fio's per-job log options (init.c add_job, stat.c
// add_log_sample): which logs are written, how they are named and how samples
// are averaged. See JobLogs for the files.
type LogOptions struct {
	// BW, Lat and IOPS are write_bw_log=, write_lat_log= and write_iops_log=;
	// each prefix is the option's value ("" = the job's name). Hist is
	// write_hist_log= (accepted with a warning: not written).
	BW, Lat, IOPS, Hist                         bool
	BWPrefix, LatPrefix, IOPSPrefix, HistPrefix string
	// AvgMsec is log_avg_msec= (ms; 0 = one entry per I/O); MaxValue is
	// log_max_value= (log a window's maximum, not its mean).
	AvgMsec  int
	MaxValue bool
	// PerJob is per_job_logs= (default true): the file name carries the job
	// number; false = one file per prefix, each job's entries appended.
	PerJob bool
	// Offset is log_offset= (an offset column); Prio is log_prio= (the
	// priority column holds the I/O's ioprio, not only whether it is RT).
	Offset, Prio bool
	// BWAvgTimeSet and IOPSAvgTimeSet record that bwavgtime= and
	// iopsavgtime= were given: otherwise a windowed log sets them to
	// log_avg_msec, as fio's add_job does.
	BWAvgTimeSet, IOPSAvgTimeSet bool
}

// Any reports whether the job writes a bandwidth, latency or IOPS log.
func (l *LogOptions) Any() bool { return l.BW || l.Lat || l.IOPS }

// Unmodelled is an option accepted that does not change what the model
// simulates, and why.
type Unmodelled struct {
	Option, Value string
	File          string
	Line          int
	Why           string
}

// String reads "000.fio:7: hipri=1: <why>".
func (u Unmodelled) String() string {
	kv := u.Option
	if u.Value != "" {
		kv += "=" + u.Value
	}
	return fmt.Sprintf("%s:%d: %s: %s", u.File, u.Line, kv, u.Why)
}

// BSSplit is one entry of bssplit=: a block size and its share of I/Os.
type BSSplit struct {
	Size    int64   // bytes
	Percent float64 // share of I/Os, 0..100
}

// DistKind is a random_distribution= kind.
type DistKind uint8

// The kinds of random_distribution= (options.c, "random_distribution").
const (
	DistRandom   DistKind = iota // random: uniform
	DistZipf                     // zipf:theta
	DistPareto                   // pareto:h
	DistNormal                   // normal:dev (fio's gauss)
	DistZoned                    // zoned:pct/pct:... (access% / size%)
	DistZonedAbs                 // zoned_abs:pct/bytes:...
)

var distNames = [...]string{"random", "zipf", "pareto", "normal", "zoned", "zoned_abs"}

// String returns the fio spelling.
func (k DistKind) String() string {
	if int(k) < len(distNames) {
		return distNames[k]
	}
	return fmt.Sprintf("DistKind(%d)", uint8(k))
}

// Distribution is random_distribution=.
type Distribution struct {
	Kind DistKind
	// Param is zipf's theta, pareto's h, or normal's deviation in percent
	// of the range.
	Param float64
	// Center is the optional ":center" of zipf/pareto/normal in [0, 1];
	// -1 = none (fio's default: zipf/pareto offset by a random draw).
	Center float64
	// Zones are zoned's (Size in percent) or zoned_abs's (SizeBytes) zones.
	Zones []Zone
}

// Zone is one zone of a zoned distribution: Access percent of the I/Os go
// to it; it spans Size percent (zoned) or SizeBytes (zoned_abs) of the range.
type Zone struct {
	Access    float64
	Size      float64
	SizeBytes int64
}

// SteadyState is fio's steadystate= (ss=) criterion (steadystate.c): over
// the last Dur of one-second samples taken after Ramp, the IOPS or bandwidth
// (BW) is steady when every sample lies within Limit of the mean (Slope
// false; Limit in percent of the mean when Percent) or when the slope of the
// least-squares line is at most Limit (Slope true; percent of the mean when
// Percent).
type SteadyState struct {
	Set     bool
	BW      bool
	Slope   bool
	Percent bool
	Limit   float64
	// Dur is ss_dur=: 0 (fio's default) disables the detection (Active),
	// else at least 2 s; Ramp is ss_ramp= (default 0).
	Dur, Ramp time.Duration
}

// Active reports whether steady state detection runs: ss= is set and ss_dur
// is not 0. fio's steadystate_setup and steadystate_check skip a job whose
// ss_dur is 0, and its output then has no steady state section.
func (ss SteadyState) Active() bool { return ss.Set && ss.Dur > 0 }

// Option is one option as written in a job file or on the command line.
type Option struct {
	Key, Value string
	Global     bool // from a [global] section (or before the first --name)
}

// DefaultSpec returns a job instance named name with fio's defaults (fio
// options.c def= values): rw=read, bs=4k, iodepth=1, ioengine=psync,
// rwmixread=50, percentage_random=100, loops=1, batch submit/complete 1,
// bwavgtime and iopsavgtime 500 ms, clat percentiles on with the default percentile list, one job, Target
// name.
func DefaultSpec(name string) Spec {
	s := rawDefaults(name)
	s.fixup()
	s.Target = target(&s)
	return s
}

// rawDefaults is DefaultSpec before fixup: the state options are applied to.
func rawDefaults(name string) Spec {
	return Spec{
		Name:                    name,
		NumJobs:                 1,
		RW:                      RWRead,
		RWMixRead:               50,
		PercentageRandom:        100,
		BlockSize:               4096,
		Loops:                   1,
		IOEngine:                EnginePsync,
		IODepth:                 1,
		IODepthBatchSubmit:      1,
		IODepthBatchCompleteMin: 1,
		ClatPercentiles:         true,
		BWAvgTime:               DefaultAvgTime,
		IOPSAvgTime:             DefaultAvgTime,
		PercentileList:          cloneSlice(DefaultPercentiles),
		Dist:                    Distribution{Center: -1},
		RateCycle:               time.Second,
		ThinkTimeBlocks:         1,
		Logs:                    LogOptions{PerJob: true},
	}
}

// fixup derives the dependent fields the way fio's fixup_options (init.c)
// and its sync-engine depth cap do.
func (s *Spec) fixup() {
	// a windowed bandwidth or IOPS log samples at log_avg_msec unless
	// bwavgtime= / iopsavgtime= say otherwise (init.c add_job)
	if avg := time.Duration(s.Logs.AvgMsec) * time.Millisecond; avg > 0 {
		if s.Logs.BW && !s.Logs.BWAvgTimeSet {
			s.BWAvgTime = avg
		}
		if s.Logs.IOPS && !s.Logs.IOPSAvgTimeSet {
			s.IOPSAvgTime = avg
		}
	}
	s.EffectiveIODepth = s.IODepth
	if !s.IOEngine.Async() && s.EffectiveIODepth > 1 {
		s.EffectiveIODepth = 1
	}
	d := s.EffectiveIODepth
	if s.IODepthLow == 0 || s.IODepthLow > d {
		s.IODepthLow = d
	}
	if s.IODepthBatchSubmit == 0 || s.IODepthBatchSubmit > d {
		s.IODepthBatchSubmit = d
	}
	if s.IODepthBatchCompleteMin > d {
		s.IODepthBatchCompleteMin = d
	}
	if lo := max(s.IODepthBatchCompleteMin, 1); s.IODepthBatchCompleteMax < lo {
		s.IODepthBatchCompleteMax = lo
	}
	if s.IODepthBatchCompleteMax > d {
		s.IODepthBatchCompleteMax = d
	}
}

// Instance returns "name.index": the job name and clone number, a label that
// tells the clones of a numjobs job apart (use Seq for a unique key when a
// job file repeats a section name).
func (s *Spec) Instance() string { return fmt.Sprintf("%s.%d", s.Name, s.Index) }

// BlockSizeFor returns the block size of direction d (fixed sizes).
func (s *Spec) BlockSizeFor(d Dir) int64 {
	if d == DirWrite && s.WriteBlockSize != 0 {
		return s.WriteBlockSize
	}
	return s.BlockSize
}

// MinBlockSize returns the smallest block size the job issues in
// direction d (fio's min_bs).
func (s *Spec) MinBlockSize(d Dir) int64 {
	m := s.BlockSizeFor(d)
	if s.BSRangeMin > 0 {
		m = s.BSRangeMin
	}
	for i, e := range s.BSSplit {
		if i == 0 || e.Size < m {
			m = e.Size
		}
	}
	return m
}

// MaxBlockSizeAll returns the largest block size the job issues in either
// direction (fio's max_bs).
func (s *Spec) MaxBlockSizeAll() int64 {
	m := max(s.BlockSize, s.WriteBlockSize, s.BSRangeMax)
	for _, e := range s.BSSplit {
		m = max(m, e.Size)
	}
	return m
}

// GlobalOptionMap returns the "global options" of fio's JSON for a parse's
// specs: the options of the [global] sections above the first job.
func GlobalOptionMap(specs []Spec) map[string]string {
	if len(specs) == 0 || len(specs[0].GlobalOptions) == 0 {
		return nil
	}
	return optionMap(specs[0].GlobalOptions, true)
}

// Warnings returns one line per option accepted but not modelled in specs
// (Spec.Unmodelled), each option as written once (the clones of a job and the
// jobs inheriting a [global] option share its line), in file order.
func Warnings(specs []Spec) []string {
	seen := map[Unmodelled]bool{}
	var out []string
	for i := range specs {
		for _, u := range specs[i].Unmodelled {
			if !seen[u] {
				seen[u] = true
				out = append(out, "option accepted but not modelled: "+u.String())
			}
		}
	}
	return out
}
