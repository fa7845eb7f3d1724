package dispatch

// Constants of the dispatch_busy moving average (block/blk-mq.c
// blk_mq_update_dispatch_busy): weight 8, factor 4.
const (
	busyEWMAWeight = 8
	busyEWMAFactor = 4
)

// updateDispatchBusy folds one dispatch outcome into the hctx's dispatch_busy
// (blk_mq_update_dispatch_busy): ewma = (ewma*7 + (busy ? 16 : 0)) / 8, skipped when the
// average is 0 and the outcome is idle. One busy outcome from 0 gives 2; two idle
// outcomes bring 2 back to 0; integer truncation makes the average saturate at 9,
// from which 8 idle outcomes return it to 0.
func updateDispatchBusy(ewma int, busy bool) int {
	if ewma == 0 && !busy {
		return 0
	}
	ewma *= busyEWMAWeight - 1
	if busy {
		ewma += 1 << busyEWMAFactor
	}
	return ewma / busyEWMAWeight
}
