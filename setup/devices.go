package setup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/nvme"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// lun is one resolved LUN: its name (what fio jobs target) and device builder.
type lun struct {
	name  string
	kind  string
	build func(eng *sim.Engine) (device.Device, error)
	// capacity is the device size (bytes) fio's size=0 covers; 0 = unknown.
	capacity int64
	// bounded: the device model rejects (panics on) I/O beyond capacity (device.HDD);
	// capacityNote: where the capacity comes from, for errors.
	bounded      bool
	capacityNote string
	// driver is the block driver of the LUN's host, nullBlk its null_blk parameters,
	// completion where a SCSI LLD completes (scsi_debug: its hrtimer on the issuing
	// CPU).
	driver     stack.Driver
	nullBlk    stack.NullBlk
	completion scsi.Completion
	// copiesData: the LLD copies every command's data with the CPU (scsi_debug).
	copiesData bool
	// ownTagSet: the LUN is a device with a tag set of its own (null_blk without
	// shared_tags: nullb->__tag_set per device), a host of its own in stack.Config.
	ownTagSet bool
}

// applyDrivers sets each LUN's driver and, for devices with a tag set of their own,
// adds a host per device (same parameters as the first) to cfg, whose LUNs are s.luns
// in order.
func (s *state) applyDrivers(cfg *stack.Config) {
	for i, l := range s.luns {
		if i == 0 {
			cfg.Host.Driver, cfg.Host.NullBlk, cfg.Host.Completion = l.driver, l.nullBlk, l.completion
			cfg.Host.CopiesData = l.copiesData
			if s.vmbusChannelCPUs != nil {
				cfg.Host.Completion, cfg.Host.ChannelCPUs = scsi.CompleteOnVMBusChannel, s.vmbusChannelCPUs
			}
			continue
		}
		if l.ownTagSet {
			cfg.Hosts = append(cfg.Hosts, cfg.Host)
			cfg.LUNs[i].Host = len(cfg.Hosts)
		}
	}
}

// deviceKind describes one --device KIND.
type deviceKind struct {
	doc string
	// driver kinds (scsi_debug, null_blk) are their own host: they set host/ keys
	// and must be the only device.
	driver bool
	// host is the --host kind used when none is given (non-driver kinds).
	host string
	// parse applies the description to s (LUNs, host keys) with source where.
	parse func(s *state, pairs [][2]string, where, source string) error
}

var deviceKinds = map[string]deviceKind{
	"scsi_debug": {doc: "scsi_debug RAM disk (drivers/scsi/scsi_debug.c)", driver: true, parse: parseScsiDebug},
	"null_blk":   {doc: "null_blk (drivers/block/null_blk)", driver: true, parse: parseNullBlk},
	"nvme":       {doc: "NVMe PCIe controller and its namespaces (drivers/nvme/host/pci.c; media as device.SSD)", driver: true, parse: parseNVMe},
	"cloud":      {doc: "throttled cloud disk (device.Throttled; default the seed-000 Azure P30)", host: "storvsc", parse: parseCloud},
	"ssd":        {doc: "SSD / storage target (device.SSD; default the seed-002 SRP target)", host: "generic", parse: parseSSD},
	"hdd":        {doc: "hard disk (device.HDD; model=cheetah-15k7 default, or cheetah-15k3)", host: "generic", parse: parseHDD},
}

// DeviceKinds returns the --device kinds, sorted.
func DeviceKinds() []string {
	var out []string
	for k := range deviceKinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// setDerived sets a host/queue key from a driver's parameters, recording source.
func (s *state) setDerived(name string, v int, source string) {
	k := keys[name]
	_ = k.set(s, fmt.Sprint(v))
	s.src[name] = source
}

// scsiDebugInert are scsi_debug module parameters (modinfo, Debian 6.1) that do not
// change what the model simulates.
var scsiDebugInert = []string{"ato", "cdb_len", "clustering", "dif", "dix", "dsense",
	"guard", "host_lock", "inq_product", "inq_rev", "inq_vendor", "lbprz", "lbpu", "lbpws",
	"lbpws10", "lowest_aligned", "lun_format", "no_lun_0", "no_rwlock", "no_uld", "num_parts",
	"opt_xferlen_exp", "per_host_store", "physblk_exp", "ptype", "removable", "scsi_level",
	"statistics", "strict", "tur_ms_to_ready", "unmap_alignment", "unmap_granularity",
	"unmap_max_blocks", "unmap_max_desc", "uuid_ctl", "vpd_use_hostno", "wp",
	"write_same_length",
	// act only with zbc= (refused unless none) or with an opts= error-injection bit
	// (refused unless 0): no effect otherwise, in the kernel too
	"zone_cap_mb", "zone_max_open", "zone_nr_conv", "zone_size_mb",
	"medium_error_count", "medium_error_start"}

// sdebugCanQueue is SDEBUG_CANQUEUE (scsi.SdebugCanQueue): the max_queue limit and
// default, and DEF_CMD_PER_LUN.
const sdebugCanQueue = scsi.SdebugCanQueue

// parseScsiDebug models scsi_debug's host and LUNs: can_queue = host_max_queue if set
// (which also sets host_tagset, as sdebug_driver_probe does) else max_queue;
// nr_hw_queues = submit_queues (capped at the CPUs); cmd_per_lun = 192; each LUN a
// Null device completing after delay jiffies (at system/hz) or ndelay ns, from an
// hrtimer on the CPU that issued the command (scsi.ScsiDebug); a full queue answers
// SCSI_MLQUEUE_HOST_BUSY as schedule_resp does; random=1 draws each delay from
// [0, delay) (device.NullParams.RandomDelay).
// queue/max_sectors_kb is opt_blks × sector_size (default 1024 × 512 B = 512 KiB):
// sd_revalidate_disk takes the Block Limits VPD optimal transfer length, which
// scsi_debug reports as opt_blks, as the request size limit when it is at least
// one 4 KiB page (else BLK_DEF_MAX_SECTORS, 1280 KiB).
func parseScsiDebug(s *state, pairs [][2]string, where, source string) error {
	delay, ndelay, maxQueue, hostMax, subQ, maxLuns, numTgts, addHost := 1, 0, sdebugCanQueue, 0, 1, 1, 1, 1
	random, every, devSizeMB, virtualGB := false, 0, 8, 0
	fakeRW := 0
	optBlks, sectorSize := 1024, 512
	ps := &paramSet{kind: "scsi_debug", inert: scsiDebugInert}
	ps.intP("dev_size_mb", 1, 1<<20, &devSizeMB)
	ps.intP("virtual_gb", 0, 1<<20, &virtualGB)
	ps.intP("delay", -2, 1000000, &delay)
	ps.intP("ndelay", 0, 999999999, &ndelay)
	ps.intP("max_queue", 1, sdebugCanQueue, &maxQueue)
	ps.intP("host_max_queue", 0, sdebugCanQueue, &hostMax)
	ps.intP("submit_queues", 1, 4096, &subQ)
	ps.intP("max_luns", 1, 256, &maxLuns)
	ps.intP("num_tgts", 1, 16, &numTgts)
	ps.intP("add_host", 1, 1, &addHost)
	ps.boolP("random", &random)
	ps.intP("every_nth", 0, 0, &every)
	ps.intP("opt_blks", 0, 1<<20, &optBlks)
	ps.intP("sector_size", 512, 4096, &sectorSize)
	// fake_rw: scsi_debug_queuecommand skips the READ/WRITE response function of an
	// F_FAKE_RW command, so no data is copied (copiesData false)
	ps.intP("fake_rw", 0, 1, &fakeRW)
	// opts= injects errors and timeouts (SDEBUG_OPT_*), poll_queues= adds polled
	// hctxs, zbc= makes a zoned disk: none is modelled beyond its default
	onlyZero := func(name, what string) {
		ps.add(name, "0", func(v string) error {
			if n, err := parseInt(v, 0, 0); err != nil || n != 0 {
				return fmt.Errorf("%s is not modelled; allowed: 0", what)
			}
			return nil
		})
	}
	onlyZero("opts", "error and timeout injection (SDEBUG_OPT_*)")
	onlyZero("poll_queues", "a polled hctx (REQ_POLLED I/O)")
	ps.add("zbc", "none, 0", func(v string) error {
		if v != "none" && v != "0" {
			return fmt.Errorf("a zoned scsi_debug disk is not modelled; allowed: none, 0")
		}
		return nil
	})
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	if sectorSize&(sectorSize-1) != 0 {
		return fmt.Errorf("%s: scsi_debug parameter sector_size=%d: allowed: 512, 1024, 2048, 4096", where, sectorSize)
	}
	if subQ > s.cpus {
		s.warn = append(s.warn, fmt.Sprintf("scsi_debug: submit_queues %d > %d CPUs: capped, as the driver does", subQ, s.cpus))
		subQ = s.cpus
	}
	tpl := scsi.ScsiDebug(maxQueue, hostMax, subQ)
	canQueue := tpl.CanQueue
	if tpl.HostTagset {
		s.setDerived("host/host_tagset", 1, source+" (host_max_queue)")
	}
	s.setDerived("host/can_queue", canQueue, source)
	s.setDerived("host/nr_hw_queues", tpl.NrHwQueues, source)
	s.setDerived("host/cmd_per_lun", tpl.CmdPerLun, source)
	// sdebug_driver_template: max_sectors -1U, sg_tablesize SG_MAX_SEGMENTS,
	// max_segment_size -1U (sysfs: max_hw_sectors_kb 2147483647, max_segments 2048)
	s.setHwLimits(uintMaxSectors, sgMaxSegments, uintMaxSectors, source+" (sdebug_driver_template)")
	s.logicalBS = sectorSize
	if optKB := optBlks * sectorSize >> 10; optKB >= 4 {
		s.setDerived("queue/max_sectors_kb", min(optKB, 32767), source+" (sd: opt_blks × sector_size)")
	} else {
		s.setDerived("queue/max_sectors_kb", blkDefMaxSectorsKB, source+" (sd: opt_blks below one page, BLK_DEF_MAX_SECTORS)")
	}
	var compl sim.Time
	if delay > 0 || ndelay > 0 {
		compl = device.ScsiDebugDelay(delay, sim.Time(ndelay), s.hz)
	}
	if delay < 0 && ndelay == 0 {
		s.warn = append(s.warn, fmt.Sprintf("scsi_debug: delay=%d (tiny delay) modelled as an immediate completion", delay))
	}
	// sdebug_capacity: virtual_gb when set (the dev_size_mb store wraps), else dev_size_mb
	capacity, capNote := int64(devSizeMB)<<20, fmt.Sprintf("scsi_debug dev_size_mb=%d", devSizeMB)
	if virtualGB > 0 {
		capacity, capNote = int64(virtualGB)<<30, fmt.Sprintf("scsi_debug virtual_gb=%d", virtualGB)
	}
	p := device.NullParams{CompletionNsec: compl, MaxQueue: canQueue * subQ, HostBusyWhenFull: true, RandomDelay: random}
	for range numTgts * maxLuns {
		q := p
		q.Name = sdName(len(s.luns))
		s.luns = append(s.luns, lun{name: q.Name, kind: "scsi_debug", capacity: capacity, capacityNote: capNote, completion: scsi.CompleteOnIssueCPU, copiesData: fakeRW == 0,
			build: func(eng *sim.Engine) (device.Device, error) { return device.NewNull(eng, q) }})
	}
	return nil
}

// blkDefMaxSectorsKB is BLK_DEF_MAX_SECTORS (2560 sectors) in KiB: the request
// size limit a driver that sets none gets (include/linux/blkdev.h, 6.1).
const blkDefMaxSectorsKB = 1280

// blkSafeMaxSectorsKB is BLK_SAFE_MAX_SECTORS (255 sectors) in KiB, rounded down as
// sysfs max_sectors_kb shows it: the default max_hw_sectors of a queue whose
// driver sets no limit (blk_set_default_limits), which null_blk keeps.
const blkSafeMaxSectorsKB = 255 >> 1

// sdName is the sd disk name of the n-th SCSI disk: /dev/sda ... /dev/sdz, /dev/sdaa ...
func sdName(n int) string {
	name := ""
	for n++; n > 0; n = (n - 1) / 26 {
		name = string(rune('a'+(n-1)%26)) + name
	}
	return "/dev/sd" + name
}

// nullBlkInert are 6.1 null_blk module parameters accepted without effect. The zone_*
// ones act only with zoned=1 (null_init_zoned_dev), which is refused, so without it
// they do nothing in the kernel either.
var nullBlkInert = []string{"virt_boundary", "home_node", "bs", "use_per_node_hctx",
	"memory_backed", "discard", "cache_size",
	"zone_size", "zone_capacity", "zone_nr_conv", "zone_max_open", "zone_max_active"}

// parseNullBlk models null_blk with queue_mode=2 (blk-mq): hw_queue_depth is the tag
// set depth (can_queue), submit_queues nr_hw_queues, shared_tag_bitmap host-wide
// tags; irqmode=2 completes after completion_nsec, irqmode 0 or 1 at once (the
// kernel ignores completion_nsec then), each on the CPU that ran queue_rq (package
// nullblk). The driver is null_blk's (no SCSI budget, no SCSI host: see
// noteNullBlkBudget); blocking=1 is BLK_MQ_F_BLOCKING, no_sched=1 BLK_MQ_F_NO_SCHED.
// nr_devices devices share one tag set with shared_tags=1; without it each has its
// own (a host per device in stack.Config). poll_queues (default 1, as in 6.1) adds that many poll
// hctxs to the tag set (null_init_tag_set: nr_hw_queues = submit_queues +
// poll_queues, three queue maps): they get no normal I/O, so the model does not
// simulate them, but they count in elevator_get_default's nr_hw_queues, so the
// default scheduler is none unless poll_queues=0 with one submit queue, or
// shared_tag_bitmap.
func parseNullBlk(s *state, pairs [][2]string, where, source string) error {
	compl, irq, depth, subQ, nrDev, mbps, qmode, maxSectors, gb := 10000, 1, 64, 1, 1, 0, 2, 0, 250
	pollQ := 1
	var sharedTags, sharedBitmap, noSched, blocking, zoned bool
	ps := &paramSet{kind: "null_blk", inert: nullBlkInert}
	ps.intP("completion_nsec", 0, 10_000_000_000, &compl)
	ps.intP("irqmode", 0, 2, &irq)
	ps.intP("hw_queue_depth", 1, 10240, &depth)
	ps.intP("submit_queues", 1, 4096, &subQ)
	ps.intP("poll_queues", 0, 4096, &pollQ)
	ps.intP("nr_devices", 1, 64, &nrDev)
	ps.boolP("shared_tags", &sharedTags)
	ps.boolP("shared_tag_bitmap", &sharedBitmap)
	ps.boolP("no_sched", &noSched)
	ps.intP("mbps", 0, 1<<20, &mbps)
	ps.intP("queue_mode", 2, 2, &qmode)
	ps.intP("max_sectors", 0, 65535, &maxSectors)
	ps.intP("gb", 1, 1<<20, &gb)
	ps.boolP("blocking", &blocking)
	ps.boolP("zoned", &zoned)
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	switch {
	case zoned:
		return fmt.Errorf("%s: null_blk parameter zoned=1: not modelled; allowed: 0", where)
	}
	if subQ > s.cpus {
		s.warn = append(s.warn, fmt.Sprintf("null_blk: submit_queues %d > %d CPUs: capped, as the driver does", subQ, s.cpus))
		subQ = s.cpus
	}
	var delay sim.Time
	if irq == 2 {
		delay = sim.Time(compl)
	} else if has(pairs, "completion_nsec") {
		s.warn = append(s.warn, fmt.Sprintf("null_blk: completion_nsec has no effect with irqmode=%d (the driver uses it only with irqmode=2): commands complete at once", irq))
	}
	s.setDerived("host/can_queue", depth, source)
	s.setDerived("host/nr_hw_queues", subQ, source)
	s.setDerived("host/cmd_per_lun", depth, source+" (unused: null_blk has no budget)")
	if sharedBitmap {
		s.setDerived("host/host_tagset", 1, source+" (shared_tag_bitmap)")
	}
	s.pollQueues = pollQ
	noteNullBlkBudget(s, depth, subQ, sharedBitmap)
	if pollQ > 0 {
		s.notes["queue/scheduler"] = fmt.Sprintf("null_blk poll_queues=%d: the request queue has %d hw queues for the default rule (submit_queues %d + poll_queues %d); the poll hctxs get no normal I/O and are not simulated",
			pollQ, subQ+pollQ, subQ, pollQ)
	}
	if noSched {
		_ = keys["queue/scheduler"].set(s, "none")
		s.src["queue/scheduler"] = source + " (no_sched)"
	}
	// null_add_dev: max_sectors (default queue_max_hw_sectors, BLK_SAFE_MAX_SECTORS)
	// capped at BLK_DEF_MAX_SECTORS becomes max_hw_sectors and max_sectors;
	// max_segments and max_segment_size keep blk_set_default_limits's.
	sectors, why := 2*blkSafeMaxSectorsKB+1, " (no max_sectors: BLK_SAFE_MAX_SECTORS, 255 sectors)"
	if maxSectors > 0 {
		if maxSectors < 8 {
			s.warn = append(s.warn, fmt.Sprintf("null_blk: max_sectors %d below one 4 KiB page: raised to 8 sectors (queue/max_sectors_kb 4), as blk_queue_max_hw_sectors does", maxSectors))
		}
		sectors, why = min(max(maxSectors, 8), 2*blkDefMaxSectorsKB), " (max_sectors, at most BLK_DEF_MAX_SECTORS)"
	}
	s.setHwLimits(int64(sectors), blkMaxSegments, blkMaxSegmentSize, source+why)
	s.setMaxSectors(sectors, source+why)
	nb := stack.NullBlk{IRQMode: nullblk.IRQMode(irq), Blocking: blocking, NoSched: noSched}
	for range nrDev {
		p := device.NullParams{Name: fmt.Sprintf("/dev/nullb%d", len(s.luns)), CompletionNsec: delay, MBps: int64(mbps)}
		s.luns = append(s.luns, lun{name: p.Name, kind: "null_blk", capacity: int64(gb) << 30, capacityNote: fmt.Sprintf("null_blk gb=%d", gb),
			driver: stack.DriverNullBlk, nullBlk: nb, ownTagSet: !sharedTags,
			build: func(eng *sim.Engine) (device.Device, error) { return device.NewNull(eng, p) }})
	}
	return nil
}

// noteNullBlkBudget documents in --explain (device/queue_depth) that null_blk has no
// budget (blk_mq_get_dispatch_budget always succeeds without .get_budget): each of its
// hctxs owns hw_queue_depth driver tags unless shared_tag_bitmap, so a device holds up
// to submit_queues × hw_queue_depth commands, as the model does (package nullblk).
func noteNullBlkBudget(s *state, depth, subQ int, sharedBitmap bool) {
	if sharedBitmap || subQ == 1 {
		s.notes["device/queue_depth"] = fmt.Sprintf("null_blk has no budget: only the %d driver tags limit a device", depth)
		return
	}
	s.notes["device/queue_depth"] = fmt.Sprintf("null_blk has no budget: hw_queue_depth driver tags per hctx (%d × %d = %d in flight)",
		subQ, depth, subQ*depth)
}

func has(pairs [][2]string, name string) bool {
	for _, kv := range pairs {
		if kv[0] == name {
			return true
		}
	}
	return false
}

// parseCloud is a throttled cloud disk; defaults device.AzureP30Params.
func parseCloud(s *state, pairs [][2]string, where, source string) error {
	p := device.AzureP30Params()
	unitKB := float64(p.IOPSUnitBytes >> 10)
	mbps, burstMB, capGiB := p.BandwidthBytesPerSec/1e6, p.BandwidthBurstBytes/1e6, 1024.0
	ps := &paramSet{kind: "cloud"}
	ps.floatP("capacity_gib", 0.001, 1<<20, 1, &capGiB)
	ps.floatP("iops", 1, 1e9, 1, &p.IOPS)
	ps.floatP("iops_burst", 1, 1e9, 1, &p.IOPSBurst)
	ps.floatP("iops_unit_kb", 0, 1<<20, 1, &unitKB)
	ps.floatP("mbps", 0.001, 1e6, 1, &mbps)
	ps.floatP("burst_mb", 0.001, 1e6, 1, &burstMB)
	ps.timeP("latency_us", 0, 1e7, sim.Microsecond, &p.BaseLatency)
	ps.intP("max_outstanding", 0, 1<<20, &p.MaxOutstanding)
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	p.IOPSUnitBytes = int64(unitKB * 1024)
	p.BandwidthBytesPerSec, p.BandwidthBurstBytes = mbps*1e6, burstMB*1e6
	p.Name = sdName(len(s.luns))
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	s.luns = append(s.luns, lun{name: p.Name, kind: "cloud", capacity: int64(capGiB*(1<<30)) &^ 511, capacityNote: fmt.Sprintf("cloud capacity_gib=%g", capGiB),
		build: func(eng *sim.Engine) (device.Device, error) { return device.NewThrottled(eng, p) }})
	return nil
}

// ssdDefaultCapacityGB is the ssd kind's capacity_gb when not given: assumed, a
// 1 TB (10^12 bytes) drive, as the nvme kind assumes. device.ExampleSSDParams
// describes the media's timing, not its size, and a real block device always has
// a size: fio sizes a job without size= to the whole device (its real_file_size,
// from BLKGETSIZE64), so the model needs one. Set capacity_gb to your device's.
const ssdDefaultCapacityGB = 1000.0

// ssdMediaParams declares the media parameters the ssd and nvme kinds share (a
// device.SSD and its capacity in GB).
func ssdMediaParams(ps *paramSet, p *device.SSDParams, capGB *float64) {
	ps.floatP("capacity_gb", 0.001, 1e6, 1, capGB)
	ps.intP("parallel_units", 1, 1<<16, &p.ParallelUnits)
	ps.timeP("controller_us", 0, 1e6, sim.Microsecond, &p.ControllerOverhead)
	ps.timeP("read_us", 0, 1e7, sim.Microsecond, &p.ReadLatency)
	ps.timeP("write_us", 0, 1e7, sim.Microsecond, &p.WriteLatency)
	ps.int64P("chunk_kb", 1, 1<<20, 1024, &p.ChunkBytes)
	ps.floatP("internal_mbps", 0.001, 1e7, 1e6, &p.InternalBytesPerSec)
	ps.floatP("link_mbps", 0.001, 1e7, 1e6, &p.LinkBytesPerSec)
}

// parseSSD is an SSD; defaults device.ExampleSSDParams, capacity_gb
// ssdDefaultCapacityGB.
func parseSSD(s *state, pairs [][2]string, where, source string) error {
	p := device.ExampleSSDParams()
	capGB := ssdDefaultCapacityGB
	ps := &paramSet{kind: "ssd"}
	ssdMediaParams(ps, &p, &capGB)
	ps.intP("max_queue", 0, 1<<20, &p.MaxQueue)
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	p.Name = sdName(len(s.luns))
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	s.luns = append(s.luns, lun{name: p.Name, kind: "ssd", capacity: int64(capGB*1e9) &^ 511, capacityNote: fmt.Sprintf("ssd capacity_gb=%g", capGB),
		build: func(eng *sim.Engine) (device.Device, error) { return device.NewSSD(eng, p) }})
	return nil
}

// parseHDD is a hard disk; model= picks the preset (applied before the other keys).
func parseHDD(s *state, pairs [][2]string, where, source string) error {
	p := device.Cheetah15K7Params()
	var rest [][2]string
	for _, kv := range pairs {
		if kv[0] != "model" {
			rest = append(rest, kv)
			continue
		}
		switch kv[1] {
		case "cheetah-15k7":
			p = device.Cheetah15K7Params()
		case "cheetah-15k3":
			p = device.Cheetah15K3Params()
		default:
			return fmt.Errorf("%s: hdd parameter model=%s: allowed: cheetah-15k7, cheetah-15k3", where, clip(kv[1]))
		}
		s.extra = append(s.extra, Setting{Key: "hdd.model", Value: kv[1], Source: source})
	}
	capGB := float64(p.CapacityBytes) / 1e9
	cacheMB := float64(p.WriteCacheBytes) / (1 << 20)
	ps := &paramSet{kind: "hdd"}
	ps.add("model", "cheetah-15k7, cheetah-15k3", func(string) error { return nil })
	ps.intP("rpm", 1, 100000, &p.RPM)
	ps.floatP("capacity_gb", 0.001, 1e6, 1, &capGB)
	ps.timeP("track_seek_us", 0.001, 1e6, sim.Microsecond, &p.TrackToTrackSeek)
	ps.timeP("avg_seek_us", 0.001, 1e6, sim.Microsecond, &p.AverageSeek)
	ps.timeP("full_seek_us", 0.001, 1e6, sim.Microsecond, &p.FullStrokeSeek)
	ps.timeP("write_seek_extra_us", 0, 1e6, sim.Microsecond, &p.WriteSeekExtra)
	ps.floatP("outer_mbps", 0.001, 1e5, 1e6, &p.OuterBytesPerSec)
	ps.floatP("inner_mbps", 0.001, 1e5, 1e6, &p.InnerBytesPerSec)
	ps.intP("zones", 1, 1000, &p.Zones)
	ps.timeP("overhead_us", 0, 1e6, sim.Microsecond, &p.CommandOverhead)
	ps.boolP("write_cache", &p.WriteCache)
	ps.floatP("cache_mb", 0.001, 1e6, 1, &cacheMB)
	ps.floatP("interface_mbps", 0.001, 1e6, 1e6, &p.InterfaceBytesPerSec)
	ps.boolP("tcq", &p.QueuedReordering)
	ps.timeP("aging_ms", 0, 1e6, sim.Millisecond, &p.AgingLimit)
	ps.intP("max_queue", 0, 1<<16, &p.MaxQueue)
	if err := ps.apply(rest, s, where, source); err != nil {
		return err
	}
	p.CapacityBytes = int64(capGB * 1e9)
	p.WriteCacheBytes = int64(cacheMB * (1 << 20))
	p.Name = sdName(len(s.luns))
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	s.luns = append(s.luns, lun{name: p.Name, kind: "hdd", capacity: p.CapacityBytes, bounded: true, capacityNote: fmt.Sprintf("hdd capacity_gb=%g", capGB),
		build: func(eng *sim.Engine) (device.Device, error) { return device.NewHDD(eng, p) }})
	return nil
}

// hostKind is one --host KIND: it sets host/ keys.
type hostKind struct {
	doc   string
	parse func(s *state, pairs [][2]string, where, source string) error
}

var hostKinds = map[string]hostKind{
	"storvsc": {doc: "Hyper-V storvsc (drivers/scsi/storvsc_drv.c)", parse: parseStorvsc},
	"generic": {doc: "a SCSI HBA described by its Scsi_Host fields", parse: parseGenericHost},
}

// HostKinds returns the --host kinds, sorted.
func HostKinds() []string {
	var out []string
	for k := range hostKinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// parseStorvsc applies the storvsc host template (scsi.Storvsc): nr_hw_queues =
// storvsc_max_hw_queues or the CPUs; can_queue = scsi.StorvscPerChannel (assumed) ×
// ((CPUs − 1) / storvsc_vcpus_per_sub_channel + 1), at most 10240; cmd_per_lun =
// 2048; per-hctx tags (upstream has no host_tagset).
func parseStorvsc(s *state, pairs [][2]string, where, source string) error {
	maxHW, perSub, ring, low, logLevel := 0, 4, 128*1024, 10, 0
	maxXferKB := storvscDefaultMaxTransferKB
	ps := &paramSet{kind: "storvsc"}
	ps.intP("max_transfer_kb", 4, 1<<20, &maxXferKB) // the host's max_transfer_bytes, not a module parameter
	ps.intP("storvsc_max_hw_queues", 0, 4096, &maxHW)
	ps.intP("storvsc_vcpus_per_sub_channel", 1, 4096, &perSub)
	ps.intP("storvsc_ringbuffer_size", 4096, 1<<30, &ring)
	ps.intP("ring_avail_percent_lowater", 0, 100, &low)
	ps.intP("logging_level", 0, 2, &logLevel)
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	if maxHW > s.cpus {
		s.warn = append(s.warn, fmt.Sprintf("storvsc: storvsc_max_hw_queues %d > %d CPUs: capped, as the driver does", maxHW, s.cpus))
	}
	tpl := scsi.Storvsc(s.cpus, maxHW, perSub)
	s.vmbusChannelCPUs = tpl.ChannelCPUs // completions on the channel's CPU (storvsc_do_io)
	s.setDerived("host/nr_hw_queues", tpl.NrHwQueues, source)
	if full := scsi.StorvscPerChannel * ((s.cpus-1)/perSub + 1); full > tpl.CanQueue {
		s.warn = append(s.warn, fmt.Sprintf("storvsc: can_queue %d (%d per channel) above the model's limit: capped at %d", full, scsi.StorvscPerChannel, tpl.CanQueue))
	}
	s.setDerived("host/can_queue", tpl.CanQueue, source+fmt.Sprintf(" (assumed %d per channel)", scsi.StorvscPerChannel))
	s.setDerived("host/cmd_per_lun", tpl.CmdPerLun, source)
	// storvsc_probe: max_sectors = max_transfer_bytes >> 9, sg_tablesize =
	// max_transfer_bytes / 4 KiB + 1; the template's virt_boundary_mask makes
	// max_segment_size UINT_MAX (blk_queue_virt_boundary)
	xfer := int64(maxXferKB) &^ 3 // round_down to HV_HYP_PAGE_SIZE
	why := source + " (storvsc_probe: max_transfer_bytes)"
	if !has(pairs, "max_transfer_kb") {
		why = source + fmt.Sprintf(" (storvsc_probe from max_transfer_bytes, assumed %d KiB)", storvscDefaultMaxTransferKB)
	}
	s.setHwLimits(2*xfer, int(xfer/4+1), uintMaxSectors, why)
	s.sdRwMax(why)
	return nil
}

// parseGenericHost sets the Scsi_Host fields directly; max_sectors, sg_tablesize
// and max_segment_size are the template's request limits (scsi_host_alloc defaults:
// SCSI_DEFAULT_MAX_SECTORS, BLK_MAX_SEGMENT_SIZE; sg_tablesize assumed SG_ALL), which
// __scsi_init_queue makes the queue's max_hw_sectors, max_segments and
// max_segment_size; sd then sets max_sectors to min(max_hw_sectors,
// BLK_DEF_MAX_SECTORS).
func parseGenericHost(s *state, pairs [][2]string, where, source string) error {
	ps := &paramSet{kind: "generic"}
	for _, name := range []string{"can_queue", "nr_hw_queues", "cmd_per_lun", "host_tagset"} {
		k := keys["host/"+name]
		ps.add(name, k.allowed, func(v string) error {
			if err := k.set(s, v); err != nil {
				return err
			}
			s.src[k.name] = source
			return nil
		})
	}
	maxSectors, sgTable, segSize := 2*scsiDefaultMaxSectorsKB, sgAll, blkMaxSegmentSize
	ps.intP("max_sectors", 8, 1<<30, &maxSectors)
	ps.intP("sg_tablesize", 1, sgMaxSegments, &sgTable)
	ps.intP("max_segment_size", 4096, 1<<30, &segSize)
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	s.setHwLimits(int64(maxSectors), sgTable, int64(segSize), source+" (Scsi_Host max_sectors, sg_tablesize, max_segment_size)")
	s.sdRwMax(source)
	return nil
}

func kindNames[T any](m map[string]T) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// parseNVMe models an NVMe PCIe controller (package nvme) with namespaces LUNs
// /dev/nvme0n1 … : the module parameter io_queue_depth and the controller's CAP.MQES
// give the tag set depth (min(io_queue_depth, MQES+1) − 1, nvme.Controller); one I/O
// queue per CPU unless the controller grants fewer (max_queues, its Number of Queues
// answer); no budget; completions on the queue's interrupt CPU. write_queues and
// poll_queues (module parameters, default 0) add queue maps the model does not
// simulate, so only 0 is allowed. The limits are nvme_set_queue_limits's:
// max_hw_sectors = min(NVME_MAX_KB_SZ, MDTS), max_segments = min(max_hw_sectors /
// 8 + 1, NVME_MAX_SEGS), max_segment_size UINT_MAX (virt boundary), max_sectors =
// min(max_hw_sectors, BLK_DEF_MAX_SECTORS). The media is device.SSD with the ssd
// kind's parameters (default device.ExampleSSDParams); capacity_gb defaults to an
// assumed 1000 GB drive.
func parseNVMe(s *state, pairs [][2]string, where, source string) error {
	p := device.ExampleSSDParams()
	qdepth, writeQ, pollQ, maxQueues, mqes, mdts, nsCount := nvme.DefaultIOQueueDepth, 0, 0, 0, 1023, 0, 1
	capGB := 1000.0
	ps := &paramSet{kind: "nvme", inert: []string{"use_threaded_interrupts", "use_cmb_sqes", "max_host_mem_size_mb", "sgl_threshold", "noacpi", "admin_timeout", "io_timeout", "shutdown_timeout", "max_retries", "multipath", "default_ps_max_latency_us", "force_apst", "streams", "iod_mempool"}}
	ps.intP("io_queue_depth", 2, 65535, &qdepth)
	ps.intP("write_queues", 0, 0, &writeQ)
	ps.intP("poll_queues", 0, 0, &pollQ)
	ps.intP("max_queues", 0, 65535, &maxQueues)
	ps.intP("mqes", 1, 65535, &mqes)
	ps.intP("mdts", 0, 20, &mdts)
	ps.intP("namespaces", 1, 1024, &nsCount)
	ssdMediaParams(ps, &p, &capGB)
	if err := ps.apply(pairs, s, where, source); err != nil {
		return err
	}
	tpl := nvme.Controller(s.cpus, maxQueues, mqes, qdepth)
	s.setDerived("host/can_queue", tpl.QueueDepth, source+" (min(io_queue_depth, MQES+1) - 1)")
	s.setDerived("host/nr_hw_queues", tpl.NrHwQueues, source)
	s.setDerived("host/cmd_per_lun", tpl.QueueDepth, source+" (unused: nvme has no budget)")
	s.notes["device/queue_depth"] = "nvme has no budget: only the controller's tag set limits a namespace"
	hw := int64(nvmeMaxKBSize * 2)
	if mdts > 0 {
		hw = min(hw, int64(nvmeCtrlPageSize/512)<<mdts)
	}
	segs := min(int(hw/(nvmeCtrlPageSize/512))+1, nvmeMaxSegs)
	why := source + " (nvme_set_queue_limits: NVME_MAX_KB_SZ, MDTS, NVME_MAX_SEGS)"
	s.setHwLimits(hw, segs, uintMaxSectors, why)
	s.setMaxSectors(int(min(hw, 2*blkDefMaxSectorsKB)), why)
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	for n := range nsCount {
		q := p
		q.Name = fmt.Sprintf("/dev/nvme0n%d", n+1)
		s.luns = append(s.luns, lun{name: q.Name, kind: "nvme", capacity: int64(capGB*1e9) &^ 511, capacityNote: fmt.Sprintf("nvme capacity_gb=%g", capGB), driver: stack.DriverNVMe,
			build: func(eng *sim.Engine) (device.Device, error) { return device.NewSSD(eng, q) }})
	}
	return nil
}
