package stack

import (
	"fmt"
	"time"

	"github.com/blkmq/blkmq/fio"
)

// DiskUtil returns fio's disk_util entries of the run: one per LUN, its disk
// statistics from the start of the run to End (fio samples /sys/block/NAME/stat from
// its start to its end, ramp time included), named after the LUN (sda, nullb0,
// nvme0n1; "lunN" for an unnamed LUN).
func (r *Result) DiskUtil() []fio.DiskUtil {
	var out []fio.DiskUtil
	for i, d := range r.Disks {
		name := r.DiskNames[i]
		if name == "" {
			name = fmt.Sprintf("lun%d", i)
		}
		c := fio.DiskCounters{IOs: d.IOs, Merges: d.Merges, Sectors: d.Sectors,
			Ticks: [2]time.Duration{time.Duration(d.Ticks[0]), time.Duration(d.Ticks[1])}, IOTicks: time.Duration(d.IOTicks)}
		out = append(out, fio.NewDiskUtil(name, c, time.Duration(r.End)))
	}
	return out
}
