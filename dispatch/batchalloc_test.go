package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// batchCounts are the batched-allocation counters of a queue and the tags the run left
// held.
type batchCounts struct {
	BatchAllocs, BatchTags, CachedUsed, CachedFreed uint64
	Commands, Completed                             int
	CachedAfterFinish, TagsHeldAfterRun             int
}

// batchRun submits bios at the given 4 KiB offsets under a plug started for nrIOs,
// after `hold` unplugged bios (offsets far away) that stay in flight on a slow device,
// then finishes the plug and runs the simulation to the end.
type batchRun struct {
	name     string
	opts     Options
	canQueue int
	elevator string
	op       device.Op
	hold     int
	nrIOs    int
	offsets  []int64
}

func (r batchRun) run(t *testing.T) (batchCounts, []int64) {
	t.Helper()
	canQueue := r.canQueue
	if canQueue == 0 {
		canQueue = 128
	}
	rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: canQueue, Options: r.opts},
		testLUN{QueueDepth: canQueue, Elevator: r.elevator, NrRequests: canQueue},
		device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
	var c counter
	for i := 0; i < r.hold; i++ {
		b := &Bio{Op: device.OpRead, Offset: int64(1000+2*i) * 4096, Length: 4096, Sync: true, End: &c}
		if got := rig.q.SubmitBio(b, 0, true, nil); got != Queued {
			t.Fatalf("hold bio %d: %v", i, got)
		}
	}
	var p Plug
	p.Start(r.nrIOs)
	for _, off := range r.offsets {
		b := &Bio{Op: r.op, Offset: off * 4096, Length: 4096, Sync: true, End: &c}
		if got := rig.q.SubmitBioPlug(b, 0, true, nil, &p); got == WouldBlock {
			t.Fatalf("bio at %d: %v", off, got)
		}
	}
	p.Finish(0)
	after := p.Cached()
	rig.eng.Run()
	st := rig.q.Stats()
	tags := rig.q.HctxOf(0).th.Tags().Bitmap().Sbitmap().Weight()
	if rig.q.elevator != nil {
		tags += rig.q.HctxOf(0).th.SchedTags().Bitmap().Sbitmap().Weight()
	}
	return batchCounts{BatchAllocs: st.BatchAllocs, BatchTags: st.BatchTags, CachedUsed: st.CachedUsed,
		CachedFreed: st.CachedFreed, Commands: len(rig.dev.order), Completed: c.n,
		CachedAfterFinish: after, TagsHeldAfterRun: tags}, rig.dev.order
}

func spread(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(10 * i) // never contiguous: no merges
	}
	return s
}

// TestPlugBatchAlloc: the first request of a plug started for nr_ios I/Os takes up to
// nr_ios tags in one blk_mq_get_tags; later bios take cached requests; the unused
// ones are freed at blk_finish_plug; blk_mq_get_tags refuses a shallow depth, a
// bitmap word narrower than the batch, and a word whose first free bit leaves no
// room, and the pre-5.16 era never batches. Every run ends with no tag held.
func TestPlugBatchAlloc(t *testing.T) {
	tests := []struct {
		batchRun
		want batchCounts
	}{
		{batchRun{name: "io_uring-24-sqes", elevator: "none", op: device.OpRead, nrIOs: 24, offsets: spread(24)},
			batchCounts{BatchAllocs: 1, BatchTags: 24, CachedUsed: 23, Commands: 24, Completed: 24}},
		{batchRun{name: "nr_ios-capped-at-32", elevator: "none", op: device.OpRead, nrIOs: 40, offsets: spread(40)},
			batchCounts{BatchAllocs: 1, BatchTags: 32, CachedUsed: 31, Commands: 40, Completed: 40}},
		{batchRun{name: "unused-freed-at-unplug", elevator: "none", op: device.OpRead, nrIOs: 8, offsets: spread(3)},
			batchCounts{BatchAllocs: 1, BatchTags: 8, CachedUsed: 2, CachedFreed: 5, Commands: 3, Completed: 3}},
		{batchRun{name: "merged-bios-leave-requests-cached", elevator: "none", op: device.OpRead, nrIOs: 4,
			offsets: []int64{0, 1, 2, 3}},
			batchCounts{BatchAllocs: 1, BatchTags: 4, CachedFreed: 3, Commands: 1, Completed: 4}},
		{batchRun{name: "nr_ios-one-no-batch", elevator: "none", op: device.OpRead, nrIOs: 1, offsets: spread(4)},
			batchCounts{Commands: 4, Completed: 4}},
		{batchRun{name: "pre-5.16-no-cache", opts: Options{NoPlugRequestCache: true}, elevator: "none", op: device.OpRead,
			nrIOs: 24, offsets: spread(24)},
			batchCounts{Commands: 24, Completed: 24}},
		// 64 tags: sbitmap_calculate_shift gives 16-bit words, too narrow for 24
		{batchRun{name: "word-narrower-than-batch", canQueue: 64, elevator: "none", op: device.OpRead, nrIOs: 24,
			offsets: spread(24)},
			batchCounts{Commands: 24, Completed: 24}},
		// 128 tags in 32-bit words; 28 held: the batch of 8 needs a word whose
		// first free bit is at most 24
		{batchRun{name: "partly-held-map", elevator: "none", op: device.OpRead, hold: 28, nrIOs: 8, offsets: spread(8)},
			batchCounts{BatchAllocs: 1, BatchTags: 8, CachedUsed: 7, Commands: 36, Completed: 36}},
		// every tag held but one: the batch finds no room, the bio takes the last tag
		{batchRun{name: "full-map-single-alloc", elevator: "none", op: device.OpRead, hold: 127, nrIOs: 8, offsets: spread(1)},
			batchCounts{Commands: 128, Completed: 128}},
		// mq-deadline: reads have no shallow depth and batch on the sched tags;
		// writes get async_depth and never batch
		{batchRun{name: "mq-deadline-read-sched-tags", elevator: "mq-deadline", op: device.OpRead, nrIOs: 8, offsets: spread(8)},
			batchCounts{BatchAllocs: 1, BatchTags: 8, CachedUsed: 7, Commands: 8, Completed: 8}},
		{batchRun{name: "mq-deadline-write-shallow", elevator: "mq-deadline", op: device.OpWrite, nrIOs: 8, offsets: spread(8)},
			batchCounts{Commands: 8, Completed: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.run(t)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlugBatchTags: the batch takes one word's run of tags from the word's first free
// bit; the request cache is LIFO (rq_list_add), so the first bio gets the batch's last
// tag. With 128 tags the words are 32 bits wide; the CPU's allocation hint starts at a
// random bit (sbitmap_init_node), so the held tags' words vary: with 30 held the batch
// never shares a word with them (no word with held tags has room for 4 from its first
// free bit, except one whose first free bit is at most 28, which the run must then
// start at).
func TestPlugBatchTags(t *testing.T) {
	for _, hold := range []int{0, 30} {
		rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 128},
			testLUN{QueueDepth: 128, Elevator: "none"}, device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
		var c counter
		held := map[int]bool{}
		for i := 0; i < hold; i++ {
			b := &Bio{Op: device.OpRead, Offset: int64(1000+2*i) * 4096, Length: 4096, End: &c}
			rig.q.SubmitBio(b, 0, true, nil)
			held[b.rq.tag] = true
		}
		var p Plug
		p.Start(4)
		var got []int
		for i := 0; i < 4; i++ {
			b := &Bio{Op: device.OpRead, Offset: int64(10*i) * 4096, Length: 4096, End: &c}
			rig.q.SubmitBioPlug(b, 0, true, nil, &p)
			got = append(got, b.rq.tag)
		}
		p.Finish(0)
		rig.eng.Run()
		low := got[3]
		want := []int{low + 3, low + 2, low + 1, low}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("hold %d: tags not one descending run (-want +got):\n%s", hold, diff)
		}
		if low>>5 != (low+3)>>5 {
			t.Errorf("hold %d: run %v crosses a word", hold, got)
		}
		// the run starts at its word's first free bit
		for bit := low &^ 31; bit < low; bit++ {
			if !held[bit] {
				t.Errorf("hold %d: run starts at %d but bit %d of its word was free", hold, low, bit)
			}
		}
	}
}

// TestPlugBatchDeterministic: the same plugged workload gives the same command order
// and counters twice.
func TestPlugBatchDeterministic(t *testing.T) {
	r := batchRun{name: "det", elevator: "none", op: device.OpRead, hold: 5, nrIOs: 24, offsets: spread(30)}
	a, oa := r.run(t)
	b, ob := r.run(t)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("counts differ (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(oa, ob); diff != "" {
		t.Errorf("command order differs (-first +second):\n%s", diff)
	}
}

// oneCPUSleeper is a task on CPU 0 that records being unblocked.
type oneCPUSleeper struct{ unblocked int }

func (s *oneCPUSleeper) WakeCPU(sim.Time) int     { return 0 }
func (s *oneCPUSleeper) Unblocked(*Bio, sim.Time) { s.unblocked++ }

// TestPlugCacheFreedWhenTaskSleeps: a task whose plug holds cached requests of queue A
// sleeps in blk_mq_get_tag on queue B (another host, all its tags held): the flush
// from schedule (__blk_flush_plug) frees A's cached requests, and the task's bio is
// queued once B frees a tag.
func TestPlugCacheFreedWhenTaskSleeps(t *testing.T) {
	eng := sim.NewEngine()
	mk := func(canQueue int) *Queue {
		h, err := NewHost(eng, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: canQueue})
		if err != nil {
			t.Fatal(err)
		}
		null, err := device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: sim.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		q, err := addTestLUN(h, testLUN{Device: null, QueueDepth: canQueue, Elevator: "none"})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	qa, qb := mk(128), mk(4)
	var c counter
	for i := 0; i < 4; i++ { // hold every tag of B
		qb.SubmitBio(&Bio{Op: device.OpRead, Offset: int64(10*i) * 4096, Length: 4096, End: &c}, 0, true, nil)
	}
	var p Plug
	s := &oneCPUSleeper{}
	tw := TagWaiter{S: s, Plug: &p}
	p.Start(8)
	if got := qa.SubmitBioPlug(&Bio{Op: device.OpRead, Length: 4096, End: &c}, 0, false, &tw, &p); got != Queued {
		t.Fatalf("bio on A: %v, want queued", got)
	}
	if p.Cached() != 7 {
		t.Fatalf("cached after A's batch = %d, want 7", p.Cached())
	}
	if got := qb.SubmitBioPlug(&Bio{Op: device.OpRead, Offset: 1 << 20, Length: 4096, End: &c}, 0, false, &tw, &p); got != Sleeping {
		t.Fatalf("bio on B: %v, want sleeping", got)
	}
	if p.Cached() != 0 || qa.Stats().CachedFreed != 7 {
		t.Errorf("after the sleep: cached %d, A freed %d; want 0, 7", p.Cached(), qa.Stats().CachedFreed)
	}
	eng.Run()
	p.Finish(0)
	eng.Run()
	if s.unblocked != 1 || c.n != 6 {
		t.Errorf("unblocked %d, completed %d; want 1, 6", s.unblocked, c.n)
	}
	if w := qa.HctxOf(0).th.Tags().Bitmap().Sbitmap().Weight(); w != 0 {
		t.Errorf("A tags held after the run = %d, want 0", w)
	}
}
