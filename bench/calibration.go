package bench

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// Storvsc000Params is the disk of source 000 (storvsc "Hardware queues share
// blk_mq_tags"): a 1 TiB disk whose combined VM + disk limit is 5000 IOPS and 200 MB/s
// (sourced: the seed states both). Those are exactly the limits of an Azure Premium SSD
// P30, so the disk is device.AzureP30Params, named for the scenario; its base latency
// (2 ms) and burst window are assumptions (StorvscParams lists each value with its
// basis, and --sensitivity shows what they move).
func Storvsc000Params() device.ThrottledParams {
	p := device.AzureP30Params()
	p.Name = "storvsc-p30"
	return p
}

// SRP002Params is the SRP target of source 002 ("blk-mq-sched: improve SCSI-MQ
// performance": fio libaio 4 KiB direct, 64 jobs × queue depth 64). The source names
// neither the target nor the HCA, so two values are calibrated on its own tables
// (SCSIMQParams lists the cells and the figures that follow from them):
//   - ControllerOverhead 7 µs: random 4 KiB I/O cannot merge, and every blk-mq column
//     gets ~142K read IOPS (142.99K, 142.46K, 142.04K, 142.72K), so the target's
//     per-command cost is 1 / 142.7K ≈ 7.0 µs.
//   - LinkBytesPerSec 2.41e9: the best sequential figure (legacy deadline read,
//     587.81K × 4096 B) taken as the effective bandwidth cap. No independent figure
//     replaces it: a 4x QDR InfiniBand link carries 32 Gb/s of data (4.0 GB/s), 4x FDR
//     54.5 Gb/s (6.8 GB/s) (8b/10b and 64b/66b encodings, e.g. Advanced Clustering's
//     "InfiniBand Types and Speeds"), both above 2.41 GB/s, so the link is not what
//     bound the published cells; what did (target CPU, HCA message rate) is unknown.
//
// Not modelled: a write waits for the target's RDMA READ of its data before it runs
// (ib_srpt srpt_write_pending, srpt_rdma_read_done), with at most 4 READs outstanding
// per channel (srpt_cm_req_recv's initiator_depth 4 against srp_send_req's
// responder_resources 4). That depth limits writes only and, at a few µs per READ round
// trip, is far from binding at these sizes; the extra completion per write is folded
// into the one ControllerOverhead.
//
// Assumptions: 64 parallel units (the 64 jobs never find the media the bottleneck),
// 10 µs media latency (a RAM-backed target; unknown), 128 KiB chunks, internal
// bandwidth 8 GB/s (above the link, so the link binds), no queue limit.
func SRP002Params() device.SSDParams {
	return device.SSDParams{
		Name:                "srp-target",
		ParallelUnits:       64,
		ControllerOverhead:  7 * sim.Microsecond,
		ReadLatency:         10 * sim.Microsecond,
		WriteLatency:        10 * sim.Microsecond,
		ChunkBytes:          128 << 10,
		InternalBytesPerSec: 8e9,
		LinkBytesPerSec:     2.41e9,
	}
}
