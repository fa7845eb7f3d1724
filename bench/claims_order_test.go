package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSortLongestFirst: runs with a cost hint start first, longest first (a variant's
// own hint before its scenario's), the others after them in name order.
func TestSortLongestFirst(t *testing.T) {
	keys := []runKey{
		{"budget-map", "budget=map"},
		{"storvsc", "tags=shared"},
		{"storvsc-nr-requests", "tags=shared"},
		{"legacy-tags", "formula=new"},
		{"storvsc-nr-requests", "tags=per-hctx"},
		{"budget-map", "budget=skip"},
		{"storvsc", "tags=per-hctx"},
	}
	sortLongestFirst(keys)
	want := []runKey{
		{"storvsc-nr-requests", "tags=per-hctx"},
		{"storvsc", "tags=per-hctx"},
		{"storvsc", "tags=shared"},
		{"storvsc-nr-requests", "tags=shared"},
		{"budget-map", "budget=map"},
		{"budget-map", "budget=skip"},
		{"legacy-tags", "formula=new"},
	}
	if diff := cmp.Diff(want, keys, cmp.AllowUnexported(runKey{})); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
