package dispatch_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/google/go-cmp/cmp"
)

// TestKernelPre415: the constructor's range, and the switches it sets for v4.13.
func TestKernelPre415(t *testing.T) {
	for _, tc := range []struct {
		name, version, err string
	}{
		{"9c/4.10-too-old", "4.10", `out of range [4.11, 4.14]`},
		{"9c/4.15-has-budget", "4.15", `out of range [4.11, 4.14]`},
		{"9c/garbage", "four", `want MAJOR.MINOR`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dispatch.KernelPre415(tc.version)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("KernelPre415(%q) error %v, want it to contain %q", tc.version, err, tc.err)
			}
		})
	}
	o, err := dispatch.KernelPre415("4.13")
	if err != nil {
		t.Fatal(err)
	}
	want := dispatch.Pre415Options{DequeueBeforeBudget: true, DispatchListHead: true,
		SchedAfterNoProgress: true, SchedNrRequestsMaxRQ: true, NoDispatchBusy: true}
	if d := cmp.Diff(want, o.Pre415); d != "" {
		t.Errorf("KernelPre415(4.13).Pre415 (-want +got):\n%s", d)
	}
	if o.SwQueueDequeue != dispatch.DequeueFlushAll || o.SCSIRestart != dispatch.RestartEveryCompletion {
		t.Errorf("KernelPre415(4.13): SwQueueDequeue %d SCSIRestart %d, want flush-all and every-completion", o.SwQueueDequeue, o.SCSIRestart)
	}
	if !o.AIOPlugAlways {
		t.Errorf("KernelPre415(4.13).AIOPlugAlways = false, want true (AIO_PLUG_THRESHOLD is v5.1)")
	}
	if o415, _ := dispatch.Kernel("4.15"); o415.Pre415 != (dispatch.Pre415Options{}) {
		t.Errorf("Kernel(4.15).Pre415 = %+v, want zero", o415.Pre415)
	}
}
