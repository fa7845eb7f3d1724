package fio

import (
	"errors"
	"fmt"
	"strings"
)

// fio333Engines are the I/O engines fio 3.33 builds (each engines/*.c registers an
// ioengine_ops by name) that the model does not have. ioengine= with one of them is
// refused as not modelled rather than as an unknown engine.
var fio333Engines = map[string]bool{}

// fio333EngineOptions maps each option an fio 3.33 engine declares (its
// struct fio_option options[], in engines/*.c) to the engines that declare it. fio
// knows such an option only once the job's ioengine= loads the engine; the ones
// the model does not parse are refused as the options of engines it does not
// model, never called unknown.
var fio333EngineOptions = map[string][]string{
	"arguments":                      {"exec"},
	"bindname":                       {"rdma"},
	"busy_poll":                      {"rados", "rbd"},
	"chunk_size":                     {"dfs", "libhdfs"},
	"clientname":                     {"rados", "rbd"},
	"clustername":                    {"rados", "rbd"},
	"cmd_type":                       {"io_uring", "io_uring_cmd"},
	"cmdprio":                        {"io_uring", "io_uring_cmd", "libaio"},
	"cmdprio_bssplit":                {"io_uring", "io_uring_cmd", "libaio"},
	"cmdprio_class":                  {"io_uring", "io_uring_cmd", "libaio"},
	"cmdprio_percentage":             {"io_uring", "io_uring_cmd", "libaio"},
	"conf":                           {"rados"},
	"cont":                           {"dfs"},
	"cpuchunks":                      {"cpuio"},
	"cpuload":                        {"cpuio"},
	"cpumode":                        {"cpuio"},
	"cuda_io":                        {"libcufile"},
	"donorname":                      {"e4defrag"},
	"exit_on_io_done":                {"cpuio"},
	"fixedbufs":                      {"io_uring", "io_uring_cmd"},
	"force_async":                    {"io_uring", "io_uring_cmd"},
	"gpu_dev_ids":                    {"libcufile"},
	"grace_time":                     {"exec"},
	"hdfs_use_direct":                {"libhdfs"},
	"hdfsdirectory":                  {"libhdfs"},
	"hipri":                          {"io_uring", "io_uring_cmd", "sg", "sync", "psync", "vsync", "pvsync", "pvsync2", "xnvme"},
	"hipri_percentage":               {"sync", "psync", "vsync", "pvsync", "pvsync2"},
	"hostname":                       {"libhdfs", "netsplice", "net", "rdma"},
	"http_host":                      {"http"},
	"http_mode":                      {"http"},
	"http_pass":                      {"http"},
	"http_s3_key":                    {"http"},
	"http_s3_keyid":                  {"http"},
	"http_s3_region":                 {"http"},
	"http_s3_sse_customer_algorithm": {"http"},
	"http_s3_sse_customer_key":       {"http"},
	"http_s3_storage_class":          {"http"},
	"http_swift_auth_token":          {"http"},
	"http_user":                      {"http"},
	"http_verbose":                   {"http"},
	"https":                          {"http"},
	"initiator":                      {"libiscsi"},
	"inplace":                        {"e4defrag"},
	"interface":                      {"netsplice", "net"},
	"listen":                         {"netsplice", "net"},
	"mss":                            {"netsplice", "net"},
	"namenode":                       {"libhdfs"},
	"nfs_url":                        {"nfs"},
	"no_completion_thread":           {"windowsaio"},
	"nodelay":                        {"netsplice", "net"},
	"nonvectored":                    {"io_uring", "io_uring_cmd"},
	"nowait":                         {"io_uring", "io_uring_cmd", "libaio", "sync", "psync", "vsync", "pvsync", "pvsync2"},
	"object_class":                   {"dfs"},
	"pingpong":                       {"netsplice", "net"},
	"pool":                           {"dfs", "rados", "rbd"},
	"port":                           {"libhdfs", "netsplice", "net", "rdma"},
	"program":                        {"exec"},
	"protocol":                       {"netsplice", "net"},
	"rbdname":                        {"rbd"},
	"readfua":                        {"sg"},
	"registerfiles":                  {"io_uring", "io_uring_cmd"},
	"sg_write_mode":                  {"sg"},
	"single_instance":                {"libhdfs"},
	"skip_bad":                       {"mtd"},
	"sqthread_poll":                  {"io_uring", "io_uring_cmd", "xnvme"},
	"sqthread_poll_cpu":              {"io_uring", "io_uring_cmd"},
	"stat_type":                      {"filecreate", "filestat", "filedelete"},
	"std_redirect":                   {"exec"},
	"stream_id":                      {"sg"},
	"svcl":                           {"dfs"},
	"thp":                            {"mmap"},
	"touch_objects":                  {"rados"},
	"ttl":                            {"netsplice", "net"},
	"uncached":                       {"io_uring", "io_uring_cmd", "sync", "psync", "vsync", "pvsync", "pvsync2"},
	"uri":                            {"nbd"},
	"userspace_reap":                 {"libaio"},
	"verb":                           {"rdma"},
	"window_size":                    {"netsplice", "net"},
	"writefua":                       {"sg"},
	"xnvme_admin":                    {"xnvme"},
	"xnvme_async":                    {"xnvme"},
	"xnvme_be":                       {"xnvme"},
	"xnvme_dev_nsid":                 {"xnvme"},
	"xnvme_iovec":                    {"xnvme"},
	"xnvme_sync":                     {"xnvme"},
}

func init() {
	for _, n := range []string{
		"cpuio", "dev-dax", "dfs", "e4defrag", "exec", "falloc", "filecreate", "filedelete",
		"filestat", "ftruncate", "gfapi", "gfapi_async", "http", "ime_aio", "ime_psync", "ime_psyncv",
		"io_uring_cmd", "libcufile", "libhdfs", "libiscsi", "libpmem", "librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client",
		"librpma_gpspm_server", "libzbc", "mmap", "mtd", "nbd", "net", "netsplice", "nfs",
		"null", "pmemblk", "rados", "rbd", "rdma", "sg", "solarisaio", "splice",
		"windowsaio", "xnvme",
	} {
		fio333Engines[n] = true
	}
}

// registerEngineOptions adds every engine option of fio333EngineOptions that no
// other table defines, refused with the engines that declare it.
func registerEngineOptions() {
	for n, engines := range fio333EngineOptions {
		if options[n] != nil {
			continue
		}
		msg := fmt.Sprintf("fio 3.33 option of the %s engine (ioengine=%s), not modelled by blkmq", engines[0], engines[0])
		if k := len(engines); k > 1 {
			msg = fmt.Sprintf("fio 3.33 option of the %s and %s engines, not modelled by blkmq", strings.Join(engines[:k-1], ", "), engines[k-1])
		}
		options[n] = &optDef{name: n, set: func(*jobBuilder, string) error { return errors.New(msg) }}
	}
}

// engineError is the error of an ioengine= the model does not run: a fio 3.33
// engine it does not model, an external engine (fio's "external:PATH", loaded with
// dlopen), or a name fio does not know either.
func engineError(v string) error {
	modelled := strings.Join(engineNames[:], ", ")
	switch {
	case fio333Engines[v]:
		return fmt.Errorf("fio 3.33 engine not modelled by blkmq; modelled: %s", modelled)
	case strings.HasPrefix(v, "external:") || strings.ContainsRune(v, '/'):
		return fmt.Errorf("an external engine (fio loads it with dlopen) is not modelled by blkmq; modelled: %s", modelled)
	}
	// load_ioengine (ioengines.c) dlopens a name it does not know before giving up
	// ("engine X not loadable"): examples/cpp_null.fio names such an engine
	return fmt.Errorf("unknown engine; want one of %s (fio 3.33 has no such engine and would try to dlopen %q as an external one, which blkmq does not model)", modelled, v)
}
