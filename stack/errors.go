package stack

import (
	"fmt"
	"strconv"
)

// The error types of Run. A caller decides what to do with an error by its type
// (errors.As), never by its text: a job may be named "watchdog".

// ConfigError is an invalid input to Run or CheckConfig: a Config field or a job
// spec out of range, a spec naming no LUN or CPU of the machine, or a device
// constructor's rejection of its parameters. Field names the offending value as a Go
// path ("LUNs[0].QueueDepth", "specs[2].bs", "LUNs[1].Device"); the message
// (Error) also names the allowed range.
type ConfigError struct {
	// Field is the Go path of the bad value.
	Field string
	// Err is the description, already prefixed "stack: ".
	Err error
}

// Error returns the message: the field's problem and its allowed range.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error (a fio or dispatch error when the check
// happened there).
func (e *ConfigError) Unwrap() error { return e.Err }

// configErrorf returns a *ConfigError for field with a "stack: "-prefixed message.
func configErrorf(field, format string, args ...any) error {
	return &ConfigError{Field: field, Err: fmt.Errorf("stack: "+format, args...)}
}

// WatchdogError is a modelled hang (or a job that stopped completing I/O) that the
// watchdog (Config.Watchdog) caught: the model failed, the input was valid. Job is
// the instance ("name.index") of the job the message accuses; Hang is false when the
// job's requests were all progressing but it completed no I/O for a whole watchdog
// period.
type WatchdogError struct {
	Job  string
	Hang bool
	msg  string
}

// Error returns the watchdog's report: the accused job, its oldest request and
// where that request waits (tag, budget, device), and for how long.
func (e *WatchdogError) Error() string { return e.msg }

// ResourceLimitError is a run refused, or stopped, because its estimated or counted
// resources exceed Config.Limits: Resource is "memory" (bytes) or "events"
// (simulated engine events, the measure of CPU time). Estimate and Limit are in the
// Resource's unit; Field is the Limits field that sets the limit and Flag the blkmq
// command-line flag that does. Resource "model time" (ns; Field and Flag empty) is a
// size-bound run that has not finished when the model clock reaches 2^61 ns (about
// 73 years), a limit of the model, not of Config.Limits.
type ResourceLimitError struct {
	Resource        string
	Estimate, Limit float64
	Field, Flag     string
	// Detail says how the estimate was made.
	Detail string
}

// Error returns the estimate, the limit, and the Config field and blkmq flag that
// set the limit.
func (e *ResourceLimitError) Error() string {
	f := func(v float64) string {
		switch e.Resource {
		case "memory":
			return fmtBytes(v)
		case "model time":
			return fmt.Sprintf("%.3g years", v/(365.25*24*3600e9))
		}
		return fmtCount(v)
	}
	if e.Field == "" { // a fixed limit of the model (model time: the clock's range)
		return fmt.Sprintf("stack: run needs an estimated %s of %s (%s), over the model's limit of %s",
			f(e.Estimate), e.Resource, e.Detail, f(e.Limit))
	}
	return fmt.Sprintf("stack: run needs an estimated %s of %s (%s), over the limit of %s (Config.%s; blkmq %s)",
		f(e.Estimate), e.Resource, e.Detail, f(e.Limit), e.Field, e.Flag)
}

// fmtBytes writes n bytes with a binary unit: "12.0 GiB".
func fmtBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(n, 'f', 0, 64) + " B"
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + units[i]
}

// fmtCount writes a count with a decimal suffix: "1.2e+10" style for large values
// is hard to read, so "12.0 G".
func fmtCount(n float64) string {
	units := []string{"", " k", " M", " G", " T", " P", " E"}
	i := 0
	for n >= 1000 && i < len(units)-1 {
		n /= 1000
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + units[i]
}
