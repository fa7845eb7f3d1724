package setup

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// The run/sysfs_writes key: writes to queue attributes during the run
// (stack.Config.SysfsWrites, stack/sysfs.go).
func init() {
	addKey(&key{name: "run/sysfs_writes",
		doc:     "sysfs writes during the run, comma-separated, each \"AT [LUN] ATTR=VALUE\" (AT a duration from the run's start, LUN an index, default 0), e.g. \"10ms queue/scheduler=mq-deadline, 20ms queue/scheduler=none\": the queue is frozen (requests in flight drain) as elevator_switch and blk_mq_update_nr_requests do (device/queue_depth: scsi_change_queue_depth, no freeze); stack.Config.SysfsWrites",
		allowed: "ATTR queue/scheduler, queue/nr_requests or device/queue_depth; empty = none",
		set: func(s *state, v string) error {
			ws, err := parseSysfsWrites(v)
			if err == nil {
				s.sysfsWrites = ws
			}
			return err
		},
		get: func(s *state) string {
			var parts []string
			for _, w := range s.sysfsWrites {
				parts = append(parts, fmt.Sprintf("%v %d %s=%s", time.Duration(w.At), w.LUN, w.Attr, w.Value))
			}
			if len(parts) == 0 {
				return "none"
			}
			return strings.Join(parts, ", ")
		}})
}

// parseSysfsWrites parses the run/sysfs_writes value; the stack checks the
// attributes, values and times (stack.Config.Validate, stack.Run).
func parseSysfsWrites(v string) ([]stack.SysfsWrite, error) {
	var ws []stack.SysfsWrite
	for i, item := range strings.Split(v, ",") {
		f := strings.Fields(item)
		if len(f) == 0 && strings.TrimSpace(v) == "" {
			return nil, nil
		}
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("write %d %q: want \"AT [LUN] ATTR=VALUE\"", i, strings.TrimSpace(item))
		}
		at, err := time.ParseDuration(f[0])
		if err != nil || at < 0 {
			return nil, fmt.Errorf("write %d: AT %q: want a duration ≥ 0 (e.g. 10ms)", i, f[0])
		}
		w := stack.SysfsWrite{At: sim.Time(at)}
		if len(f) == 3 {
			if w.LUN, err = strconv.Atoi(f[1]); err != nil {
				return nil, fmt.Errorf("write %d: LUN %q: want a LUN index", i, f[1])
			}
		}
		attr, val, ok := strings.Cut(f[len(f)-1], "=")
		if !ok {
			return nil, fmt.Errorf("write %d %q: want ATTR=VALUE", i, f[len(f)-1])
		}
		w.Attr, w.Value = attr, val
		ws = append(ws, w)
	}
	return ws, nil
}
