package bench

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// unitMeta tells benchstat (golang.org/x/perf/benchfmt) which direction is better for
// the custom units this package reports with b.ReportMetric, so that
// `benchstat -col /tags bench.txt` marks an improvement as such.
var unitMeta = []string{
	"Unit IOPS better=higher",
	"Unit wal-IOPS better=higher",
	"Unit hogs-IOPS better=higher",
	"Unit wal-clat-us better=lower",
	"Unit MB/s better=higher",
	"Unit beside-MB/s better=higher",
	"Unit tps better=higher",
	"Unit CPU-ns/IO better=lower",
	"Unit peak/can_queue better=lower",
	"Unit cpu-s/op better=lower",
}

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		for _, u := range unitMeta {
			fmt.Println(u)
		}
	}
	os.Exit(m.Run())
}
