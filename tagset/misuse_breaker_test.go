package tagset_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/tagset"
)

// panicText runs f and returns its panic's text, or "" if it did not panic.
func panicText(f func()) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = r.(string)
		}
	}()
	f()
	return ""
}

// TestPutDriverTagOutOfRange: PutDriverTag of a tag outside the set panics naming the
// tag and the range, and leaves the active-request count alone. It decremented the
// count first, so with no request active it blamed "nr_active went negative", and
// with one active it corrupted the count before the range check fired.
func TestPutDriverTagOutOfRange(t *testing.T) {
	s, err := tagset.New(tagset.Config{NrHwQueues: 1, QueueDepth: 8, NrCPUs: 1, HostTagset: true})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.AddQueue(tagset.QueueConfig{})
	if err != nil {
		t.Fatal(err)
	}
	h := q.Hctx(0)
	for _, tag := range []int{999, -1} {
		if p := panicText(func() { h.PutDriverTag(tag, 0) }); !strings.Contains(p, "out of range [0, 8)") {
			t.Errorf("PutDriverTag(%d) with nothing held: panic %q, want the tag's range", tag, p)
		}
	}
	tag := h.GetDriverTag(0, false)
	before := q.ActiveRequests()
	if p := panicText(func() { h.PutDriverTag(999, 0) }); !strings.Contains(p, "out of range [0, 8)") {
		t.Errorf("PutDriverTag(999) with a tag held: panic %q, want the tag's range", p)
	}
	if got := q.ActiveRequests(); got != before {
		t.Errorf("active requests %d after the refused put, want %d", got, before)
	}
	h.PutDriverTag(tag, 0)
}

// TestRemoveQueueMisuse: RemoveQueue(nil) is a no-op (it dereferenced nil), and
// removing a queue of another tag set panics naming the fault (it idled that queue's
// hctxs in the other set, changing its fair-share accounting, and removed nothing).
func TestRemoveQueueMisuse(t *testing.T) {
	a, err := tagset.New(tagset.Config{NrHwQueues: 1, QueueDepth: 8, NrCPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tagset.New(tagset.Config{NrHwQueues: 1, QueueDepth: 8, NrCPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p := panicText(func() { a.RemoveQueue(nil) }); p != "" {
		t.Errorf("RemoveQueue(nil) panicked: %q", p)
	}
	qb, err := b.AddQueue(tagset.QueueConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if p := panicText(func() { a.RemoveQueue(qb) }); !strings.Contains(p, "another tag set") {
		t.Errorf("RemoveQueue of another set's queue: panic %q, want one naming the fault", p)
	}
	if len(b.Queues()) != 1 {
		t.Errorf("set b has %d queues, want 1", len(b.Queues()))
	}
}
