package fio_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/blkmq/blkmq/fio"
)

func ExampleParse() {
	const job = `
[global]
ioengine=io_uring
direct=1
runtime=60
time_based

[read_hogs]
bs=16k
rw=randread
iodepth=10000
numjobs=2
directory=/mnt/test

[wal]
bs=8k
rw=write
iodepth=3
directory=/mnt/test
`
	specs, err := fio.Parse(strings.NewReader(job), "storvsc.fio")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range specs {
		fmt.Printf("%s %s bs=%d depth=%d runtime=%v target=%s group=%d\n",
			s.Instance(), s.RW, s.BlockSize, s.EffectiveIODepth, s.Runtime, s.Target, s.GroupID)
	}
	// Output:
	// read_hogs.0 randread bs=16384 depth=10000 runtime=1m0s target=/mnt/test group=0
	// read_hogs.1 randread bs=16384 depth=10000 runtime=1m0s target=/mnt/test group=0
	// wal.0 write bs=8192 depth=3 runtime=1m0s target=/mnt/test group=0
}

func ExampleParse_error() {
	_, err := fio.Parse(strings.NewReader("[job]\nrw=randread\niodepth=0\n"), "bad.fio")
	fmt.Println(err)
	// Output:
	// fio: bad.fio:3: [job] iodepth=0: out of range [1, 65536]
}

func ExampleParseArgs() {
	args, _ := fio.SplitCommandLine(`fio --ioengine=libaio --bs=4k --iodepth=64 --rw=randread --name=/dev/sdb`)
	specs, err := fio.ParseArgs(args)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := specs[0]
	fmt.Println(s.Name, s.IOEngine, s.BlockSize, s.EffectiveIODepth, s.Target)
	// Output:
	// /dev/sdb libaio 4096 64 /dev/sdb
}

// A collector per job instance receives the simulated completions; the
// report groups and prints them as fio would.
func ExampleReport_WriteText() {
	specs, _ := fio.Parse(strings.NewReader("[wal]\nrw=write\nbs=8k\nioengine=io_uring\niodepth=3\n"), "wal.fio")
	c := fio.NewCollector(&specs[0])
	const second = int64(1e9)
	c.SetWindow(0, 10*second) // after ramp_time, before the drain
	for i := int64(0); i < 2710; i++ {
		clat := 12_000_000 + (i%100)*20_000 // 12 ms .. 13.98 ms
		done := i * 3_690_000
		c.Record(fio.DirWrite, 2_000, clat, 8192, done-clat-2_000, done)
	}
	rep := fio.NewReport([]*fio.Result{c.Finish(0, 10*second)})
	w := rep.Jobs[0].Write()
	fmt.Printf("IOPS %.0f, bw %d KiB/s, mean clat %.0f us\n\n", w.IOPS, w.BWKiB(), w.Clat.Mean/1000)
	rep.WriteText(os.Stdout)
	// Output:
	// IOPS 271, bw 2168 KiB/s, mean clat 12987 us
	//
	// wal: (groupid=0, jobs=1): err= 0: pid=0
	//   write: IOPS=271, BW=2168KiB/s (2220kB/s)(21.2MiB/10000msec)
	//     slat (nsec): min=2000, max=2000, avg=2000.00, stdev= 0.00
	//     clat (usec): min=12000, max=13980, avg=12986.68, stdev=578.95
	//      lat (usec): min=12002, max=13982, avg=12988.68, stdev=578.95
	//     clat percentiles (usec):
	//      |  1.00th=[11994],  5.00th=[12125], 10.00th=[12125], 20.00th=[12387],
	//      | 30.00th=[12518], 40.00th=[12780], 50.00th=[13042], 60.00th=[13173],
	//      | 70.00th=[13435], 80.00th=[13566], 90.00th=[13829], 95.00th=[13829],
	//      | 99.00th=[13960], 99.50th=[13960], 99.90th=[13960], 99.95th=[13960],
	//      | 99.99th=[13960]
	//    bw (  KiB/s): min= 2160, max= 2176, per=100.00%, avg=2168.00, stdev= 8.21, samples=20
	//    iops        : min=  270, max=  272, avg=271.00, stdev= 1.03, samples=20
	//   lat (msec)   : 20=100.00%
	//
	// Run status group 0 (all jobs):
	//   WRITE: bw=2168KiB/s (2220kB/s), 2168KiB/s-2168KiB/s (2220kB/s-2220kB/s), io=21.2MiB (22.2MB), run=10000-10000msec
}

// Output gives the fio JSON structure (what `fio --output-format=json`
// writes); consumers read the same fields from it as from real fio output.
func ExampleReport_Output() {
	specs, _ := fio.Parse(strings.NewReader("[hog]\nrw=randread\nbs=16k\n"), "hog.fio")
	c := fio.NewCollector(&specs[0])
	for i := int64(1); i <= 1000; i++ {
		c.Record(fio.DirRead, 0, i*1000, 16384, 0, i*1_000_000) // clat 1..1000 us
	}
	out := fio.NewReport([]*fio.Result{c.Finish(0, 1e9)}).Output(fio.OutputOptions{})
	r := out.Jobs[0].Read
	fmt.Println(out.FioVersion, out.Jobs[0].JobName)
	fmt.Printf("iops=%.0f bw=%d KiB/s runtime=%d ms\n", r.IOPS, r.BW, r.Runtime)
	// Percentiles are fio's histogram bin midpoints: within 0.78% of the
	// exact 500000 and 990000 ns.
	fmt.Printf("clat p50=%d ns p99=%d ns\n", r.Clat.Percentile["50.000000"], r.Clat.Percentile["99.000000"])
	// Output:
	// fio-3.33 hog
	// iops=1000 bw=16000 KiB/s runtime=1000 ms
	// clat p50=501760 ns p99=987136 ns
}
