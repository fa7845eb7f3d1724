package stack

import (
	"fmt"
	"time"

	"github.com/blkmq/blkmq/fio"
)

// DiskUtil returns fio's disk_util entries of the run: one per LUN, its disk
// statistics from the start of the run to its end (fio samples /sys/block/NAME/stat
// from its start until its jobs have finished, ramp time included: LastFinish when
// every job finished, else End), named after the LUN (sda, nullb0, nvme0n1; "lunN"
// for an unnamed LUN).
func (r *Result) DiskUtil() []fio.DiskUtil {
	var out []fio.DiskUtil
	elapsed := r.End
	if r.LastFinish > 0 && r.LastFinish < elapsed {
		elapsed = r.LastFinish
	}
	for i, d := range r.Disks {
		name := r.DiskNames[i]
		if name == "" {
			name = fmt.Sprintf("lun%d", i)
		}
		c := fio.DiskCounters{IOs: d.IOs, Merges: d.Merges, Sectors: d.Sectors,
			Ticks: [2]time.Duration{time.Duration(d.Ticks[0]), time.Duration(d.Ticks[1])}, IOTicks: time.Duration(d.IOTicks)}
		out = append(out, fio.NewDiskUtil(name, c, time.Duration(elapsed)))
	}
	return out
}
