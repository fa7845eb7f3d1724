//go:build !unix

package main

import "os"

// statusSignals: no SIGUSR1 here.
var statusSignals []os.Signal
