package tagset_test

import (
	"context"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/tagset"
)

// TestZeroValueTypes: the zero RequestQueue, Hctx, Tags and TagSet (not made by
// TagSet.AddQueue / New) are refused naming the constructor: the methods that
// return an error return one, the others panic with that message. They
// dereferenced a nil tag set (runtime error: invalid memory address).
func TestZeroValueTypes(t *testing.T) {
	var q tagset.RequestQueue
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"UpdateNrRequests", func() error { return q.UpdateNrRequests(4) }},
		{"SwitchElevator", func() error { return q.SwitchElevator(true) }},
	} {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), "AddQueue") {
			t.Errorf("zero RequestQueue.%s: error %v, want one naming TagSet.AddQueue", c.name, err)
		}
	}
	var s tagset.TagSet
	if _, err := s.AddQueue(tagset.QueueConfig{}); err == nil || !strings.Contains(err.Error(), "tagset.New") {
		t.Errorf("zero TagSet.AddQueue: error %v, want one naming tagset.New", err)
	}
	var h tagset.Hctx
	var tg tagset.Tags
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"RequestQueue.TimeoutWork", "AddQueue", func() { q.TimeoutWork(1, 0) }},
		{"RequestQueue.RequestStarted", "AddQueue", func() { q.RequestStarted(1) }},
		{"RequestQueue.RqTimeout", "AddQueue", func() { q.RqTimeout() }},
		{"Hctx.GetDriverTag", "AddQueue", func() { h.GetDriverTag(0, false) }},
		{"Hctx.PutDriverTag", "AddQueue", func() { h.PutDriverTag(0, 0) }},
		{"Hctx.PutSchedTag", "AddQueue", func() { h.PutSchedTag(0, 0) }},
		{"Hctx.MayQueue", "AddQueue", func() { h.MayQueue(nil) }},
		{"Hctx.TagBusy", "AddQueue", func() { h.TagBusy() }},
		{"Hctx.MarkTagWait", "AddQueue", func() { h.MarkTagWait(0, false) }},
		{"Hctx.GetTag", "AddQueue", func() { h.GetTag(context.Background(), 0, false) }},
		{"Hctx.GetTagsBatch", "AddQueue", func() { h.GetTagsBatch(0, 4, 0, false) }},
		{"Hctx.PutTagsBatch", "AddQueue", func() { h.PutTagsBatch([]int{0}, false, 0) }},
		{"Hctx.ActiveRequests", "AddQueue", func() { h.ActiveRequests() }},
		{"Tags.Put", "tagset.New", func() { tg.Put(0, 0) }},
		{"Tags.Busy", "tagset.New", func() { tg.Busy() }},
		{"Tags.NrTags", "tagset.New", func() { tg.NrTags() }},
	} {
		if p := panicText(c.f); !strings.Contains(p, c.want) {
			t.Errorf("zero %s: panic %q, want one naming %s", c.name, p, c.want)
		}
	}
}
