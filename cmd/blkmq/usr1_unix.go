//go:build unix

package main

import (
	"os"
	"syscall"
)

// statusSignals are the signals fio answers with a status report (SIGUSR1).
var statusSignals = []os.Signal{syscall.SIGUSR1}
