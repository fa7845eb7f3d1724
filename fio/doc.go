// Package fio reads fio job descriptions and writes fio-style results, so that
// the simulator can be driven by the same job files storage engineers already
// use and its output compared field for field with a real fio run.
//
// # Job files in
//
// [Parse], [ParseFile] and [ParseArgs] turn an fio job file (INI sections with
// [global] inheritance) or an fio command line (--key=value) into one [Spec]
// per job instance: a section with numjobs=N yields N specs, as fio clones the
// job N times. Every option that changes the modelled I/O (rw, bs, size,
// iodepth, ioengine, runtime, ramp_time, rate_iops, cpus_allowed, filename,
// stonewall, ...) becomes a typed field: sizes in bytes, times as
// [time.Duration] (nanoseconds). Options that fio accepts but that do not
// change the model (invalidate, gtod_reduce, thread, norandommap, ...) are
// listed in [Spec.Ignored]; any other option is an error naming the file,
// line and key. Values are checked at the boundary: an error names the file,
// line, section, key, value and the allowed range (see [ParseError]).
//
// Units follow fio (parse.c, get_mult_bytes / get_mult_time): with fio's
// default kb_base=1024, k/K/KB mean 1024 and — fio's compatibility quirk —
// KiB means 1000; runtime, ramp_time and startdelay default to seconds.
//
// # Results out
//
// A [Collector] per job instance receives completed I/Os from the simulator
// ([Collector.Record]) and keeps only what falls in the measurement window
// (after ramp_time, before the drain at the end of the run). Its memory does
// not grow with the run length: exact running moments (min, max, mean,
// stddev, as fio's stat.c keeps them) plus fio's log-linear latency
// histogram (stat.c io_u_plat, 64 bins per power of two) for percentiles.
// [Collector.Finish] returns a [Result]; [Report] groups results the way fio
// does (groupid, group_reporting) and renders fio's JSON ("json" and "json+"
// with clat bins, see [Output]) or a short fio-like text summary. A job with
// ss= gets fio's "steadystate" object from its [SteadyStateResult]
// (OutputOptions.SteadyState).
//
// A [JobLogs] per job instance writes the write_bw_log, write_lat_log and
// write_iops_log files in fio 3.33's format ([LogFileName] names them): one
// line per I/O, or log_avg_msec windows and fio's periodic bandwidth and IOPS
// samples, streamed to the writers as the run goes.
//
// The package imports nothing else from blkmq: times are int64 nanoseconds
// or [time.Duration].
package fio
