package setup

import (
	"fmt"
	"strconv"

	"github.com/blkmq/blkmq/dispatch"
)

// Request-size limits of the request queues (struct queue_limits), as each driver sets
// them and sysfs queue/ shows them. An I/O larger than they allow is split into several
// requests (dispatch/split.go).

const (
	// scsiDefaultMaxSectorsKB is SCSI_DEFAULT_MAX_SECTORS (1024 sectors) in KiB: a
	// Scsi_Host's max_sectors when its template sets none (scsi_host_alloc), and so
	// the queue's max_hw_sectors (__scsi_init_queue → blk_queue_max_hw_sectors).
	scsiDefaultMaxSectorsKB = 512
	// sgAll is SG_ALL (SG_CHUNK_SIZE, 128): the sg_tablesize most SCSI templates
	// give, assumed for the generic host; it becomes max_segments.
	sgAll = 128
	// sgMaxSegments is SG_MAX_SEGMENTS (2048): __scsi_init_queue caps max_segments
	// at it; scsi_debug's template asks for it.
	sgMaxSegments = 2048
	// blkMaxSegments is BLK_MAX_SEGMENTS (128): blk_set_default_limits's
	// max_segments, which null_blk keeps.
	blkMaxSegments = 128
	// blkMaxSegmentSize is BLK_MAX_SEGMENT_SIZE (64 KiB): the default
	// max_segment_size (blk_set_default_limits, and scsi_host_alloc when the
	// template sets none).
	blkMaxSegmentSize = 65536
	// uintMaxSectors is -1U sectors: scsi_debug's template max_sectors, shown by
	// sysfs as max_hw_sectors_kb 2147483647.
	uintMaxSectors = 1<<32 - 1
	// nvmeMaxKBSize is NVME_MAX_KB_SZ (4096 KiB): the PCIe driver's transfer limit
	// (nvme_pci_enable sets ctrl->max_hw_sectors to it, capped by MDTS).
	nvmeMaxKBSize = 4096
	// nvmeMaxSegs is NVME_MAX_SEGS (127, drivers/nvme/host/pci.c in 6.1): the
	// PRP/SGL entries of one command, ctrl->max_segments.
	nvmeMaxSegs = 127
	// nvmeCtrlPageSize is NVME_CTRL_PAGE_SIZE (4 KiB).
	nvmeCtrlPageSize = 4096
	// storvscDefaultMaxTransferKB is the max_transfer_bytes the Hyper-V host reports
	// to storvsc_probe, in KiB: assumed 512 KiB (a host property, not in the driver
	// source; the driver makes max_sectors = max_transfer_bytes >> 9 and
	// sg_tablesize = max_transfer_bytes / 4 KiB + 1).
	storvscDefaultMaxTransferKB = 512
)

// setHwLimits sets the driver's limits: max_hw_sectors (sectors), max_segments and
// max_segment_size (bytes), recording source for each.
func (s *state) setHwLimits(maxHwSectors int64, maxSegments int, maxSegmentSize int64, source string) {
	s.maxHwSectors = int(min(maxHwSectors, uintMaxSectors&^1))
	s.maxSegments, s.maxSegmentSize = maxSegments, maxSegmentSize
	for _, k := range []string{"queue/max_hw_sectors_kb", "queue/max_segments", "queue/max_segment_size"} {
		s.src[k] = source
	}
}

// setMaxSectors sets max_sectors (sectors) as a driver or sd does, recording source.
func (s *state) setMaxSectors(sectors int, source string) {
	s.maxSectors = sectors
	s.src["queue/max_sectors_kb"] = source
}

// sdRwMax is sd_revalidate_disk's max_sectors for a disk that reports no optimal
// transfer length: min(max_hw_sectors, BLK_DEF_MAX_SECTORS).
func (s *state) sdRwMax(source string) {
	s.setMaxSectors(min(s.maxHwSectors, 2*blkDefMaxSectorsKB), source+" (sd: min(max_hw_sectors, BLK_DEF_MAX_SECTORS))")
}

// queueLimits returns the limits for dispatch.
func (s *state) queueLimits() dispatch.QueueLimits {
	return dispatch.QueueLimits{MaxSectors: s.maxSectors, MaxHwSectors: s.maxHwSectors, MaxSegments: s.maxSegments,
		MaxSegmentSize: s.maxSegmentSize, LogicalBlockSize: s.logicalBS, PhysicalBlockSize: s.logicalBS}
}

// checkLimits applies queue_max_sectors_store's rule to the final values:
// max_sectors_kb in [PAGE_SIZE/1024, max_hw_sectors_kb], else -EINVAL.
func (s *state) checkLimits() error {
	hwKB := s.maxHwSectors / 2
	if kb := s.maxSectors / 2; kb < 4 || kb > hwKB {
		return fmt.Errorf("setup: queue/max_sectors_kb=%d: allowed: [4, queue/max_hw_sectors_kb %d] (queue_max_sectors_store refuses it with EINVAL)", kb, hwKB)
	}
	return nil
}

func addLimitKeys() {
	addKey(&key{name: "queue/max_sectors_kb", doc: "largest request (KiB): merges stop and I/O is split there (writable in sysfs)",
		allowed: "[4, queue/max_hw_sectors_kb]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 4, 1<<30)
			if err == nil {
				s.maxSectors = 2 * n
			}
			return err
		},
		get: func(s *state) string { return strconv.Itoa(s.maxSectors / 2) }})
	addKey(&key{name: "queue/max_hw_sectors_kb", doc: "the driver's request size limit (KiB; read-only in sysfs: set here to model another controller)",
		allowed: "[4, 2147483647]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 4, 1<<31-1)
			if err == nil {
				s.maxHwSectors = 2 * n
			}
			return err
		},
		get: func(s *state) string { return strconv.Itoa(s.maxHwSectors / 2) }})
	addKey(&key{name: "queue/max_segments", doc: "scatter-gather entries per request, one per 4 KiB page of the buffer (read-only in sysfs)",
		allowed: "[1, 65535]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 1, 65535)
			if err == nil {
				s.maxSegments = n
			}
			return err
		},
		get: func(s *state) string { return strconv.Itoa(s.maxSegments) }})
	addKey(&key{name: "queue/max_segment_size", doc: "largest scatter-gather entry (bytes; read-only in sysfs; a 4 KiB page is one entry whatever its value)",
		allowed: "[4096, 4294967295]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 4096, 1<<32-1)
			if err == nil {
				s.maxSegmentSize = int64(n)
			}
			return err
		},
		get: func(s *state) string { return strconv.FormatInt(s.maxSegmentSize, 10) }})
}
