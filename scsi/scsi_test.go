package scsi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
)

type cpuRecorder struct {
	h    *dispatch.Host
	cpus []int
}

func (r *cpuRecorder) EndBio(_ *dispatch.Bio, _ sim.Time, _ error) {
	r.cpus = append(r.cpus, r.h.CurrentCPU())
}

// TestCompletionCPU: bios submitted from CPUs 3, 1 and 2 on a 4-CPU, 1-hctx host
// complete where the LLD's completion runs: scsi_debug's pinned hrtimer on the issuing
// CPU; an HBA's hctx interrupt on the hctx's first CPU (0), sent to the submitting CPU
// by rq_affinity=1 only when the two do not share a cache.
func TestCompletionCPU(t *testing.T) {
	tests := []struct {
		name       string
		completion scsi.Completion
		llc        int
		want       []int
	}{
		{"scsi_debug/hrtimer", scsi.CompleteOnIssueCPU, 0, []int{3, 1, 2}},
		{"hba/irq-shared-llc", scsi.CompleteOnHctxIRQ, 0, []int{0, 0, 0}},
		{"hba/irq-llc-per-2-cpus", scsi.CompleteOnHctxIRQ, 2, []int{3, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			costs := dispatch.DefaultCPUCosts()
			costs.CPUsPerLLC = tt.llc
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 1, CanQueue: 64,
				CPU: dispatch.CPUModel{Costs: costs}})
			if err != nil {
				t.Fatal(err)
			}
			sh, err := scsi.NewHost(h, tt.completion)
			if err != nil {
				t.Fatal(err)
			}
			null, _ := device.NewNull(eng, device.NullParams{Name: "sd", CompletionNsec: 4 * sim.Millisecond})
			lun, err := sh.AddDevice(scsi.DeviceConfig{Device: null, QueueDepth: 8, Queue: dispatch.LUNConfig{Elevator: "none"}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &cpuRecorder{h: h}
			bios := make([]dispatch.Bio, 3)
			for i, cpu := range []int{3, 1, 2} {
				bios[i] = dispatch.Bio{Op: device.OpRead, Offset: int64(i) * 8192, Length: 4096, Sync: true, End: rec}
				lun.Queue().SubmitBio(&bios[i], cpu, true, nil)
				eng.Run()
			}
			if diff := cmp.Diff(tt.want, rec.cpus); diff != "" {
				t.Errorf("completion CPUs (-want +got):\n%s", diff)
			}
			if lun.DeviceBusy() != 0 || lun.Queue().Stats().Completed != 3 {
				t.Errorf("budget busy %d, completed %d after the run; want 0, 3", lun.DeviceBusy(), lun.Queue().Stats().Completed)
			}
		})
	}
}

// TestTemplates checks each host template's values as its driver sets them.
func TestTemplates(t *testing.T) {
	tests := []struct {
		name string
		got  scsi.Template
		want scsi.Template
	}{
		{"storvsc/16cpus", scsi.Storvsc(16, 0, 4),
			scsi.Template{Name: "storvsc", CanQueue: 1024, CmdPerLun: 2048, NrHwQueues: 16,
				Completion: scsi.CompleteOnVMBusChannel, ChannelCPUs: []int{0, 4, 8, 12}}},
		{"storvsc/max_hw_queues", scsi.Storvsc(16, 4, 4),
			scsi.Template{Name: "storvsc", CanQueue: 1024, CmdPerLun: 2048, NrHwQueues: 4,
				Completion: scsi.CompleteOnVMBusChannel, ChannelCPUs: []int{0, 4, 8, 12}}},
		{"smartpqi", scsi.Smartpqi(1013, 28),
			scsi.Template{Name: "smartpqi", CanQueue: 1013, CmdPerLun: 1013, NrHwQueues: 28, HostTagset: true}},
		{"scsi_debug/default", scsi.ScsiDebug(192, 0, 1),
			scsi.Template{Name: "scsi_debug", CanQueue: 192, CmdPerLun: 192, NrHwQueues: 1, Completion: scsi.CompleteOnIssueCPU}},
		{"scsi_debug/host_max_queue", scsi.ScsiDebug(192, 128, 4),
			scsi.Template{Name: "scsi_debug", CanQueue: 128, CmdPerLun: 192, NrHwQueues: 4, HostTagset: true, Completion: scsi.CompleteOnIssueCPU}},
		{"generic", scsi.Generic(256, 32, 8, false),
			scsi.Template{Name: "generic", CanQueue: 256, CmdPerLun: 32, NrHwQueues: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("template (-want +got):\n%s", diff)
			}
			if err := tt.got.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}
