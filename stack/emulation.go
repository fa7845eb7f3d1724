package stack

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// Emulated returns the configuration of a guest whose CPU runs factor times slower
// than the native CPU the model's costs describe (an instruction-set emulator such as
// QEMU TCG): every CPU cost of the submission and completion paths
// (dispatch.CPUCosts.Emulated: the guest's instructions scaled, the host's
// line-transfer traffic kept) and the io-wq worker's own time between two work items
// (SubmitTiming.WorkerStep, io_worker_handle_work's loop: CPU work the model keeps
// as a delay) multiplied by factor. The reap, wake-up and kblockd latencies
// (SubmitTiming.ReapMin/ReapMax, dispatch.Timing) are kept (assumed): the waker's
// try_to_wake_up is a CPU cost and is scaled, but the rest of each latency is
// native-hardware scheduling delay (an idle CPU's exit, the run-queue wait) whose
// TCG counterpart is a host thread's wake-up (a halted vCPU thread waits on a host
// condition variable, QEMU accel/tcg mttcg_cpu_thread_fn → qemu_wait_io_event), not
// translated guest code. The guest code in it — the wakee's schedule() and context
// switch, the kworker's entry — is not separated from it in the model: scaling the
// whole latency (5–30 µs x 74: 1.3 ms per reap on average) is refuted by the
// queue-depth-1 calibration cases, where the guest's whole latency beyond the model's
// is 0.22–0.25 ms per command (the calibrated overhead, which would turn negative),
// so that guest code stays inside the calibrated per-command overhead.
// CPU costs off (CPU.Off) leave the costs alone. It models no kernel function; it is
// the instrument correction for comparing with an emulated kernel, and returns an
// error for a factor outside [1, dispatch.MaxEmulationSlowdown].
func (c Config) Emulated(factor float64) (Config, error) {
	if !c.CPU.Off {
		costs, err := c.CPU.Costs.Emulated(factor)
		if err != nil {
			return c, err
		}
		c.CPU.Costs = costs
	}
	t := c.Submit.withDefaults()
	c.Submit.ReapMin, c.Submit.ReapMax = t.ReapMin, t.ReapMax
	c.Submit.WorkerStep = sim.Time(math.Round(float64(t.WorkerStep) * factor))
	// fio's parent process is emulated code too (stack/fiothreads.go)
	c.Placement.FioParentSlowdown = factor
	return c, nil
}

// GuestSetup is the I/O a machine does on its disks before the fio run starts, as
// far as it leaves state the run sees: every LUN is read once from ScanCPU, as
// add_disk's partition scan (disk_scan_partitions) reads a new disk, Before
// nanoseconds before the run's start (dispatch.Queue.SetupRequest). A null_blk or
// NVMe disk is read as it is added (null_add_dev → add_disk in the task that loads
// the module), so on a tag set shared by several disks (null_blk shared_tags) the
// first disk's read finds the set not yet shared (blk_mq_tag_busy is a no-op; the set
// becomes shared with its second queue, blk_mq_add_queue_tag_set) and every later
// disk's read makes the hctx serving ScanCPU an active user. SCSI LUNs are read
// after the host scan has added them all (sd_probe runs asynchronously), so on a host
// with several LUNs every LUN's hctx becomes active. An active hctx takes a fair
// share of the tags (hctx_may_queue) until its queue's timeout work finds none of
// the queue's requests in flight. The oracle's guest pins modprobe to CPU 0
// (oracle/scripts/guest-init.sh); sd_probe's worker is not pinned, ScanCPU stands
// for it too (assumed). Legacy LUNs are not read.
type GuestSetup struct {
	// ScanCPU is the CPU the scan reads from, [0, NrCPUs).
	ScanCPU int
	// Before is the time from the scan to the run's start (ns), [0, 1000 s].
	Before sim.Time
	// Uptime is the machine's clock at the run's start (ns, [0, 10^6 s]): the
	// timeout timer the scan arms expires on a whole second of it
	// (round_jiffies_up in blk_add_timer). 0 = unknown: not rounded.
	Uptime sim.Time
}

// maxSetupBefore bounds GuestSetup.Before.
const maxSetupBefore = 1000 * sim.Second

// maxSetupUptime bounds GuestSetup.Uptime.
const maxSetupUptime = 1000000 * sim.Second

// scan applies the setup read of one LUN just added.
func (g *GuestSetup) scan(q *dispatch.Queue, nrCPUs int) error {
	if g == nil {
		return nil
	}
	if g.ScanCPU < 0 || g.ScanCPU >= nrCPUs {
		return fmt.Errorf("stack: setup: scan_cpu %d out of range [0, %d)", g.ScanCPU, nrCPUs)
	}
	if g.Before < 0 || g.Before > maxSetupBefore {
		return fmt.Errorf("stack: setup: before %v out of range [0, %v]", g.Before, maxSetupBefore)
	}
	if g.Uptime < 0 || g.Uptime > maxSetupUptime {
		return fmt.Errorf("stack: setup: uptime %v out of range [0, %v]", g.Uptime, maxSetupUptime)
	}
	clock0 := g.Uptime
	if clock0 == 0 {
		clock0 = -1
	}
	return q.SetupRequest(g.ScanCPU, q.Engine().Now()-g.Before, clock0)
}
