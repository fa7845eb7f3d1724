package fio_test

import (
	"fmt"
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
