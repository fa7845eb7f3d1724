package dispatch

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// Per-disk I/O statistics, counted where the 6.1 kernel counts them for
// /proc/diskstats and /sys/block/X/stat (block/blk-core.c, block/blk-mq.c,
// block/blk-merge.c, include/linux/part_stat.h):
//
//   - a request is accounted from its allocation (blk_mq_bio_to_request →
//     blk_account_io_start, and rq->start_time_ns from blk_mq_rq_ctx_init) to its end
//     (__blk_mq_end_request → blk_account_io_done): ios and ticks (ns from start to
//     end) of its direction, and sectors of the bytes completed;
//   - a bio merged into a request, or a request merged into another, is one merge of
//     its direction (blk_account_io_merge_bio, blk_account_io_merge_request);
//   - io_ticks is update_io_ticks's jiffy count: at a request's start, one jiffy if
//     the disk's stamp is in an earlier jiffy; at its end, the jiffies since the
//     stamp; the stamp then moves to now. At HZ 250 this approximates the time with
//     a request in flight, and is what iostat's %util and fio's util divide;
//   - time_in_queue (fio's in_queue) is the sum of the ticks of every direction, in
//     ms (part_stat_show since v5.8).
//
// The exact busy time (some request allocated and not ended) is kept next to it.

// DiskStatsHZ is the CONFIG_HZ whose jiffies io_ticks counts: 250, as Debian and
// Ubuntu generic kernels are built.
const DiskStatsHZ = 250

// jiffy is one tick at DiskStatsHZ (ns).
const jiffy = sim.Second / DiskStatsHZ

// DiskStats are one disk's counters since the queue was created, indexed by
// direction (device.OpRead, device.OpWrite).
type DiskStats struct {
	// IOs are the requests completed; Merges the bios merged into a request plus
	// the requests merged into another; Sectors the 512-byte sectors completed.
	IOs, Merges, Sectors [2]uint64
	// Ticks are the sum over completed requests of end − start (ns).
	Ticks [2]sim.Time
	// IOTicks is io_ticks: jiffies counted by update_io_ticks, in ns
	// (a multiple of the jiffy at DiskStatsHZ).
	IOTicks sim.Time
	// Busy is the exact time some request was in flight (allocated, not ended), ns.
	Busy sim.Time
	// InFlight is the number of requests allocated and not yet ended.
	InFlight int
}

// TimeInQueue is /proc/diskstats's time_in_queue: the read and write ticks (ns).
func (d *DiskStats) TimeInQueue() sim.Time { return d.Ticks[0] + d.Ticks[1] }

// diskAcct is the queue's accounting state.
type diskAcct struct {
	st        DiskStats
	stamp     int64    // bd_stamp, in jiffies + 1 (0: before the first I/O, an earlier jiffy)
	busySince sim.Time // when InFlight last went from 0 to 1
}

func dirIndex(op device.Op) int {
	if op == device.OpWrite {
		return 1
	}
	return 0
}

// updateIOTicks is update_io_ticks at now.
func (a *diskAcct) updateIOTicks(now sim.Time, end bool) {
	j := int64(now/jiffy) + 1
	if j > a.stamp {
		if end {
			a.st.IOTicks += sim.Time(j-a.stamp) * jiffy
		} else {
			a.st.IOTicks += jiffy
		}
		a.stamp = j
	}
}

// start accounts a new request (blk_account_io_start).
func (a *diskAcct) start(now sim.Time) {
	a.updateIOTicks(now, false)
	if a.st.InFlight == 0 {
		a.busySince = now
	}
	a.st.InFlight++
}

// merge accounts a bio or request merge of direction op.
func (a *diskAcct) merge(op device.Op) { a.st.Merges[dirIndex(op)]++ }

// mergedAway accounts a request merged into another: a merge, and no longer in
// flight (its bios complete with the other).
func (a *diskAcct) mergedAway(rq *Request, now sim.Time) {
	a.merge(rq.Op)
	a.leave(now)
}

// done accounts the end of rq (blk_account_io_completion + blk_account_io_done).
func (a *diskAcct) done(rq *Request, now sim.Time) {
	d := dirIndex(rq.Op)
	a.st.IOs[d]++
	a.st.Sectors[d] += uint64(rq.Length / sectorSize)
	a.st.Ticks[d] += now - rq.allocTime
	a.updateIOTicks(now, true)
	a.leave(now)
}

func (a *diskAcct) leave(now sim.Time) {
	a.st.InFlight--
	if a.st.InFlight == 0 {
		a.st.Busy += now - a.busySince
	}
}

// DiskStats returns the queue's disk statistics at now (the busy time includes a
// period still open).
func (q *Queue) DiskStats() DiskStats {
	st := q.disk.st
	if st.InFlight > 0 {
		st.Busy += q.eng.Now() - q.disk.busySince
	}
	return st
}
