package bench

import (
	"context"
	"syscall"
	"testing"
)

// cpuTime returns the CPU time (user + system, ns) the process has used: on a shared,
// loaded machine it measures the model's cost where wall time measures the queue for
// a core.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkClaims runs every scenario of testdata/claims.json (seed 1, GOMAXPROCS runs
// at once), as `blkmq claims` does, once per iteration, and reports the process CPU
// time of one evaluation (cpu-s/op). The storvsc memo is emptied before each
// iteration, so every iteration simulates every run. With cmd/blkmq's
// BenchmarkREADMERun it is the workload of the profile-guided optimization profile
// measured in BENCHMARKS.md ("Round 10"; not committed):
//
//	go test -run '^$' -bench '^BenchmarkClaims$' -benchtime 1x -cpuprofile claims.prof ./bench
func BenchmarkClaims(b *testing.B) {
	claims, err := DefaultClaims()
	if err != nil {
		b.Fatal(err)
	}
	var cpu int64
	for i := 0; i < b.N; i++ {
		storvscMemoMu.Lock()
		storvscMemo = map[storvscKey]*storvscMemoEntry{}
		storvscMemoMu.Unlock()
		t0 := cpuTime()
		for _, r := range EvaluateWith(context.Background(), claims, Options{Seed: 1}) {
			if r.Status == Failed {
				b.Fatalf("%s: %v", r.Claim.ID, r.Err)
			}
		}
		cpu += cpuTime() - t0
	}
	b.ReportMetric(float64(cpu)/1e9/float64(b.N), "cpu-s/op")
}
