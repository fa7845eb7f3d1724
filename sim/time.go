package sim

import "time"

// Time is a point or span of virtual time in integer nanoseconds. It has the same unit
// as time.Duration, so Time(d) and time.Duration(t) convert without scaling.
type Time int64

// Units of virtual time.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// MaxTime is the largest representable virtual time (about 292 years).
const MaxTime Time = 1<<63 - 1

// String formats t like time.Duration, e.g. "1.5ms", "250µs", "0s".
func (t Time) String() string { return time.Duration(t).String() }

// Duration converts t to a time.Duration (same unit, no scaling).
func (t Time) Duration() time.Duration { return time.Duration(t) }

// Seconds returns t as a floating-point number of seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// FromDuration converts a time.Duration to virtual Time (same unit, no scaling).
func FromDuration(d time.Duration) Time { return Time(d) }
