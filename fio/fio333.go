package fio

import (
	"errors"
	"fmt"
)

// fioBoolOptions are the options fio 3.33 declares FIO_OPT_BOOL (options.c; an
// alias maps to its option). parse.c __handle_option refuses such an option
// without a value ("Option direct requires an argument") and, with the 0..1
// range option_init gives every boolean, a value above 1 ("max value out of
// range: 2 (1 max)"). Options of type FIO_OPT_STR_SET (time_based, norandommap,
// thread, group_reporting, ...) take no value and any number, and are not here.
var fioBoolOptions = map[string]bool{}

func init() {
	for _, n := range []string{
		"unique_filename", "serialize_overlap", "fill_device", "fill_fs", "file_append",
		"bs_is_seq_rand", "randrepeat", "softrandommap", "allrandrepeat", "direct", "atomic",
		"buffered", "overwrite", "do_verify", "verify_fatal", "verify_dump",
		"experimental_verify", "verify_state_load", "verify_state_save", "trim_verify_zero",
		"read_iolog_chunked", "replay_no_stall", "read_beyond_wp", "ignore_zone_limits",
		"rate_ignore_thinktime", "latency_run", "invalidate", "create_serialize",
		"create_fsync", "create_on_open", "create_only", "allow_file_create",
		"allow_mounted_write", "pre_read", "end_fsync", "fsync_on_close", "unlink",
		"unlink_each_loop", "per_job_logs", "log_max_value", "log_offset", "log_prio",
		"log_store_compressed", "log_unix_epoch", "log_alternate_epoch",
		"block_error_percentiles", "stats", "scramble_buffers", "dedupe_global",
		"clat_percentiles", "lat_percentiles", "slat_percentiles", "disk_util", "gtod_reduce",
		"disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement", "disable_bw",
		"error_dump", "cgroup_nodelete",
	} {
		fioBoolOptions[n] = true
	}
}

// checkFioBool applies fio's checks of a FIO_OPT_BOOL value (see
// fioBoolOptions) before the option's own parser, which reads a bare boolean as
// 1 and any other number as true.
func checkFioBool(key, value string) error {
	if !fioBoolOptions[key] {
		return checkIgnoredRange(key, value)
	}
	if value == "" {
		return fmt.Errorf("a boolean option of fio needs a value (fio: \"Option %s requires an argument\"); write %s=1 or %s=0", key, key, key)
	}
	if v, err := parseUint(value); err == nil && v > 1 {
		return fmt.Errorf("%d out of range [0, 1] (fio: \"max value out of range: %d (1 max)\")", v, v)
	}
	return nil
}

// ignoredRanges are fio's ranges (options.c minval/maxval) of options the model
// ignores (ignoredOptions): fio refuses a value outside them, so the model does too
// rather than ignore a value fio would not run.
var ignoredRanges = map[string][2]int{
	"significant_figures":        {1, 10},
	"buffer_compress_percentage": {0, 100},
	"dedupe_percentage":          {0, 100},
}

// checkIgnoredRange applies ignoredRanges.
func checkIgnoredRange(key, value string) error {
	r, ok := ignoredRanges[key]
	if !ok {
		return nil
	}
	_, err := parseInt(value, r[0], r[1])
	return err
}

// fio333NotModelled are options fio 3.33 knows (options.c, and the option tables of
// engines/libaio.c and engines/io_uring.c) that the model neither reproduces nor
// can ignore: refused as not modelled rather than as unknown ("unknown option;
// did you mean ...?" misled for bs_unaligned or userspace_reap). Deprecated ones
// are in fioDeprecated.
var fio333NotModelled = []string{
	"allow_mounted_write", "atomic", "block_error_percentiles", "blocksize_unaligned",
	"bs_unaligned", "bs_is_seq_rand", "cgroup", "cgroup_nodelete", "cgroup_weight",
	"create_fsync", "create_only", "dedupe_global", "dedupe_mode",
	"dedupe_working_set_percentage", "disk_util", "do_verify", "error_dump", "exit_what",
	"experimental_verify", "fadvise_hint", "filename_format", "fileoffset", "fill_device",
	"fill_fs", "flow_sleep", "gid", "gpu_dev_id", "gtod_cpu", "hugepage-size",
	"ignore_error", "ignore_zone_limits", "iomem", "iomem_align", "job_max_open_zones",
	"latency_percentile", "latency_run", "lockfile", "log_alternate_epoch",
	"log_alternate_epoch_clock_id", "log_compression", "log_compression_cpus",
	"log_entries", "log_hist_coarseness", "log_store_compressed", "log_unix_epoch",
	"max_open_zones", "mem", "mem_align", "merge_blktrace_file", "merge_blktrace_iters",
	"merge_blktrace_scalars", "numa_cpu_nodes", "numa_mem_policy", "opendir", "openfiles",
	"profile", "random_generator", "rate_cycle", "read_beyond_wp", "read_iolog_chunked",
	"replay_align", "replay_redirect", "replay_scale", "replay_skip", "replay_time_scale",
	"softrandommap", "sync_file_range", "trim_backlog_batch", "trim_verify_zero", "uid",
	"unique_filename", "unit_base", "unlink_each_loop", "verify_async", "verify_async_cpus",
	"verify_backlog_batch", "verify_dump", "verify_fatal", "verify_interval",
	"verify_offset", "verify_only", "verify_pattern", "verify_state_load",
	"verify_state_save", "write_barrier", "write_hint", "zone_reset_frequency",
	"zone_reset_threshold", "zonecapacity",
	// engine options (libaio, io_uring)
	"userspace_reap", "cmdprio", "cmdprio_bssplit", "cmdprio_class", "cmdprio_percentage",
	"force_async", "hipri_percentage", "nonvectored", "nowait", "uncached",
}

// fioDeprecated are fio 3.33's deprecated options (parse.c: FIO_OPT_DEPRECATED
// prints "Option X is deprecated" and fails the job, FIO_OPT_SOFT_DEPRECATED prints
// it and goes on): refused (hard) or accepted with no effect (soft), as fio does.
var fioDeprecated = map[string]bool{
	"percentage_sequential": true, "rwmixcycle": true, // hard
	"verifysort": false, "verifysort_nr": false, "flow_watermark": false, // soft
}

// registerFio333 adds fio333NotModelled and fioDeprecated to options; the init
// of options.go calls it last, after the modelled options, and it panics on a
// name both lists give.
func registerFio333() {
	for _, n := range fio333NotModelled {
		if options[n] != nil {
			panic("fio: option " + n + " both modelled and not")
		}
		options[n] = &optDef{name: n, set: func(*jobBuilder, string) error {
			return errors.New("fio option not modelled by blkmq")
		}}
	}
	for n, hard := range fioDeprecated {
		if options[n] != nil {
			panic("fio: option " + n + " both modelled and not")
		}
		if hard {
			options[n] = &optDef{name: n, set: func(*jobBuilder, string) error {
				return fmt.Errorf("deprecated: fio 3.33 refuses it (\"Option %s is deprecated\")", n)
			}}
			continue
		}
		options[n] = &optDef{name: n, set: func(*jobBuilder, string) error { return nil },
			note: "deprecated in fio 3.33, which prints \"Option " + n + " is deprecated\" and ignores it; so does the model"}
	}
	registerEngineOptions()
}
