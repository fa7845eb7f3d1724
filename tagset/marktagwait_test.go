package tagset_test

import (
	"testing"

	"github.com/blkmq/blkmq/tagset"
)

func TestMarkTagWait(t *testing.T) {
	t.Run("unshared-sets-restart", func(t *testing.T) {
		s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 1})
		h := mustQueue(t, s, tagset.QueueConfig{Elevator: true}).Hctx(0)
		tag := h.GetDriverTag(0, false)
		if _, res := h.MarkTagWait(0, false); res != tagset.TagWaitRestart {
			t.Errorf("MarkTagWait = %v, want TagWaitRestart", res)
		}
		h.PutDriverTag(tag, 0)
		if got, res := h.MarkTagWait(0, false); res != tagset.TagWaitGot || got != tag {
			t.Errorf("MarkTagWait after free = %d, %v; want the tag", got, res)
		}
	})
	t.Run("shared-hooks-once-and-wakes", func(t *testing.T) {
		s := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 2, HostTagset: true})
		a := mustQueue(t, s, tagset.QueueConfig{Elevator: true})
		b := mustQueue(t, s, tagset.QueueConfig{Elevator: true})
		t0, t1 := b.Hctx(0).GetDriverTag(0, false), b.Hctx(1).GetDriverTag(0, false)
		h := a.Hctx(1)
		woken := 0
		h.OnTagWake = func(x *tagset.Hctx) {
			if x != h {
				t.Errorf("OnTagWake for hctx %d", x.Index())
			}
			woken++
		}
		if _, res := h.MarkTagWait(0, false); res != tagset.TagWaitHooked || !h.DispatchWaitQueued() {
			t.Fatalf("MarkTagWait = %v queued=%v, want hooked", res, h.DispatchWaitQueued())
		}
		if _, res := h.MarkTagWait(0, false); res != tagset.TagWaitAlreadyHooked {
			t.Errorf("second MarkTagWait = %v, want TagWaitAlreadyHooked", res)
		}
		if ws := s.Tags(0).Bitmap().WsActive(); ws != 1 {
			t.Errorf("ws_active = %d, want 1", ws)
		}
		b.Hctx(0).PutDriverTag(t0, 0)
		if woken != 1 || h.DispatchWaitQueued() {
			t.Errorf("after a free: woken %d, queued %v; want 1, false", woken, h.DispatchWaitQueued())
		}
		if ws := s.Tags(0).Bitmap().WsActive(); ws != 0 {
			t.Errorf("ws_active after wake = %d, want 0", ws)
		}
		if got, res := h.MarkTagWait(0, false); res != tagset.TagWaitGot || h.DispatchWaitQueued() {
			t.Errorf("MarkTagWait with a free tag = %d, %v; want got and unhooked", got, res)
		}
		b.Hctx(1).PutDriverTag(t1, 0)
	})
}

func TestTagAllocRunsHctxAndShallow(t *testing.T) {
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 64, RoundRobin: true})
	h := mustQueue(t, s, tagset.QueueConfig{Elevator: true, NrRequests: 64}).Hctx(0)
	runs := 0
	var got []int
	for {
		a := &tagset.TagAlloc{Hctx: h, ShallowDepth: 4, RunHctx: func(*tagset.Hctx) { runs++ },
			Woken: func(*tagset.TagAlloc) {}}
		if a.Start() != tagset.AllocGot {
			if !a.Waiting() {
				t.Fatal("not sleeping after failure")
			}
			a.Cancel()
			break
		}
		got = append(got, a.Tag)
	}
	// depth 64 → shift 4: 4 words of 16, a shallow depth of 4 per word.
	if len(got) != 16 || runs != 1 {
		t.Errorf("shallow allocations %d (tags %v), hctx runs %d; want 16 and 1", len(got), got, runs)
	}
	if ws := h.SchedTags().Bitmap().WsActive(); ws != 0 {
		t.Errorf("ws_active after Cancel = %d", ws)
	}
}
