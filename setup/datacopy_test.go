package setup

import (
	"strings"
	"testing"
)

// TestCopiesData: scsi_debug copies each command's data with the CPU in
// queuecommand (do_device_access → sg_copy_buffer), so its host is marked for the
// emulated copy cost (stack.Host.CopiesData); null_blk (memory_backed=0) and the
// HBA presets move data by DMA or not at all; nor does scsi_debug with fake_rw=1
// (scsi_debug_queuecommand skips the response function of its READs and WRITEs).
func TestCopiesData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		device string
		want   bool
	}{
		{"scsi_debug", "scsi_debug delay=0 ndelay=2000000 submit_queues=2", true},
		{"scsi_debug fake_rw=1", "scsi_debug delay=0 ndelay=2000000 submit_queues=2 fake_rw=1", false},
		{"scsi_debug fake_rw=0", "scsi_debug delay=0 fake_rw=0", true},
		{"null_blk", "null_blk irqmode=2 completion_nsec=2000000", false},
		{"nvme", "nvme", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: []string{tc.device}}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			cfg := r.WithSeed(1, 0)
			if cfg.Host.CopiesData != tc.want {
				t.Errorf("Host.CopiesData = %v, want %v", cfg.Host.CopiesData, tc.want)
			}
			for i, h := range cfg.Hosts {
				if h.CopiesData != tc.want {
					t.Errorf("Hosts[%d].CopiesData = %v, want %v", i, h.CopiesData, tc.want)
				}
			}
		})
	}
}

// TestFakeRWRange: fake_rw is a flag; anything but 0 or 1 is refused with the range.
func TestFakeRWRange(t *testing.T) {
	_, err := Description{Devices: []string{"scsi_debug fake_rw=2"}}.Resolve()
	if err == nil || !strings.Contains(err.Error(), "fake_rw") {
		t.Fatalf("fake_rw=2: err %v, want an error naming fake_rw", err)
	}
}
