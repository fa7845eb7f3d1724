package nvme_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/nvme"
	"github.com/blkmq/blkmq/sim"
)

func TestController(t *testing.T) {
	tests := []struct {
		name string
		got  nvme.Template
		want nvme.Template
	}{
		{"defaults", nvme.Controller(8, 0, 0, 0), nvme.Template{NrHwQueues: 8, QueueDepth: 1023}},
		{"few-queues", nvme.Controller(8, 4, 0, 0), nvme.Template{NrHwQueues: 4, QueueDepth: 1023}},
		{"mqes", nvme.Controller(8, 0, 127, 0), nvme.Template{NrHwQueues: 8, QueueDepth: 127}},
		{"io_queue_depth", nvme.Controller(2, 0, 0, 64), nvme.Template{NrHwQueues: 2, QueueDepth: 63}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("template (-want +got):\n%s", diff)
			}
		})
	}
}

type cpuRecorder struct {
	h    *dispatch.Host
	cpus []int
}

func (r *cpuRecorder) EndBio(*dispatch.Bio, sim.Time, error) {
	r.cpus = append(r.cpus, r.h.CurrentCPU())
}

// TestCompletionOnQueueIRQ: completions arrive on the first CPU of the hctx (the I/O
// queue's vector) and have no budget.
func TestCompletionOnQueueIRQ(t *testing.T) {
	eng := sim.NewEngine()
	h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 2, CanQueue: 63})
	if err != nil {
		t.Fatal(err)
	}
	null, _ := device.NewNull(eng, device.NullParams{Name: "nvme0n1", CompletionNsec: 20 * sim.Microsecond})
	ns, err := nvme.NewNamespace(h, null, dispatch.LUNConfig{Elevator: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Queue().HasBudget() {
		t.Fatal("NVMe namespace has a budget")
	}
	rec := &cpuRecorder{h: h}
	bios := make([]dispatch.Bio, 4)
	for i := range bios {
		bios[i] = dispatch.Bio{Op: device.OpRead, Offset: int64(i) * 8192, Length: 4096, Sync: true, End: rec}
		ns.Queue().SubmitBio(&bios[i], i, true, nil)
		eng.Run()
	}
	// MapModulo is not the default: group-evenly maps CPUs 0-1 to hctx 0, 2-3 to hctx 1.
	if diff := cmp.Diff([]int{0, 0, 2, 2}, rec.cpus); diff != "" {
		t.Errorf("completion CPUs (-want +got):\n%s", diff)
	}
}
