package device

import (
	"math"

	"github.com/blkmq/blkmq/sim"
)

// minBytesPerSec is the lowest transfer rate a device model accepts (1 byte/s): a
// slower one makes the per-byte time of a large command overflow the virtual clock.
const minBytesPerSec = 1

// MaxCommandTime bounds each per-command time parameter of the HDD and SSD models
// (seeks, overheads, media latencies): one hour, the stack's watchdog horizon. A
// larger one made the HDD's virtual times wrap (a sim panic, "At in the past") and
// the SSD's saturate, so that queued commands all completed at the same instant.
const MaxCommandTime = 3600 * sim.Second

// xferTime returns ceil(bytes × nsPerByte) ns, saturated at sim.MaxTime (never
// negative, never wrapped).
func xferTime(bytes int64, nsPerByte float64) sim.Time {
	f := math.Ceil(float64(bytes) * nsPerByte)
	if !(f < float64(sim.MaxTime)) {
		return sim.MaxTime
	}
	return sim.Time(f)
}

// addTime returns a + d for a, d >= 0, saturated at sim.MaxTime.
func addTime(a, d sim.Time) sim.Time {
	if a > sim.MaxTime-d {
		return sim.MaxTime
	}
	return a + d
}

// satTime returns ceil(f) ns, saturated at sim.MaxTime (f is a non-negative time in ns).
func satTime(f float64) sim.Time {
	f = math.Ceil(f)
	if !(f < float64(sim.MaxTime)) {
		return sim.MaxTime
	}
	return sim.Time(f)
}
