package fio_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/blkmq/blkmq/fio"
)

// A job with write_iops_log and log_avg_msec=1000 gets fio's file name and one
// line a second: time (ms), IOPS, direction, block size (0 in an averaged entry),
// priority.
func ExampleNewJobLogs() {
	specs, err := fio.Parse(strings.NewReader("[a]\nrw=randread\nwrite_iops_log=a\nlog_avg_msec=1000\n"), "a.fio")
	if err != nil {
		panic(err)
	}
	s := &specs[0]
	fmt.Println(fio.LogFileName(s, "iops", 1))
	logs, err := fio.NewJobLogs(s, func(typ string) (io.Writer, error) { return os.Stdout, nil })
	if err != nil {
		panic(err)
	}
	logs.SetWindow(0, 3e9)
	for ns := int64(0); ns < 3e9; ns += 1e6 { // one 4 KiB read a millisecond
		logs.Record(fio.LogSample{Dir: fio.DirRead, Clat: 100e3, Bytes: 4096, CompleteNs: ns})
	}
	_ = logs.Close(3e9)
	// Output:
	// a_iops.1.log
	// 1000, 1000, 0, 0, 0
	// 2000, 1000, 0, 0, 0
	// 3000, 1000, 0, 0, 0
}
