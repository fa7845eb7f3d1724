package fio

import (
	"strings"
	"testing"
)

// TestFio333Engines: an ioengine= fio 3.33 has but the model does not (null,
// cpuio, net, sg, ...) and the options of those engines (nfs_url, port, cpuload,
// ...) were called unknown, as if fio did not know them either; they are refused
// as not modelled, naming the engine. A name fio does not know stays unknown.
func TestFio333Engines(t *testing.T) {
	for _, tt := range []struct{ name, opts, want string }{
		{"null engine", "ioengine=null", "ioengine=null: fio 3.33 engine not modelled by blkmq; modelled: psync, sync"},
		{"sg engine", "ioengine=sg", "ioengine=sg: fio 3.33 engine not modelled by blkmq"},
		{"io_uring_cmd engine", "ioengine=io_uring_cmd", "ioengine=io_uring_cmd: fio 3.33 engine not modelled"},
		{"external engine", "ioengine=external:/usr/lib/fio/x.so", "an external engine (fio loads it with dlopen) is not modelled by blkmq"},
		{"made-up engine", "ioengine=turbo", "ioengine=turbo: unknown engine; want one of psync"},
		// fio's own examples/cpp_null.fio: fio dlopens a name it does not know
		{"cpp_null from fio's examples", "ioengine=cpp_null", `unknown engine; want one of psync, sync, vsync, pvsync, pvsync2, libaio, io_uring, posixaio (fio 3.33 has no such engine and would try to dlopen "cpp_null" as an external one, which blkmq does not model)`},
		{"nfs option", "nfs_url=nfs://h/x", "nfs_url=nfs://h/x: fio 3.33 option of the nfs engine (ioengine=nfs), not modelled by blkmq"},
		{"shared engine option", "protocol=tcp", "protocol=tcp: fio 3.33 option of the netsplice and net engines, not modelled by blkmq"},
		{"cpuio option", "cpuload=50", "cpuload=50: fio 3.33 option of the cpuio engine (ioengine=cpuio)"},
		// libaio's own option keeps its existing rule
		{"libaio option still known", "userspace_reap=1", "userspace_reap=1: fio option not modelled by blkmq"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader("[a]\nrw=randread\n"+tt.opts+"\n"), "t.fio")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
