package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestIOScheduleReturn: a woken tag sleeper returns from io_schedule after its
// wake-up latency; under Timing.GetTagIOScheduleReturn no earlier than the end of
// the work charged to the CPU it runs on.
func TestIOScheduleReturn(t *testing.T) {
	const busy, lat = 50 * sim.Microsecond, 10 * sim.Microsecond
	tests := []struct {
		name string
		on   bool
		cpu  int // the CPU the task runs on
		want sim.Time
	}{
		{"default/busy", false, 1, lat},
		{"on/busy", true, 1, busy},
		{"on/idle-cpu", true, 0, lat},
		{"on/bad-cpu", true, 7, lat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHost(sim.NewEngine(), HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 8,
				Timing: Timing{GetTagIOScheduleReturn: tt.on}})
			if err != nil {
				t.Fatal(err)
			}
			h.onCPU(1)
			h.charge(busy)
			if got := h.ioScheduleReturn(tt.cpu, lat); got != tt.want {
				t.Errorf("ioScheduleReturn(%d, %v) = %v, want %v", tt.cpu, lat, got, tt.want)
			}
		})
	}
}

type runCPUSleeper struct{ cpu int }

func (runCPUSleeper) WakeCPU(sim.Time) int     { return 0 }
func (runCPUSleeper) Unblocked(*Bio, sim.Time) {}
func (s runCPUSleeper) RunCPU() int            { return s.cpu }

type plainSleeper struct{}

func (plainSleeper) WakeCPU(sim.Time) int     { return 0 }
func (plainSleeper) Unblocked(*Bio, sim.Time) {}

// TestTagWaiterRunCPU: the CPU whose work the retry waits for is the one a
// WakeRunCPU sleeper was placed on, else the one it slept on.
func TestTagWaiterRunCPU(t *testing.T) {
	tw := &TagWaiter{S: runCPUSleeper{cpu: 1}}
	tw.alloc.CPU = 0
	if got := tw.runCPU(); got != 1 {
		t.Errorf("WakeRunCPU sleeper: runCPU = %d, want 1", got)
	}
	tw = &TagWaiter{S: plainSleeper{}}
	tw.alloc.CPU = 1
	if got := tw.runCPU(); got != 1 {
		t.Errorf("plain sleeper: runCPU = %d, want 1 (the CPU it slept on)", got)
	}
}
