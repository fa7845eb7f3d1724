package oracle_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/blkmq/blkmq/oracle"
)

// ExampleRunModel runs the model side of one validation Case without a VM: a
// queue-depth-1 null_blk reader with a 2 ms completion (irqmode=2), resolved for
// the guest's kernel (6.1.192) and 2 vCPUs. EmulationOverhead and
// EmulationSlowdown -1 leave out the emulated guest's corrections (the native
// model: the 2 ms device plus the model's own path of about 20 µs); 0 would
// leave them for Index.CompareReference to calibrate.
func ExampleRunModel() {
	dir, err := os.MkdirTemp("", "oracle-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	job := filepath.Join(dir, "qd1.fio")
	if err := os.WriteFile(job, []byte("[r]\nfilename=${DEV}\nrw=randread\nbs=4k\nioengine=libaio\niodepth=1\ndirect=1\ntime_based\nruntime=1s\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	c := &oracle.Case{Name: "example-qd1", Job: job, Device: "null_blk irqmode=2 completion_nsec=2000000"}
	m, err := oracle.RunModel(c, job, oracle.ModelOptions{Seed: 1, EmulationOverhead: -1, EmulationSlowdown: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := m.Figures()
	j := f.Jobs[0]
	fmt.Printf("%s %s: %.0f IOPS, mean clat %.2f ms\n", j.Job, j.Dir, j.IOPS, j.ClatMean/1e6)
	// Output:
	// r read: 495 IOPS, mean clat 2.02 ms
}

// ExampleEmulationOverhead derives the per-command overhead of an emulated guest
// from a queue-depth-1 calibration pair: the guest's mean clat less the model's
// (ns in, a time.Duration out). A model already slower than the guest by more than
// 5 % is a *CalibrationError.
func ExampleEmulationOverhead() {
	kernel := &oracle.Figures{Jobs: []oracle.JobFigures{{Job: "cal", Dir: "read", ClatMean: 2_290_000}}}
	model := &oracle.Figures{Jobs: []oracle.JobFigures{{Job: "cal", Dir: "read", ClatMean: 2_020_000}}}
	d, err := oracle.EmulationOverhead(kernel, model)
	fmt.Println(d, err)
	_, err = oracle.EmulationOverhead(model, kernel)
	fmt.Println(err)
	// Output:
	// 270µs <nil>
	// oracle: calibration: kernel clat mean 2.020 ms below the model's 2.290 ms without any overhead: the model's device presets or its emulated CPU costs (emulation slowdown, wake switch) are slower than the guest
}
