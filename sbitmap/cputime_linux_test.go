package sbitmap_test

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time the calling OS thread has run, in nanoseconds
// (CLOCK_THREAD_CPUTIME_ID), and whether the clock is available.
func threadCPU() (int64, bool) { return clockNs(unix.CLOCK_THREAD_CPUTIME_ID) }

// processCPU returns the CPU time of all the process's threads, in nanoseconds
// (CLOCK_PROCESS_CPUTIME_ID), and whether the clock is available.
func processCPU() (int64, bool) { return clockNs(unix.CLOCK_PROCESS_CPUTIME_ID) }

func clockNs(id int32) (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
