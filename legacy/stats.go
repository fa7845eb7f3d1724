package legacy

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// Stats are counters of a queue since New or the last ResetStats.
type Stats struct {
	// Elapsed is the virtual time covered (ns).
	Elapsed sim.Time
	// Started and Completed count requests by class: [0] async, [1] sync.
	Started, Completed [2]uint64
	// CompletedBytes counts completed request bytes by direction
	// ([device.OpRead], [device.OpWrite]).
	CompletedBytes [2]int64
	// TagRefusals counts blk_queue_start_tag refusals by class ([0] async, [1] sync).
	TagRefusals [2]uint64
	// ReadCmds, WriteCmds count started commands; ReadCmdBytes, WriteCmdBytes
	// their bytes.
	ReadCmds, WriteCmds         uint64
	ReadCmdBytes, WriteCmdBytes int64
	// BackMerges, FrontMerges count bios merged into queued requests (elv_merge);
	// PlugMerges bios merged into plugged requests; InsertMerges plugged requests
	// merged into queued ones on unplug.
	BackMerges, FrontMerges, PlugMerges, InsertMerges uint64
	// RequestMerges counts elevator requests merged into a neighbour after a bio
	// merge closed the gap between them (attempt_back_merge/attempt_front_merge).
	RequestMerges uint64
	// Unplugs counts plug flushes that inserted requests.
	Unplugs uint64
	// RequestSleeps counts submissions that found the pool full (get_request sleeps).
	RequestSleeps uint64
	// DeviceBusy counts commands the device refused.
	DeviceBusy uint64
	// CompletedCmds counts completed requests by direction.
	CompletedCmds [2]uint64
	// ServiceNs sums, by direction, the time (ns) from request_fn starting a
	// completed request to its end (issue, device queueing and media, completion).
	ServiceNs [2]sim.Time
	// InFlightNs integrates the started requests over time by class
	// ([0] async, [1] sync), in request·ns: divide by Elapsed for the mean.
	InFlightNs [2]float64
}

// MeanInFlight returns the time-averaged number of started requests of the class
// (sync = false: async).
func (s Stats) MeanInFlight(sync bool) float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return s.InFlightNs[idx(sync)] / float64(s.Elapsed)
}

// MeanServiceTime returns the mean start-to-end time (ns) of completed requests
// of direction op (0 when none completed).
func (s Stats) MeanServiceTime(op device.Op) sim.Time {
	if s.CompletedCmds[op] == 0 {
		return 0
	}
	return s.ServiceNs[op] / sim.Time(s.CompletedCmds[op])
}

// MeanWriteCmdBytes returns the mean write command size (bytes).
func (s Stats) MeanWriteCmdBytes() float64 {
	if s.WriteCmds == 0 {
		return 0
	}
	return float64(s.WriteCmdBytes) / float64(s.WriteCmds)
}

// accountStats integrates the in-flight counts up to now; call before any change.
func (q *Queue) accountStats() {
	now := q.eng.Now()
	dt := float64(now - q.stLast)
	if dt > 0 {
		s, a := q.tags.InFlight()
		q.st.InFlightNs[0] += float64(a) * dt
		q.st.InFlightNs[1] += float64(s) * dt
		q.stLast = now
	}
}

// Stats returns the counters up to the engine's current time.
func (q *Queue) Stats() Stats {
	q.accountStats()
	s := q.st
	s.Elapsed = q.eng.Now() - q.stSince
	return s
}

// ResetStats zeroes the counters (for example after a warm-up).
func (q *Queue) ResetStats() {
	q.accountStats()
	q.st = Stats{}
	q.stSince = q.eng.Now()
}
