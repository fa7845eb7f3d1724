package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// TestDriverQueueLimits checks each driver's request-size limits as 6.1 sets them
// (sysfs queue/max_sectors_kb, max_hw_sectors_kb, max_segments, max_segment_size).
func TestDriverQueueLimits(t *testing.T) {
	tests := []struct {
		name string
		d    Description
		want dispatch.QueueLimits
	}{
		// sdebug_driver_template: -1U sectors, SG_MAX_SEGMENTS, -1U segment size;
		// sd: opt_blks 1024 × 512 B = 512 KiB
		{"scsi_debug", Description{Devices: []string{"scsi_debug"}},
			dispatch.QueueLimits{MaxSectors: 1024, MaxHwSectors: uintMaxSectors &^ 1, MaxSegments: 2048, MaxSegmentSize: uintMaxSectors, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		// null_blk: BLK_SAFE_MAX_SECTORS (255) for both, blk_set_default_limits's segments
		{"null_blk", Description{Devices: []string{"null_blk"}},
			dispatch.QueueLimits{MaxSectors: 255, MaxHwSectors: 255, MaxSegments: 128, MaxSegmentSize: 65536, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		{"null_blk max_sectors=1024", Description{Devices: []string{"null_blk max_sectors=1024"}},
			dispatch.QueueLimits{MaxSectors: 1024, MaxHwSectors: 1024, MaxSegments: 128, MaxSegmentSize: 65536, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		// nvme: NVME_MAX_KB_SZ 4 MiB, NVME_MAX_SEGS 127, max_sectors BLK_DEF_MAX_SECTORS
		{"nvme", Description{Devices: []string{"nvme"}},
			dispatch.QueueLimits{MaxSectors: 2560, MaxHwSectors: 8192, MaxSegments: 127, MaxSegmentSize: uintMaxSectors, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		// MDTS 5: 32 × 4 KiB = 128 KiB, 33 segments
		{"nvme mdts=5", Description{Devices: []string{"nvme mdts=5"}},
			dispatch.QueueLimits{MaxSectors: 256, MaxHwSectors: 256, MaxSegments: 33, MaxSegmentSize: uintMaxSectors, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		// storvsc_probe with the assumed 512 KiB max_transfer_bytes
		{"cloud (storvsc)", Description{Devices: []string{"cloud"}},
			dispatch.QueueLimits{MaxSectors: 1024, MaxHwSectors: 1024, MaxSegments: 129, MaxSegmentSize: uintMaxSectors, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		{"cloud max_transfer_kb=2048", Description{Host: "storvsc max_transfer_kb=2048", Devices: []string{"cloud"}},
			dispatch.QueueLimits{MaxSectors: 2560, MaxHwSectors: 4096, MaxSegments: 513, MaxSegmentSize: uintMaxSectors, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		// generic SCSI host: SCSI_DEFAULT_MAX_SECTORS, SG_ALL, BLK_MAX_SEGMENT_SIZE; sd rw_max
		{"generic (ssd)", Description{Devices: []string{"ssd"}},
			dispatch.QueueLimits{MaxSectors: 1024, MaxHwSectors: 1024, MaxSegments: 128, MaxSegmentSize: 65536, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
		{"set max_sectors_kb=128", Description{Devices: []string{"scsi_debug"}, Set: []string{"queue/max_sectors_kb=128"}},
			dispatch.QueueLimits{MaxSectors: 256, MaxHwSectors: uintMaxSectors &^ 1, MaxSegments: 2048, MaxSegmentSize: uintMaxSectors, LogicalBlockSize: 512, PhysicalBlockSize: 512}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.d.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, r.Config.LUNs[0].Limits); d != "" {
				t.Errorf("limits (-want +got):\n%s", d)
			}
		})
	}
}

func TestMaxSectorsAboveHw(t *testing.T) {
	_, err := Description{Devices: []string{"null_blk"}, Set: []string{"queue/max_sectors_kb=128"}}.Resolve()
	want := "setup: queue/max_sectors_kb=128: allowed: [4, queue/max_hw_sectors_kb 127] (queue_max_sectors_store refuses it with EINVAL)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestNVMeDevice(t *testing.T) {
	r, err := Description{CPUs: 8, Devices: []string{"nvme io_queue_depth=256 namespaces=2 max_queues=4"}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	h := r.Config.Host
	got := []any{h.Driver, h.CanQueue, h.NrHwQueues, r.LUNs, len(r.Config.Hosts), r.Config.LUNs[1].Host}
	want := []any{stack.DriverNVMe, 255, 4, []string{"/dev/nvme0n1", "/dev/nvme0n2"}, 0, 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("[driver, can_queue, nr_hw_queues, LUNs, extra hosts, host of ns 2] (-want +got):\n%s", d)
	}
	for _, bad := range []struct{ desc, want string }{
		{"nvme write_queues=2", "nvme parameter write_queues=2: allowed: an integer in [0, 0]"},
		{"nvme io_queue_depth=1", "nvme parameter io_queue_depth=1: allowed: an integer in [2, 65535]"},
	} {
		_, err := Description{Devices: []string{bad.desc}}.Resolve()
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want it to contain %q", bad.desc, err, bad.want)
		}
	}
}

// TestSeveralDriverKinds: null_blk, nvme and scsi_debug in one run are three hosts
// with their own drivers and limits; SCSI disks are named in --device order.
func TestSeveralDriverKinds(t *testing.T) {
	r, err := Description{Devices: []string{"ssd", "null_blk", "nvme", "scsi_debug max_luns=2"}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	var drivers []stack.Driver
	for i := range 1 + len(c.Hosts) {
		h := c.Host
		if i > 0 {
			h = c.Hosts[i-1]
		}
		drivers = append(drivers, h.Driver)
	}
	var hostOf, maxSectors []int
	for _, l := range c.LUNs {
		hostOf, maxSectors = append(hostOf, l.Host), append(maxSectors, l.Limits.MaxSectors)
	}
	got := []any{r.LUNs, drivers, hostOf, maxSectors}
	want := []any{[]string{"/dev/sda", "/dev/nullb0", "/dev/nvme0n1", "/dev/sdb", "/dev/sdc"},
		[]stack.Driver{stack.DriverSCSI, stack.DriverNullBlk, stack.DriverNVMe, stack.DriverSCSI},
		[]int{0, 1, 2, 3, 3}, []int{1024, 255, 2560, 1024, 1024}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("[LUNs, host drivers, LUN hosts, max_sectors] (-want +got):\n%s", d)
	}
	_, err = Description{Devices: []string{"null_blk", "null_blk nr_devices=2"}}.Resolve()
	if err == nil || !strings.Contains(err.Error(), "null_blk is one module, loaded once") {
		t.Errorf("null_blk twice: err = %v", err)
	}
}
