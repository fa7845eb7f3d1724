package main

import "testing"

// BenchmarkREADMERun runs README's `blkmq run` example (the committed 003 scsi_debug
// job file, 16 CPUs, --runtime 1s, --replicas 4) once per iteration. With
// BenchmarkClaims (package bench) it is the workload of the profile-guided optimization
// profile measured in BENCHMARKS.md ("Round 10"; not committed):
//
//	go test -run '^$' -bench '^BenchmarkREADMERun$' -benchtime 1x -cpuprofile run.prof ./cmd/blkmq
func BenchmarkREADMERun(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := run("run", "../../testdata/fio/003_scsi_debug.fio", "--kernel", "5.17", "--cpus", "16",
			"--device", "scsi_debug delay=0 max_queue=192 submit_queues=16",
			"--set", "queue/nr_requests=56", "--set", "device/queue_depth=15",
			"--runtime", "1s", "--replicas", "4"); err != nil {
			b.Fatal(err)
		}
	}
}
