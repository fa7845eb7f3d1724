package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

func TestUpdateDispatchBusy(t *testing.T) {
	tests := []struct {
		name string
		ewma int
		busy []bool
		want int
	}{
		{"idle-from-zero-stays-zero", 0, []bool{false, false}, 0},
		{"one-busy-from-zero-gives-2", 0, []bool{true}, 2},
		{"two-idle-bring-2-to-0", 2, []bool{false, false}, 0},
		// Integer truncation makes the average saturate at 9, not 16, and 8 idle updates
		// bring it back to 0 (blk_mq_update_dispatch_busy's integer arithmetic).
		{"saturates-at-9", 0, repeat(true, 200), 9},
		{"saturated-after-7-idle", 9, repeat(false, 7), 1},
		{"saturated-zero-after-8-idle", 9, repeat(false, 8), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.ewma
			for _, b := range tt.busy {
				v = updateDispatchBusy(v, b)
			}
			if v != tt.want {
				t.Errorf("ewma = %d, want %d", v, tt.want)
			}
		})
	}
}

func repeat(b bool, n int) []bool {
	s := make([]bool, n)
	for i := range s {
		s[i] = b
	}
	return s
}

func TestMapQueues(t *testing.T) {
	tests := []struct {
		name     string
		cpus, hw int
		rule     MapQueuesRule
		want     []int
		wantErr  bool
	}{
		{"storvsc-16x16", 4, 4, MapGroupEvenly, []int{0, 1, 2, 3}, false},
		{"modulo-8x4", 8, 4, MapModulo, []int{0, 1, 2, 3, 0, 1, 2, 3}, false},
		{"groups-8x4", 8, 4, MapGroupEvenly, []int{0, 0, 1, 1, 2, 2, 3, 3}, false},
		{"groups-5x2", 5, 2, MapGroupEvenly, []int{0, 0, 0, 1, 1}, false},
		{"more-queues-than-cpus", 2, 4, MapGroupEvenly, []int{0, 1}, false},
		{"zero-cpus", 0, 4, MapGroupEvenly, nil, true},
		{"zero-queues", 4, 0, MapModulo, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MapQueues(tt.cpus, tt.hw, tt.rule)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("map (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCtxBioMergeLastEight(t *testing.T) {
	const bs = 4096
	mk := func() *rqList {
		var l rqList
		// nine requests far apart: offsets 0, 1 MiB, ..., 8 MiB (oldest first)
		for i := 0; i < 9; i++ {
			r := &Request{}
			r.initFromBio(&Bio{Op: device.OpWrite, Offset: int64(i) << 20, Length: bs, Sync: true})
			l.pushBack(r)
		}
		return &l
	}
	tests := []struct {
		name     string
		off      int64
		maxBytes int64
		want     bool
	}{
		{"back-merge-newest", 8<<20 + bs, 1 << 20, true},
		{"front-merge-8th-from-back", 1<<20 - bs, 1 << 20, true},
		{"9th-from-back-not-scanned", 0 + bs, 1 << 20, false},
		{"max-sectors-refuses", 8<<20 + bs, bs, false},
		{"not-contiguous", 8<<20 + 2*bs, 1 << 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mk()
			b := &Bio{Op: device.OpWrite, Offset: tt.off, Length: bs, Sync: true}
			if got := ctxBioMerge(l, b, tt.maxBytes); got != tt.want {
				t.Errorf("merged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKernel(t *testing.T) {
	tests := []struct {
		version string
		want    Options
		wantErr bool
	}{
		{"6.19", Options{}, false},
		{"6.1", Options{MapQueues: MapModulo, NoTagWaitBarrier: true, DeadlineAsyncDepth: DeadlineAsyncRawPerWord}, false},
		{"5.17", Options{MapQueues: MapModulo, NoTagWaitBarrier: true, DeadlineAsyncDepth: DeadlineAsyncRawPerWord}, false},
		// the model's plug flush is the v5.16 one: blkdev_write_iter's plug from v5.16
		{"5.14", Options{NoBlkdevWriteIterPlug: true, MaxPlugRequests: 16, NoPlugRequestCache: true, MapQueues: MapModulo,
			NoTagWaitBarrier: true, NoWakeBatchRecalc: true, DeadlineAsyncDepth: DeadlineAsyncRawPerWord}, false},
		// d97e594c5166 (v5.14): host-wide tags had per-hctx scheduler tags before;
		// 580dca8143d2 (v5.13): mq-deadline by default with host-wide tags
		{"5.13", Options{NoBlkdevWriteIterPlug: true, MaxPlugRequests: 16, NoPlugRequestCache: true, MapQueues: MapModulo,
			NoTagWaitBarrier: true, NoWakeBatchRecalc: true, DeadlineAsyncDepth: DeadlineAsyncNone,
			PerHctxSchedTagsWithHostTags: true, DeadlineMoveClearsNextRq: true}, false},
		{"5.12", Options{NoBlkdevWriteIterPlug: true, DefaultElevator: ElevatorSingleQueue, MaxPlugRequests: 16, NoPlugRequestCache: true, MapQueues: MapModulo,
			NoTagWaitBarrier: true, NoWakeBatchRecalc: true, DeadlineAsyncDepth: DeadlineAsyncNone,
			PerHctxSchedTagsWithHostTags: true, DeadlineMoveClearsNextRq: true, DeviceBusyCounter: true}, false},
		{"5.9", Options{NoBlkdevWriteIterPlug: true, SCSIRestart: RestartEveryCompletion, NoSchedBatch: true, DefaultElevator: ElevatorSingleQueue,
			MaxPlugRequests: 16, NoPlugRequestCache: true, RunAllHctxsWithSQSched: true, MapQueues: MapModulo, NoTagWaitBarrier: true,
			DeviceBusyCounter: true, DeadlineAsyncDepth: DeadlineAsyncNone, NoWakeBatchRecalc: true,
			PerHctxSchedTagsWithHostTags: true, DeadlineMoveClearsNextRq: true}, false},
		{"5.4", Options{NoBlkdevWriteIterPlug: true, SCSIRestart: RestartEveryCompletion, NoSchedBatch: true, DefaultElevator: ElevatorSingleQueue,
			MaxPlugRequests: 16, NoPlugRequestCache: true, RunAllHctxsWithSQSched: true, MapQueues: MapModulo, NoTagWaitBarrier: true,
			DeviceBusyCounter: true, HostBusyCheck: true, NoBudgetRerun: true, DeadlineAsyncDepth: DeadlineAsyncNone,
			NoWakeBatchRecalc: true, PerHctxSchedTagsWithHostTags: true, DeadlineMoveClearsNextRq: true}, false},
		// AIO_PLUG_THRESHOLD (v5.1): before it every io_submit is plugged
		{"5.1", Options{NoBlkdevWriteIterPlug: true, SCSIRestart: RestartEveryCompletion, NoSchedBatch: true, DefaultElevator: ElevatorSingleQueue,
			MaxPlugRequests: 16, NoPlugRequestCache: true, RunAllHctxsWithSQSched: true, MapQueues: MapModulo, NoTagWaitBarrier: true,
			DeviceBusyCounter: true, HostBusyCheck: true, NoBudgetRerun: true, DeadlineAsyncDepth: DeadlineAsyncNone,
			NoWakeBatchRecalc: true, PerHctxSchedTagsWithHostTags: true, DeadlineMoveClearsNextRq: true}, false},
		{"5.0", Options{NoBlkdevWriteIterPlug: true, SCSIRestart: RestartEveryCompletion, NoSchedBatch: true, DefaultElevator: ElevatorSingleQueue,
			MaxPlugRequests: 16, NoPlugRequestCache: true, RunAllHctxsWithSQSched: true, MapQueues: MapModulo, NoTagWaitBarrier: true,
			DeviceBusyCounter: true, HostBusyCheck: true, NoBudgetRerun: true, DeadlineAsyncDepth: DeadlineAsyncNone,
			NoWakeBatchRecalc: true, PerHctxSchedTagsWithHostTags: true, DeadlineMoveClearsNextRq: true, AIOPlugAlways: true}, false},
		{"4.14", Options{}, true},
		{"five", Options{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			got, err := Kernel(tt.version)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDispatchOrder checks the §5.5/§5.7 order on one hctx with two CPUs: the dispatch
// list first, then one-by-one round robin over ctxs when dispatch_busy, or every
// request of ctx 0 then ctx 1 when flushing.
func TestDispatchOrder(t *testing.T) {
	tests := []struct {
		name         string
		dispatchBusy int
		withDispatch bool
		want         []int64
	}{
		{"flush-all-ctxs", 0, false, []int64{0, 1, 2, 10, 11, 12}},
		{"one-by-one-round-robin", 2, false, []int64{0, 10, 1, 11, 2, 12}},
		// A drained dispatch list sets need_dispatch: one-by-one even when not busy.
		{"dispatch-list-first-then-one-by-one", 0, true, []int64{99, 0, 10, 1, 11, 2, 12}},
		{"dispatch-list-first-busy", 2, true, []int64{99, 0, 10, 1, 11, 2, 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 1, CanQueue: 64},
				testLUN{QueueDepth: 32, Elevator: "none"}, device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
			q := rig.q
			h := q.hctxs[0]
			var c counter
			add := func(cpu int, off int64) *Request {
				b := &Bio{Op: device.OpRead, Offset: off * 4096, Length: 4096, Sync: true, End: &c}
				tag := h.th.GetDriverTag(cpu, false)
				return q.initRequest(h, cpu, tag, b)
			}
			for cpu := 0; cpu < 2; cpu++ {
				for i := int64(0); i < 3; i++ {
					q.insertRequest(add(cpu, int64(cpu)*10+i), false)
				}
			}
			if tt.withDispatch {
				h.dispatch.pushBack(add(0, 99))
			}
			h.dispatchBusy = tt.dispatchBusy
			h.runHwQueue(false)
			rig.eng.Run()
			got := make([]int64, len(rig.dev.order))
			for i, o := range rig.dev.order {
				got[i] = o / 4096
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("device order (-want +got):\n%s", diff)
			}
			if c.n != len(tt.want) {
				t.Errorf("completed %d, want %d", c.n, len(tt.want))
			}
		})
	}
}

// TestRestartEras: a completion re-runs the LUN's hctxs on every completion before
// v5.10, and only after a recorded budget failure with the restarts counter.
func TestRestartEras(t *testing.T) {
	tests := []struct {
		name        string
		rule        RestartRule
		nrIOs       int
		wantReruns  uint64
		wantBudFail bool
	}{
		{"v5.10-counter/no-contention", RestartCounter, 1, 0, false},
		{"v5.10-counter/contention", RestartCounter, 4, 3, true},
		{"pre-v5.10/every-completion/no-contention", RestartEveryCompletion, 1, 1, false},
		{"pre-v5.10/every-completion/contention", RestartEveryCompletion, 4, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 64, Options: Options{SCSIRestart: tt.rule}},
				testLUN{QueueDepth: 1, Elevator: "none"}, device.NullParams{Name: "null", CompletionNsec: 100 * sim.Microsecond})
			var c counter
			for i := 0; i < tt.nrIOs; i++ {
				b := &Bio{Op: device.OpRead, Offset: int64(i) << 20, Length: 4096, Sync: true, End: &c}
				rig.q.SubmitBio(b, i%2, true, nil)
			}
			rig.eng.RunUntil(sim.Second)
			st := rig.q.Stats()
			if c.n != tt.nrIOs {
				t.Fatalf("completed %d of %d (hang)", c.n, tt.nrIOs)
			}
			if st.CompletionRerun != tt.wantReruns {
				t.Errorf("completion reruns = %d, want %d", st.CompletionRerun, tt.wantReruns)
			}
			if (st.BudgetFailures > 0) != tt.wantBudFail {
				t.Errorf("budget failures = %d", st.BudgetFailures)
			}
		})
	}
}

func TestAddLUNErrors(t *testing.T) {
	eng := sim.NewEngine()
	h, err := NewHost(eng, HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 32})
	if err != nil {
		t.Fatal(err)
	}
	null, _ := device.NewNull(eng, device.NullBlkParams())
	tests := []struct {
		name string
		cfg  testLUN
		want string
	}{
		{"queue-depth", testLUN{Device: null, QueueDepth: 33}, "scsi: lun 0: queue_depth 33 out of range [1, 32]"},
		{"nr-requests-none", testLUN{Device: null, QueueDepth: 8, Elevator: "none", NrRequests: 64}, "dispatch: lun 0: tagset: nr_requests 64 out of range [1, 32]"},
		{"elevator", testLUN{Device: null, QueueDepth: 8, Elevator: "bfq"}, "dispatch: lun 0: elevator \"bfq\" not one of \"\", \"none\", \"mq-deadline\""},
		{"max-sectors", testLUN{Device: null, QueueDepth: 8, MaxSectorsKB: 2}, "dispatch: lun 0: max_sectors_kb 2 out of range [4, 32767]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := addTestLUN(h, tt.cfg)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := NewHost(eng, HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 0}); err == nil || err.Error() != "dispatch: can_queue 0 out of range [1, 10240]" {
		t.Errorf("can_queue err = %v", err)
	}
}

// TestDefaultElevator: host-wide tags flip the default to mq-deadline (v5.13+ rule, 580dca8143d2).
func TestDefaultElevator(t *testing.T) {
	tests := []struct {
		name       string
		hw         int
		hostTagset bool
		rule       ElevatorRule
		want       string
	}{
		{"multi-queue-none", 4, false, ElevatorSingleQueueOrSharedTags, "none"},
		{"single-queue-deadline", 1, false, ElevatorSingleQueueOrSharedTags, "mq-deadline"},
		{"host-tagset-deadline", 4, true, ElevatorSingleQueueOrSharedTags, "mq-deadline"},
		{"host-tagset-old-rule-none", 4, true, ElevatorSingleQueue, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 4, NrHwQueues: tt.hw, CanQueue: 64, HostTagset: tt.hostTagset,
				Options: Options{DefaultElevator: tt.rule}}, testLUN{QueueDepth: 8}, device.NullBlkParams())
			if got := rig.q.ElevatorName(); got != tt.want {
				t.Errorf("elevator = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestUnmappedHctxs: more hardware queues than CPUs leaves hctxs without CPUs; they
// are never run and I/O still completes, with and without an elevator.
func TestUnmappedHctxs(t *testing.T) {
	for _, elv := range []string{"none", "mq-deadline"} {
		t.Run(elv, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 2, NrHwQueues: 4, CanQueue: 8, HostTagset: true},
				testLUN{QueueDepth: 1, Elevator: elv}, device.NullParams{Name: "null", CompletionNsec: 10 * sim.Microsecond})
			var tasks []*loopTask
			for i := 0; i < 4; i++ {
				l := newLoopTask(rig, []int{i % 2}, uint64(i))
				l.limit = 50
				tasks = append(tasks, l)
				l.submit()
			}
			rig.eng.RunUntil(sim.Second)
			for i, l := range tasks {
				if l.done != 50 {
					t.Errorf("task %d completed %d of 50", i, l.done)
				}
			}
			for _, h := range rig.q.hctxs[2:] {
				if h.Stats().Runs != 0 {
					t.Errorf("unmapped hctx %d ran %d times", h.Index(), h.Stats().Runs)
				}
			}
		})
	}
}

// TestLazyIdleFairShare (§3.6): two LUNs share a host's 16 driver tags. After LUN A's
// last I/O, A stays "active" until its timeout scan, so LUN B is held to the fair
// share ceil(16/2) = 8 tags; after the scan (the request timeout, 30 s) B may use all 16.
func TestLazyIdleFairShare(t *testing.T) {
	eng := sim.NewEngine()
	h, err := NewHost(eng, HostConfig{NrCPUs: 2, NrHwQueues: 1, CanQueue: 16})
	if err != nil {
		t.Fatal(err)
	}
	var luns [2]*Queue
	var devs [2]*device.Null
	for i := range luns {
		devs[i], _ = device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 2 * sim.Millisecond})
		if luns[i], err = addTestLUN(h, testLUN{Device: devs[i], QueueDepth: 16, Elevator: "none"}); err != nil {
			t.Fatal(err)
		}
	}
	rigA := &testRig{eng: eng, host: h, q: luns[0]}
	rigB := &testRig{eng: eng, host: h, q: luns[1]}
	a := newLoopTask(rigA, []int{0}, 1)
	a.limit = 10
	a.submit()
	eng.RunUntil(50 * sim.Millisecond)
	for i := 0; i < 32; i++ {
		newLoopTask(rigB, []int{1}, uint64(10+i)).submit()
	}
	maxInFlight := func(until sim.Time) int {
		m := 0
		for eng.Now() < until && eng.Step() {
			m = max(m, devs[1].InFlight())
		}
		return m
	}
	if got := maxInFlight(20 * sim.Second); got != 8 {
		t.Errorf("LUN B in flight while A is still active = %d, want the fair share 8", got)
	}
	if got := maxInFlight(45 * sim.Second); got != 16 {
		t.Errorf("LUN B in flight after A's timeout scan = %d, want 16", got)
	}
}

// TestPerHctxSchedTagsWithHostTags: with host-wide tags and mq-deadline, v5.14+ gives
// the queue one scheduler-tag pool of nr_requests; before d97e594c5166 (v5.13) each
// hctx had its own, nr_hw_queues × nr_requests in all (seed 001's v5.11 era).
func TestPerHctxSchedTagsWithHostTags(t *testing.T) {
	for _, tt := range []struct {
		kernel    string
		wantPools int
	}{
		{"5.14", 1},
		{"5.13", 4},
		{"5.11", 4},
	} {
		t.Run("001/"+tt.kernel, func(t *testing.T) {
			o, err := Kernel(tt.kernel)
			if err != nil {
				t.Fatal(err)
			}
			r := newRig(t, HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 32, HostTagset: true, Options: o},
				testLUN{QueueDepth: 32, Elevator: "mq-deadline", NrRequests: 16}, device.NullParams{Name: "null"})
			pools := map[any]bool{}
			for _, h := range r.q.Hctxs() {
				pools[h.SchedTags()] = true
				if got := h.SchedTags().NrTags(); got != 16 {
					t.Errorf("hctx %d: %d scheduler tags, want nr_requests 16", h.Index(), got)
				}
			}
			if len(pools) != tt.wantPools {
				t.Errorf("%d scheduler-tag pools, want %d", len(pools), tt.wantPools)
			}
		})
	}
}
