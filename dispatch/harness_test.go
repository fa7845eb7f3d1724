package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// recorder is a device wrapper that records the offsets in submission order.
type recorder struct {
	device.Device
	order []int64
}

func (r *recorder) Submit(cmd *device.Command) device.Status {
	st := r.Device.Submit(cmd)
	if st == device.Accepted {
		r.order = append(r.order, cmd.Offset)
	}
	return st
}

// counter counts bio completions.
type counter struct {
	n    int
	last sim.Time
}

func (c *counter) EndBio(_ *Bio, now sim.Time, _ error) { c.n++; c.last = now }

type testRig struct {
	eng  *sim.Engine
	host *Host
	q    *Queue
	dev  *recorder
}

// testLUN is a SCSI LUN for the tests: the device behind the SCSI mid-layer driver
// (package scsi, attached through SCSIForTest from the external test package), its
// queue_depth and the request queue's configuration.
type testLUN struct {
	Device       device.Device
	QueueDepth   int
	NrRequests   int
	Elevator     string
	MaxSectorsKB int
	NewElevator  func(q *Queue) Elevator
}

// SCSIForTest adds a SCSI LUN on h (set by scsi_hook_test.go, package dispatch_test,
// which may import package scsi); DeviceBusyForTest returns its scsi_device_busy.
var (
	SCSIForTest       func(h *Host, dev device.Device, queueDepth int, lc LUNConfig) (*Queue, error)
	DeviceBusyForTest func(q *Queue) int
)

func addTestLUN(h *Host, l testLUN) (*Queue, error) {
	return SCSIForTest(h, l.Device, l.QueueDepth, LUNConfig{NrRequests: l.NrRequests, Elevator: l.Elevator,
		MaxSectorsKB: l.MaxSectorsKB, NewElevator: l.NewElevator})
}

func deviceBusy(q *Queue) int { return DeviceBusyForTest(q) }

func newRig(t *testing.T, hc HostConfig, lc testLUN, np device.NullParams) *testRig {
	t.Helper()
	eng := sim.NewEngine()
	h, err := NewHost(eng, hc)
	if err != nil {
		t.Fatal(err)
	}
	null, err := device.NewNull(eng, np)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Device: null}
	lc.Device = rec
	q, err := addTestLUN(h, lc)
	if err != nil {
		t.Fatal(err)
	}
	return &testRig{eng: eng, host: h, q: q, dev: rec}
}

// loopTask is a queue-depth-1 submitter: it submits a bio, sleeps on tags if needed,
// and submits the next one when the previous completes, from a CPU that rotates.
type loopTask struct {
	rig    *testRig
	tw     TagWaiter
	bio    Bio
	cpus   []int
	n      int
	rnd    *sim.Rand
	done   int
	last   sim.Time
	limit  int // bios to submit; 0 = unlimited
	size   int64
	random bool
}

func (l *loopTask) cpu() int { return l.cpus[l.n%len(l.cpus)] }

func (l *loopTask) WakeCPU(sim.Time) int     { return l.cpu() }
func (l *loopTask) Unblocked(*Bio, sim.Time) {}
func (l *loopTask) EndBio(_ *Bio, now sim.Time, _ error) {
	l.done++
	l.last = now
	l.submit()
}

func (l *loopTask) submit() {
	if l.limit > 0 && l.n >= l.limit {
		return
	}
	l.n++
	b := &l.bio
	*b = Bio{Op: device.OpRead, Length: l.size, Sync: true, End: l}
	if l.random {
		b.Offset = l.rnd.Int64N(1<<20) * 4096
		if l.rnd.IntN(2) == 0 {
			b.Op = device.OpWrite
		}
	} else {
		b.Offset = int64(l.n) * l.size
		b.Op = device.OpWrite
	}
	l.rig.q.SubmitBio(b, l.cpu(), false, &l.tw)
}

func newLoopTask(rig *testRig, cpus []int, seed uint64) *loopTask {
	l := &loopTask{rig: rig, cpus: cpus, rnd: sim.NewRand(seed), size: 4096, random: true}
	l.tw.S = l
	return l
}
