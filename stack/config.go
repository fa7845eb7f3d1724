package stack

import (
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
)

// Config describes the modelled machine: CPUs, one SCSI host with its tag set, its LUNs,
// and the kernel release whose rules apply.
type Config struct {
	// NrCPUs is the number of online CPUs, [1, 4096].
	NrCPUs int
	// Host is the SCSI host.
	Host Host
	// LUNs are the SCSI devices on the host, at least one.
	LUNs []LUN
	// Kernel is the release "MAJOR.MINOR" whose rules apply, [4.15, 6.19]; "" = the
	// current kernel (dispatch.Options zero value, sbitmap WakeGlobal).
	Kernel string
	// Options, when non-nil, replaces the dispatch switches derived from Kernel.
	Options *dispatch.Options
	// Timing are the latencies of unmodelled kernel steps (dispatch.Timing).
	Timing dispatch.Timing
	// CPU is the CPU cost model of the submission and completion paths
	// (dispatch.CPUModel): the zero value charges dispatch.DefaultCPUCosts, CPU.Off
	// charges nothing.
	CPU dispatch.CPUModel
	// Submit are the latencies of the fio and io_uring submitters.
	Submit SubmitTiming
	// FS are the file-system behaviours of jobs whose files live on a file system
	// (fio directory=, or a filename not under /dev/): see FSOptions (stack/fs.go).
	// The zero value is v5.17 on XFS.
	FS FSOptions
	// Placement is where the scheduler runs an unpinned fio thread after a wake-up
	// (stack/placement.go); the zero value moves it on DefaultWakeMigrate of wake-ups.
	Placement Placement
	// Seed seeds the workload's random draws only: fio's random offsets and rwmix
	// directions (fio's randseed), per job. A job set without random draws gives the
	// same result for every Seed.
	Seed uint64
	// JitterSeed seeds the model's own random draws, which are not part of the
	// workload: kblockd, wake-up and reap delays (Timing, Submit), io-wq worker CPUs
	// and the tag sets' initial allocation hints; 0 = DefaultJitterSeed. Placement
	// draws use a fixed stream of their own (placementSeed) and device models their
	// own parameters (e.g. device.NullParams.Seed).
	JitterSeed uint64
	// Watchdog reports a modelled hang instead of waiting on it (stack/watchdog.go),
	// in model time (ns); 0 = 1 hour. A run with a job that is not time-bound (size
	// only) stops at Watchdog; if a job has not finished, Run returns an error naming
	// the request that has gone longest without progress (submitted, given a request
	// or merged, issued, completed), its job, LUN, hctx and what it waits for
	// (dispatch.WaitState), or the job as too slow when every request progresses. A
	// time-bound run is checked every Watchdog/4 and stops with such an error once a
	// request has made no progress for Watchdog.
	Watchdog sim.Time
	// Limits bound the run's memory and simulated events and report its progress
	// (stack/limits.go); the zero value applies the defaults.
	Limits Limits
}

// DefaultJitterSeed is the JitterSeed of the zero value: 1, the stream Seed 1 drew
// before the two were separated, so runs with Seed 1 keep their figures.
const DefaultJitterSeed = 1

// jitterSeed returns the effective JitterSeed.
func (c *Config) jitterSeed() uint64 {
	if c.JitterSeed == 0 {
		return DefaultJitterSeed
	}
	return c.JitterSeed
}

func (c *Config) watchdog() sim.Time {
	if c.Watchdog <= 0 {
		return 3600 * sim.Second
	}
	return c.Watchdog
}

// Host describes the SCSI host template and instance (include/scsi/scsi_host.h).
type Host struct {
	// CanQueue is can_queue: the tag-set queue_depth, [1, 10240].
	CanQueue int
	// NrHwQueues is nr_hw_queues, [1, 4096]; 0 = 1.
	NrHwQueues int
	// CmdPerLun is cmd_per_lun: the initial LUN queue_depth when a LUN does not set
	// one, capped at CanQueue; 0 = 1.
	CmdPerLun int
	// HostTagset is host_tagset (BLK_MQ_F_TAG_HCTX_SHARED): one blk_mq_tags for all
	// hctxs. In the kernel this also makes mq-deadline the default elevator (v5.16+)
	// and scheduler tags one object per request queue, so nr_requests bounds the
	// whole device; the model applies both as consequences of this switch.
	HostTagset bool
	// HctxShareTags is the name the 2022 storvsc RFC (seed 000) gives host_tagset;
	// setting either one selects host-wide tags.
	HctxShareTags bool
}

// LUN describes one SCSI device and its request queue.
type LUN struct {
	// Name is the target fio jobs name (filename/directory); "" matches every job
	// when there is one LUN.
	Name string
	// Device builds the device model on the run's engine.
	Device func(eng *sim.Engine) (device.Device, error)
	// QueueDepth is the LUN queue_depth, [1, min(CanQueue, 10000)]; 0 = CmdPerLun
	// (capped at CanQueue).
	QueueDepth int
	// NrRequests is nr_requests; 0 = the kernel default (see dispatch.LUNConfig).
	NrRequests int
	// Scheduler is "" (kernel default), "none" or "mq-deadline".
	Scheduler string
	// MaxSectorsKB is max_sectors_kb; 0 = 1280.
	MaxSectorsKB int
}

// SubmitTiming holds the submitter latencies (ns). Zero fields take the defaults in
// their comments; each default is an assumption, not a measurement from a source.
type SubmitTiming struct {
	// ReapMin/ReapMax bound the delay between a completion (CQE posted / aio event)
	// and the fio thread running to reap it. Default 5–30 µs (a task wake-up).
	ReapMin, ReapMax sim.Time
	// WorkerStep is the time an io-wq worker takes between two work items it runs
	// without sleeping. Default 2 µs.
	WorkerStep sim.Time
	// WorkersOnOwnerCPU places io-wq workers on their ring owner's CPU instead of a
	// uniformly drawn CPU (default: unpinned workers spill over every CPU, as seen on a
	// 6.1 kernel, kernel-behaviour.md §12). A scheduler-placement assumption, exposed
	// for sensitivity studies.
	WorkersOnOwnerCPU bool
	// StickyWorkers keeps each io-wq worker on the CPU drawn when it was created
	// (a woken task returns to its idle previous CPU) instead of drawing a CPU at
	// every wake-up. Ignored with WorkersOnOwnerCPU. Sensitivity switch.
	StickyWorkers bool
}

func (t SubmitTiming) withDefaults() SubmitTiming {
	if t.ReapMax == 0 {
		t.ReapMin, t.ReapMax = 5*sim.Microsecond, 30*sim.Microsecond
	}
	if t.WorkerStep == 0 {
		t.WorkerStep = 2 * sim.Microsecond
	}
	return t
}

// Validate returns an error naming the first field out of range.
func (c *Config) Validate() error {
	if c.NrCPUs < 1 || c.NrCPUs > 4096 {
		return fmt.Errorf("stack: NrCPUs %d out of range [1, 4096]", c.NrCPUs)
	}
	h := c.Host
	if h.CanQueue < 1 || h.CanQueue > 10240 {
		return fmt.Errorf("stack: Host.CanQueue %d out of range [1, 10240]", h.CanQueue)
	}
	if h.NrHwQueues < 0 || h.NrHwQueues > 4096 {
		return fmt.Errorf("stack: Host.NrHwQueues %d out of range [0 (= 1), 4096]", h.NrHwQueues)
	}
	if h.CmdPerLun < 0 || h.CmdPerLun > 10240 {
		return fmt.Errorf("stack: Host.CmdPerLun %d out of range [0 (= 1), 10240]", h.CmdPerLun)
	}
	if len(c.LUNs) == 0 {
		return fmt.Errorf("stack: LUNs: need at least one LUN")
	}
	maxQD := min(h.CanQueue, 10000)
	for i, l := range c.LUNs {
		switch {
		case l.Device == nil:
			return fmt.Errorf("stack: LUNs[%d].Device is nil", i)
		case l.QueueDepth < 0 || l.QueueDepth > maxQD:
			return fmt.Errorf("stack: LUNs[%d].QueueDepth %d out of range [0 (= cmd_per_lun), %d]", i, l.QueueDepth, maxQD)
		case l.NrRequests < 0 || l.NrRequests > 2048:
			return fmt.Errorf("stack: LUNs[%d].NrRequests %d out of range [0 (= default), 2048]", i, l.NrRequests)
		case l.Scheduler != "" && l.Scheduler != "none" && l.Scheduler != "mq-deadline":
			return fmt.Errorf("stack: LUNs[%d].Scheduler %q not one of \"\", \"none\", \"mq-deadline\"", i, l.Scheduler)
		case l.MaxSectorsKB != 0 && (l.MaxSectorsKB < 4 || l.MaxSectorsKB > 32767):
			return fmt.Errorf("stack: LUNs[%d].MaxSectorsKB %d out of range [4, 32767] or 0", i, l.MaxSectorsKB)
		}
	}
	if c.Kernel != "" {
		if _, err := dispatch.Kernel(c.Kernel); err != nil {
			return fmt.Errorf("stack: Kernel: %w", err)
		}
	}
	if p := c.Placement.WakeMigrate; p > 1 || p != p {
		return fmt.Errorf("stack: Placement.WakeMigrate %v out of range [0, 1] (0 = default, negative = never)", p)
	}
	t := c.Submit
	if t.ReapMin < 0 || t.ReapMax < t.ReapMin || t.WorkerStep < 0 {
		return fmt.Errorf("stack: Submit %+v: want 0 <= ReapMin <= ReapMax, WorkerStep >= 0", t)
	}
	return nil
}

// hostConfig derives the dispatch host configuration.
func (c *Config) hostConfig() dispatch.HostConfig {
	hc := dispatch.HostConfig{
		NrCPUs:     c.NrCPUs,
		NrHwQueues: max(c.Host.NrHwQueues, 1),
		CanQueue:   c.Host.CanQueue,
		HostTagset: c.Host.HostTagset || c.Host.HctxShareTags,
		Timing:     c.Timing,
		CPU:        c.CPU,
		Seed:       c.jitterSeed() ^ 0x5eed0001,
	}
	if c.Kernel != "" {
		hc.Options, _ = dispatch.Kernel(c.Kernel)
		hc.WakeScheme, hc.RecalcEra = sbitmapEra(c.Kernel)
	}
	if c.Options != nil {
		hc.Options = *c.Options
	}
	return hc
}

// sbitmapEra maps a release to the sbitmap_queue wake scheme (countdown before v6.2)
// and the wake-batch recalculation formula (v5.17–v6.1 with min_batch 4).
func sbitmapEra(version string) (sbitmap.WakeScheme, sbitmap.RecalcEra) {
	maj, min, _ := strings.Cut(version, ".")
	v := atoi(maj)*100 + atoi(min)
	scheme, era := sbitmap.WakeGlobal, sbitmap.Recalc6_2
	if v < 602 {
		scheme = sbitmap.WakeCountdown
		era = sbitmap.Recalc5_17
	}
	return scheme, era
}

func atoi(s string) int {
	n := 0
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return 0
		}
		n = n*10 + int(ch-'0')
	}
	return n
}
