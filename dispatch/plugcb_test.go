package dispatch_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/dispatch"
)

type unplugRec struct {
	name  string
	calls *[]string
}

func (u *unplugRec) Unplug(cpu int, fromSchedule bool) {
	s := u.name + "@" + string(rune('0'+cpu))
	if fromSchedule {
		s += "/schedule"
	}
	*u.calls = append(*u.calls, s)
}

// TestPlugCallbacks: unplug callbacks (blk_check_plugged) are added once each, run in
// order on the task's CPU when the plug is finished, and leave the list as they run,
// so a restarted plug starts with none.
func TestPlugCallbacks(t *testing.T) {
	var calls []string
	a, b := &unplugRec{"a", &calls}, &unplugRec{"b", &calls}
	var p dispatch.Plug
	p.Start(4)
	p.AddCallback(a)
	p.AddCallback(b)
	p.AddCallback(a) // already on the list
	p.Finish(2)
	p.Start(1)
	p.Finish(1)
	if diff := cmp.Diff([]string{"a@2", "b@2"}, calls); diff != "" {
		t.Errorf("unplug calls (-want +got):\n%s", diff)
	}
	defer func() {
		if recover() == nil {
			t.Error("AddCallback on an inactive plug did not panic")
		}
	}()
	p.AddCallback(a)
}
