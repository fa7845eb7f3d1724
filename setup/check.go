package setup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/stack"
)

// effectiveScheduler is the elevator the LUNs get: queue/scheduler, or the kernel
// default for this tag set and era when it is "default".
func (s *state) effectiveScheduler() string {
	if s.scheduler != "" {
		return s.scheduler
	}
	return s.defaultScheduler()
}

// stackKeys maps the Go fields stack.Check names (stack.ConfigError.Field, without
// the LUN index) to the settings that set them.
var stackKeys = map[string]string{
	"NrCPUs":            "system/nr_cpus",
	"Host.CanQueue":     "host/can_queue",
	"Host.NrHwQueues":   "host/nr_hw_queues",
	"Host.CmdPerLun":    "host/cmd_per_lun",
	"Kernel":            "kernel",
	"LUNs.QueueDepth":   "device/queue_depth",
	"LUNs.NrRequests":   "queue/nr_requests",
	"LUNs.Scheduler":    "queue/scheduler",
	"LUNs.MaxSectorsKB": "queue/max_sectors_kb",
	"LUNs.Device":       "--device",
}

// userError rewrites a rejection by stack.Check of the resolved Config in the
// vocabulary of the settings: "setup: queue/nr_requests: stack: ...", naming the
// setting that sets the field. The check is the run's own (one source of truth), so a
// setting accepted here is never rejected when the run starts.
func userError(err error) error {
	var ce *stack.ConfigError
	if !errors.As(err, &ce) {
		return fmt.Errorf("setup: %w", err)
	}
	f := ce.Field
	if i := strings.IndexByte(f, '['); i >= 0 {
		if j := strings.IndexByte(f, ']'); j > i {
			f = f[:i] + f[j+1:]
		}
	}
	if k, ok := stackKeys[f]; ok {
		return fmt.Errorf("setup: %s: %w", k, err)
	}
	return fmt.Errorf("setup: %w", err)
}
