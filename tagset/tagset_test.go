package tagset_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/tagset"
	"github.com/google/go-cmp/cmp"
)

func mustSet(t testing.TB, cfg tagset.Config) *tagset.TagSet {
	t.Helper()
	s, err := tagset.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustQueue(t testing.TB, s *tagset.TagSet, qc tagset.QueueConfig) *tagset.RequestQueue {
	t.Helper()
	q, err := s.AddQueue(qc)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  tagset.Config
		want string
	}{
		{"depth-0", tagset.Config{NrHwQueues: 1, QueueDepth: 0}, "queue_depth 0 out of range [1, 10240]"},
		{"depth-above-limit", tagset.Config{NrHwQueues: 1, QueueDepth: 10241}, "queue_depth 10241 out of range [1, 10240]"},
		{"reserved-equals-depth", tagset.Config{NrHwQueues: 1, QueueDepth: 4, ReservedTags: 4}, "reserved_tags 4 out of range [0, 3]"},
		{"reserved-negative", tagset.Config{NrHwQueues: 1, QueueDepth: 4, ReservedTags: -1}, "reserved_tags -1 out of range"},
		{"nr-hw-queues-0", tagset.Config{NrHwQueues: 0, QueueDepth: 4}, "nr_hw_queues 0 out of range [1, 4096]"},
		{"nr-cpus", tagset.Config{NrHwQueues: 1, QueueDepth: 4, NrCPUs: 5000}, "nr_cpus 5000 out of range"},
		{"idle-delay", tagset.Config{NrHwQueues: 1, QueueDepth: 4, Options: tagset.Options{IdleDelay: -1}}, "idle_delay -1 ns out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tagset.New(c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New: error %v, want one containing %q", err, c.want)
			}
		})
	}
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 32})
	for _, c := range []struct {
		qc   tagset.QueueConfig
		want string
	}{
		{tagset.QueueConfig{NrRequests: 33}, "nr_requests 33 out of range [1, 32]"},
		{tagset.QueueConfig{NrRequests: -1}, "nr_requests -1 out of range [1, 32]"},
		{tagset.QueueConfig{Elevator: true, NrRequests: 4096}, "nr_requests 4096 out of range [1, 2048]"},
	} {
		if _, err := s.AddQueue(c.qc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddQueue(%+v): error %v, want %q", c.qc, err, c.want)
		}
	}
	q := mustQueue(t, s, tagset.QueueConfig{})
	if err := q.UpdateNrRequests(64); err == nil || !strings.Contains(err.Error(), "nr_requests 64 out of range [1, 32]") {
		t.Errorf("UpdateNrRequests(64) without elevator: %v", err)
	}
}

func TestKernelTagNumbering(t *testing.T) {
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 6, ReservedTags: 2, RoundRobin: true})
	tags := s.Tags(0)
	var got []int
	for i := 0; i < 3; i++ {
		got = append(got, tags.Get(0, true))
	}
	for i := 0; i < 5; i++ {
		got = append(got, tags.Get(0, false))
	}
	// Reserved tags are 0..1, then none; normal tags are bit+2 = 2..5, then none.
	if diff := cmp.Diff([]int{0, 1, -1, 2, 3, 4, 5, -1}, got); diff != "" {
		t.Errorf("tags handed out (-want +got):\n%s", diff)
	}
	if !tags.IsReserved(1) || tags.IsReserved(2) {
		t.Error("IsReserved boundary wrong")
	}
	tags.Put(3, 0)
	tags.Put(0, 0)
	if got := tags.Busy(); got != 4 {
		t.Errorf("Busy after two puts = %d, want 4", got)
	}
}

func TestQueueSharedFlag(t *testing.T) {
	s := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 8})
	a := mustQueue(t, s, tagset.QueueConfig{})
	if s.QueueShared() {
		t.Fatal("one queue: TAG_QUEUE_SHARED set")
	}
	b := mustQueue(t, s, tagset.QueueConfig{})
	if !s.QueueShared() {
		t.Fatal("two queues: TAG_QUEUE_SHARED not set")
	}
	// Per-hctx tags: each hctx of each queue is its own user.
	a.Hctx(0).GetDriverTag(0, false)
	a.Hctx(1).GetDriverTag(0, false)
	b.Hctx(0).GetDriverTag(0, false)
	if got := s.Tags(0).ActiveQueues(); got != 2 {
		t.Errorf("active_queues of hctx0 tags = %d, want 2", got)
	}
	if got := s.Tags(1).ActiveQueues(); got != 1 {
		t.Errorf("active_queues of hctx1 tags = %d, want 1", got)
	}
	s.RemoveQueue(b)
	if s.QueueShared() {
		t.Error("back to one queue: TAG_QUEUE_SHARED still set")
	}
	if got := s.Tags(0).ActiveQueues(); got != 1 {
		t.Errorf("after removing b: active_queues = %d, want 1", got)
	}
}

// allocatable counts how many requests the queue can hold at once (tags of the
// kind requests are allocated from), over all hctxs.
func allocatable(q *tagset.RequestQueue) int {
	n := 0
	for i := 0; i < q.NrHwQueues(); i++ {
		a := &tagset.TagAlloc{Hctx: q.Hctx(i), NoWait: true}
		for a.Start() == tagset.AllocGot {
			n++
		}
	}
	return n
}

func TestNrRequestsScope(t *testing.T) {
	// Case of seed 000: 16 hctxs, queue_depth 15, nr_requests 56.
	for _, c := range []struct {
		name     string
		shared   bool
		elevator bool
		pre514   bool // Options.PerHctxSchedTagsWithHostTags
		want     int
	}{
		{"per-hctx-sched-tags", false, true, false, 16 * 56},
		{"hctx_share_tags-sched-tags", true, true, false, 56},
		{"per-hctx-driver-tags-none", false, false, false, 16 * 15},
		{"host-wide-driver-tags-none", true, false, false, 15},
		// before v5.14 (d97e594c5166) host-wide tags kept per-hctx scheduler tags
		{"v5.13-host-wide-per-hctx-sched-tags", true, true, true, 16 * 56},
		{"v5.13-per-hctx-tags-unchanged", false, true, true, 16 * 56},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 16, QueueDepth: 15, HctxShareTags: c.shared,
				Options: tagset.Options{PerHctxSchedTagsWithHostTags: c.pre514}})
			nr := 56
			if !c.elevator {
				nr = 0
			}
			q := mustQueue(t, s, tagset.QueueConfig{Elevator: c.elevator, NrRequests: nr})
			if got := allocatable(q); got != c.want {
				t.Errorf("requests allocatable = %d, want %d", got, c.want)
			}
		})
	}
	t.Run("default-with-elevator", func(t *testing.T) {
		s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 192})
		q := mustQueue(t, s, tagset.QueueConfig{Elevator: true})
		if q.NrRequests() != 256 {
			t.Errorf("nr_requests = %d, want 256", q.NrRequests())
		}
	})
	t.Run("resize", func(t *testing.T) {
		s := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 15})
		q := mustQueue(t, s, tagset.QueueConfig{Elevator: true, NrRequests: 8})
		if err := q.UpdateNrRequests(100); err != nil {
			t.Fatal(err)
		}
		if got := allocatable(q); got != 200 {
			t.Errorf("after growing to 100: allocatable = %d, want 200", got)
		}
		s2 := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 32, HostTagset: true})
		q2 := mustQueue(t, s2, tagset.QueueConfig{})
		if err := q2.UpdateNrRequests(10); err != nil {
			t.Fatal(err)
		}
		if got := allocatable(q2); got != 10 {
			t.Errorf("host-wide none, nr_requests 10: allocatable = %d, want 10", got)
		}
	})
}

func TestLazyIdle(t *testing.T) {
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 32, HostTagset: true})
	a := mustQueue(t, s, tagset.QueueConfig{})
	b := mustQueue(t, s, tagset.QueueConfig{})
	ha, hb := a.Hctx(0), b.Hctx(0)
	tag := hb.GetDriverTag(0, false)
	b.RequestStarted(0)
	hb.PutDriverTag(tag, 0) // b completes its only request and stops
	ha.GetDriverTag(0, false)
	a.RequestStarted(0)
	if got := s.Tags(0).ActiveQueues(); got != 2 {
		t.Fatalf("active_queues = %d, want 2", got)
	}
	// The completion did not make b idle; only the timeout scan does.
	if !b.Active() {
		t.Fatal("b went idle at completion")
	}
	if got := b.TimerExpiry(); got != tagset.DefaultIdleDelay {
		t.Fatalf("timer expiry = %d, want %d", got, tagset.DefaultIdleDelay)
	}
	if b.TimeoutWork(b.TimerExpiry(), 0) != true || b.Active() {
		t.Fatal("timeout scan with nothing pending did not idle b")
	}
	if got := s.Tags(0).ActiveQueues(); got != 1 {
		t.Errorf("active_queues after idle = %d, want 1", got)
	}
	if a.TimeoutWork(a.TimerExpiry(), 1) {
		t.Error("timeout scan with a pending request idled a")
	}
}

func TestR10ReservedBypassesFairShare(t *testing.T) {
	for _, c := range []struct {
		name      string
		opt       tagset.Options
		wantGrant bool
	}{
		{"R10/reserved-allowed", tagset.Options{}, true},
		{"R10/pre-285008501c65-reserved-blocked", tagset.Options{ReservedFairShare: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 34, ReservedTags: 2, Options: c.opt})
			a := mustQueue(t, s, tagset.QueueConfig{})
			b := mustQueue(t, s, tagset.QueueConfig{})
			b.Hctx(0).GetDriverTag(0, false) // b is an active user too: cap 16 each
			ha := a.Hctx(0)
			for i := 0; i < 16; i++ {
				if ha.GetDriverTag(0, false) < 0 {
					t.Fatalf("normal allocation %d refused below the cap", i)
				}
			}
			if tag := ha.GetDriverTag(0, false); tag >= 0 {
				t.Errorf("17th normal allocation got %d; cap is 16", tag)
			}
			// Recovery command: a reserved allocation that may wait.
			var woken bool
			alloc := &tagset.TagAlloc{Hctx: ha, Reserved: true, Woken: func(*tagset.TagAlloc) { woken = true }}
			st := alloc.Start()
			if got := st == tagset.AllocGot; got != c.wantGrant {
				t.Errorf("reserved allocation status %v, tag %d; want granted=%v", st, alloc.Tag, c.wantGrant)
			}
			if st == tagset.AllocGot && !ha.Tags().IsReserved(alloc.Tag) {
				t.Errorf("tag %d is not reserved", alloc.Tag)
			}
			if !c.wantGrant && (st != tagset.AllocSleeping || woken) {
				t.Errorf("pre-fix: status %v woken %v; want sleeping forever (stuck device)", st, woken)
			}
		})
	}
}

// TestNoFairSharing: two active queues share 32 driver tags; with fair sharing one
// queue stops at 16, with the 2023 UFS proposal it takes all 31 left.
func TestNoFairSharing(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  tagset.Options
		want int
	}{
		{"fair-share-16-each", tagset.Options{}, 16},
		{"no-fair-sharing-takes-the-rest", tagset.Options{NoFairSharing: true}, 31},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 32, Options: c.opt})
			a := mustQueue(t, s, tagset.QueueConfig{})
			b := mustQueue(t, s, tagset.QueueConfig{})
			if b.Hctx(0).GetDriverTag(0, false) < 0 {
				t.Fatal("b's first tag refused")
			}
			got := 0
			for a.Hctx(0).GetDriverTag(0, false) >= 0 {
				got++
			}
			if got != c.want {
				t.Errorf("queue a got %d tags, want %d", got, c.want)
			}
		})
	}
}
