package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blkmq/blkmq/oracle"
)

// TestValidateNetSlowdown: validate's own slowdown calibration nets out the
// calibration reader's sleep-and-wake cycles as the reference set does. On the
// committed first run of calib-cpu-nb-qd32 (the job validate runs, SlowdownJob on
// SlowdownDevice), its gross factor is oracle.FioCPUSlowdown's and its net factor is
// the reference set's (oracle.NetSlowdown with the committed per-command overhead)
// within 0.5 %: validate nets without the overhead, which it has not calibrated yet.
// The net factor is well below the gross one (the over-charge validate had before
// round 9's second half).
func TestValidateNetSlowdown(t *testing.T) {
	ix, err := oracle.LoadIndex(refIndex)
	if err != nil {
		t.Fatal(err)
	}
	hi := ix.Find("calib-cpu-nb-qd32")
	if hi == nil {
		t.Skip("no calib-cpu-nb-qd32 in the reference set")
	}
	fj, _, err := ix.Reference(hi)
	if err != nil {
		t.Fatal(err)
	}
	runs := []*oracle.FioJSON{fj}
	// validate's calibration case, as calibrateSlowdown builds it
	job := filepath.Join(t.TempDir(), "slowdown0.fio")
	if err := os.WriteFile(job, []byte(oracle.SlowdownJob), 0o644); err != nil {
		t.Fatal(err)
	}
	cal := oracle.Case{Name: "slowdown", Job: job, Device: oracle.SlowdownDevice, Set: []string{"queue/scheduler=none"}}
	m, err := oracle.RunModel(&cal, job, oracle.ModelOptions{Seed: 1, EmulationSlowdown: -1, EmulationOverhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	gross, err := oracle.FioCPUSlowdown(runs, m, oracle.SlowdownCPU)
	if err != nil {
		t.Fatal(err)
	}
	net, err := netSlowdown(&cal, job, runs, gross, oracle.DefaultWake)
	if err != nil {
		t.Fatal(err)
	}
	mi, err := oracle.RunModel(hi, ix.JobPath(hi), oracle.ModelOptions{Seed: 1, EmulationSlowdown: -1, EmulationOverhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	grossIx, err := oracle.FioCPUSlowdown(runs, mi, oracle.SlowdownCPU)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := oracle.NetSlowdown(hi, ix.JobPath(hi), runs, grossIx, oracle.DefaultWake, func(f float64) (time.Duration, error) {
		return ix.OverheadWith(hi, f, oracle.DefaultWake)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("validate: gross %.3f net %.3f; reference set's rule on the same run: gross %.3f net %.3f", gross, net, grossIx, ref)
	if math.Abs(gross/grossIx-1) > 1e-9 {
		t.Errorf("validate's gross factor %.4f, the reference set's %.4f on the same run", gross, grossIx)
	}
	if math.Abs(net/ref-1) > 0.005 {
		t.Errorf("validate's net factor %.4f, the reference set's %.4f on the same run (want within 0.5 %%)", net, ref)
	}
	if !(net < 0.9*gross) {
		t.Errorf("net factor %.3f not below 0.9 x the gross %.3f", net, gross)
	}
}
