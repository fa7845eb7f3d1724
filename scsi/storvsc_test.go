package scsi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/scsi"
)

// TestStorvscChannelCPU checks storvsc_do_io's outgoing-channel choice: a channel's
// own target CPU sends on the next channel CPU (for_each_cpu_wrap from cpu + 1), any
// other CPU on the channel get_og_chn hashes it to (cpu mod channels).
func TestStorvscChannelCPU(t *testing.T) {
	tests := []struct {
		name     string
		nrCPUs   int
		perSub   int
		channels []int
		complete []int // completion CPU of a command submitted on CPU i
	}{
		{"16cpus/4-per-sub", 16, 4, []int{0, 4, 8, 12},
			[]int{4, 4, 8, 12, 8, 4, 8, 12, 12, 4, 8, 12, 0, 4, 8, 12}},
		{"4cpus/4-per-sub/one-channel", 4, 4, []int{0}, []int{0, 0, 0, 0}},
		{"8cpus/2-per-sub", 8, 2, []int{0, 2, 4, 6}, []int{2, 2, 4, 6, 6, 2, 0, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chans := scsi.StorvscChannelCPUs(tt.nrCPUs, tt.perSub)
			if diff := cmp.Diff(tt.channels, chans); diff != "" {
				t.Fatalf("StorvscChannelCPUs(%d, %d) (-want +got):\n%s", tt.nrCPUs, tt.perSub, diff)
			}
			got := make([]int, tt.nrCPUs)
			for cpu := range got {
				got[cpu] = scsi.StorvscChannelCPU(cpu, chans)
			}
			if diff := cmp.Diff(tt.complete, got); diff != "" {
				t.Errorf("completion CPU by submitting CPU (-want +got):\n%s", diff)
			}
		})
	}
}
