package sim_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

// flat is a 4-CPU topology: an owned line costs 5 ns, a transferred one 80 ns.
func flat() *sim.Topology { t := sim.Flat(4, 5, 80); return &t }

type op struct {
	Name    string
	At, Now sim.Time
	CPU     int
	Hold    sim.Time
}

func TestSpinLockCosts(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind sim.LockKind
		ops  []op
		want []sim.Time
	}{
		{"uncontended-same-cpu", sim.Queued, []op{{At: 0, CPU: 0, Hold: 100}, {At: 500, CPU: 0, Hold: 100}},
			[]sim.Time{105, 105}},
		{"uncontended-other-cpu-pays-transfer", sim.Queued, []op{{At: 0, CPU: 0, Hold: 100}, {At: 500, CPU: 1, Hold: 100}},
			[]sim.Time{105, 180}},
		// Two CPUs at once: the second spins 105 ns, then the hand-off (80) and its hold.
		{"two-cpus-contend", sim.Queued, []op{{At: 0, CPU: 0, Hold: 100}, {At: 0, CPU: 1, Hold: 100}},
			[]sim.Time{105, 105 + 180}},
		// Four CPUs at once, FIFO: each starts when the one before ends.
		{"four-cpus-fifo", sim.Queued, []op{{CPU: 0, Hold: 100}, {CPU: 1, Hold: 100}, {CPU: 2, Hold: 100}, {CPU: 3, Hold: 100}},
			[]sim.Time{105, 285, 465, 645}},
		// Ticket lock: the k-th waiter's hand-off costs 80 + k×40.
		{"four-cpus-ticket", sim.Ticket, []op{{CPU: 0, Hold: 100}, {CPU: 1, Hold: 100}, {CPU: 2, Hold: 100}, {CPU: 3, Hold: 100}},
			[]sim.Time{105, 105 + 220, 325 + 260, 585 + 300}},
		// A CPU whose timeline runs ahead does not block one behind it.
		{"earlier-request-fills-gap", sim.Queued, []op{{At: 1000, CPU: 0, Hold: 100}, {At: 0, CPU: 1, Hold: 100}},
			[]sim.Time{105, 105}},
		// The gap is too short: the request waits for the owner ahead of it.
		{"gap-too-short", sim.Queued, []op{{At: 100, CPU: 0, Hold: 100}, {At: 0, CPU: 1, Hold: 100}},
			[]sim.Time{105, 205 + 180}},
		// Intervals before now are forgotten, but the last owner is remembered.
		{"forgotten-owner-still-transfers", sim.Queued, []op{{At: 0, CPU: 0, Hold: 100}, {Now: 10000, At: 10000, CPU: 1, Hold: 100}},
			[]sim.Time{105, 180}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := sim.NewSpinLock(flat(), tc.kind)
			var got []sim.Time
			for _, o := range tc.ops {
				got = append(got, l.Lock(o.Now, o.At, o.CPU, o.Hold))
			}
			if d := gocmp.Diff(tc.want, got); d != "" {
				t.Errorf("costs (-want +got):\n%s", d)
			}
		})
	}
}

// TestSpinLockNCPUsFIFO: n CPUs arriving together complete in call order, the k-th
// paying k hand-offs of the ones before it: the lock's throughput is 1/(transfer+hold)
// whatever n, and the mean cost grows linearly with n.
func TestSpinLockNCPUsFIFO(t *testing.T) {
	for _, n := range []int{1, 2, 8, 64} {
		top := sim.Flat(n, 5, 80)
		l := sim.NewSpinLock(&top, sim.Queued)
		for k := range n {
			got := l.Lock(0, 0, k, 100)
			want := sim.Time(105)
			if k > 0 {
				want = 105 + sim.Time(k)*180
			}
			if got != want {
				t.Fatalf("n=%d: CPU %d cost %v, want %v", n, k, got, want)
			}
		}
		if s := l.Stats(); s.Contended != uint64(n-1) || s.Ops != uint64(n) {
			t.Errorf("n=%d: stats %+v", n, s)
		}
	}
}

func TestAtomicLineCosts(t *testing.T) {
	top := flat()
	l := sim.NewAtomicLine(top)
	var got []sim.Time
	got = append(got, l.RMW(0, 0, 0))     // first touch: 5
	got = append(got, l.RMW(0, 0, 1))     // overlaps: waits 5, transfers 80
	got = append(got, l.RMW(0, 0, 2))     // waits 85, transfers 80
	got = append(got, l.RMW(0, 1000, 2))  // owns it: 5
	got = append(got, l.Load(0, 2000, 3)) // first read since CPU 2 wrote: 80
	got = append(got, l.Load(0, 2100, 3)) // shared now: 5
	got = append(got, l.RMW(0, 3000, 3))  // another writer was last: 80
	got = append(got, l.Load(0, 4000, 2)) // CPU 3 wrote: 80
	got = append(got, l.Load(0, 4000, 3)) // writer reads its own line: 5
	want := []sim.Time{5, 85, 165, 5, 80, 5, 80, 80, 5}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("costs (-want +got):\n%s", d)
	}
	if s := l.Stats(); s.Ops != 5 || s.Contended != 2 || s.Transfers != 3 {
		t.Errorf("stats %+v", s)
	}
}

// TestAtomicLineNCPUs: n CPUs hitting one line at once serialise: the last pays n−1
// transfers of waiting.
func TestAtomicLineNCPUs(t *testing.T) {
	for _, n := range []int{2, 8, 64} {
		top := sim.Flat(n, 5, 80)
		l := sim.NewAtomicLine(&top)
		var last sim.Time
		for k := range n {
			last = l.RMW(0, 0, k)
		}
		if want := 5 + sim.Time(n-1)*80; last != want {
			t.Errorf("n=%d: last cost %v, want %v", n, last, want)
		}
	}
}

func TestMutexSleeps(t *testing.T) {
	m := sim.NewMutex(flat(), 0, 1000, 500)
	end0, c0 := m.Lock(0, 0, 0, 100)
	end1, c1 := m.Lock(0, 0, 1, 100) // held until 105: sleeps, woken 500 after
	got := []sim.Time{end0, c0, end1, c1}
	want := []sim.Time{105, 105, 105 + 500 + 180, 1000 + 180}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	spin := sim.NewMutex(flat(), 1000, 1000, 500)
	spin.Lock(0, 0, 0, 100)
	if end, c := spin.Lock(0, 0, 1, 100); end != 285 || c != 285 {
		t.Errorf("spinning mutex: end %v cost %v, want 285 285", end, c)
	}
}

func TestTopologyDistance(t *testing.T) {
	top := sim.Topology{Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 2, NodesPerSocket: 2,
		Costs: sim.TransferCosts{Self: 1, SMT: 2, Node: 3, Socket: 4, Remote: 5}}
	if err := top.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b int
		want sim.Distance
	}{{0, 0, sim.DistSelf}, {0, 8, sim.DistSMT}, {0, 1, sim.DistNode}, {0, 2, sim.DistSocket},
		{0, 4, sim.DistRemote}, {9, 1, sim.DistSMT}, {15, 4, sim.DistSocket}, {3, 12, sim.DistRemote}} {
		if got := top.Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%d, %d) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if top.NrCPUs() != 16 || top.Transfer(-1, 3) != 1 || top.Transfer(0, 4) != 5 {
		t.Errorf("NrCPUs %d, Transfer(-1,3) %v, Transfer(0,4) %v", top.NrCPUs(), top.Transfer(-1, 3), top.Transfer(0, 4))
	}
}

func TestTopologyValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    sim.Topology
		want string
	}{
		{"no-sockets", sim.Topology{CoresPerSocket: 1, ThreadsPerCore: 1}, "sim: topology Sockets 0 out of range [1, 4096]"},
		{"nodes-dont-divide", sim.Topology{Sockets: 1, CoresPerSocket: 3, ThreadsPerCore: 1, NodesPerSocket: 2},
			"sim: topology NodesPerSocket 2 must divide CoresPerSocket 3"},
		{"negative-cost", sim.Topology{Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, Costs: sim.TransferCosts{Remote: -1}},
			"sim: topology transfer cost -1ns out of range [0, 1ms]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.t.Validate()
			if err == nil || err.Error() != tc.want {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSpinLockData: protected data lines move with the lock only when the owner changes.
func TestSpinLockData(t *testing.T) {
	l := sim.NewSpinLock(flat(), sim.Queued)
	got := []sim.Time{
		l.LockData(0, 0, 0, 100, 3),    // first owner: 5 + 100
		l.LockData(0, 500, 0, 100, 3),  // same CPU: data local: 5 + 100
		l.LockData(0, 1000, 1, 100, 3), // new owner: 80 + 3×80 + 100
		l.LockData(0, 1000, 2, 100, 3), // contended: waits 420, then 420
	}
	want := []sim.Time{105, 105, 420, 840}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
