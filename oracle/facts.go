package oracle

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// Facts are what the guest reports about its block layer around the fio run.
type Facts struct {
	// Kernel is uname -r of the guest, CPUs its online CPUs.
	Kernel string `json:"kernel"`
	CPUs   int    `json:"cpus"`
	// Version is /proc/version of the guest ("Linux version 6.1.0-57-amd64 ...
	// Debian 6.1.192-3 ..."): it names the stable release (dispatch.ParseKernel
	// reads it). Empty in results recorded before it was collected.
	Version string `json:"version,omitempty"`
	// Seconds is the guest uptime between the stat snapshots taken just before fio
	// started and just after it ended (s; fio start-up and ramp included).
	Seconds float64 `json:"seconds"`
	// Disks holds one entry per disk the modules created, in name order.
	Disks []DiskFacts `json:"disks"`
	// Hosts are the SCSI hosts ("host0 scsi_debug can_queue 64").
	Hosts []string `json:"hosts,omitempty"`
	// CPUBusy is, per guest CPU, the share of the fio run (start-up and ramp
	// included) it was not idle (/proc/stat: everything but idle and iowait), and
	// CPUIrq the share in hard and soft interrupts; absent in results recorded
	// before they were collected. A CPU near 1 means the kernel side is bound by
	// the emulated CPU there, not by the block layer.
	CPUBusy []float64 `json:"cpu_busy,omitempty"`
	CPUIrq  []float64 `json:"cpu_irq,omitempty"`
	// Params are the module parameters as the kernel holds them after loading
	// ("scsi_debug delay=1 ...").
	Params []string `json:"params,omitempty"`
	// SetupSeconds is the guest uptime from the end of modprobe (the disks' add_disk
	// and its partition scan done) to the stat snapshot just before fio (s); 0 in
	// results recorded before it was collected, which also lack the Setup* fields
	// of Disks and their Hctxs.
	SetupSeconds float64 `json:"setup_seconds,omitempty"`
	// StartUptime is the guest's uptime at the stat snapshot just before fio (s),
	// recorded with SetupSeconds: the clock the kernel's second-rounded timers
	// (round_jiffies_up) follow.
	StartUptime float64 `json:"start_uptime,omitempty"`
	// Interrupts are /proc/interrupts' LOC (local timer), RES (rescheduling IPI),
	// CAL (function-call IPI) and TLB (TLB shootdown) rows, per CPU, and SoftIRQs
	// /proc/softirqs' rows (HI, TIMER, ..., BLOCK, SCHED, HRTIMER, RCU), per CPU:
	// the deltas from just before fio started to just after it ended (counts;
	// arch/x86/kernel/irq.c arch_show_interrupts, fs/proc/softirqs.c). Absent in
	// results recorded before round 8.
	Interrupts map[string][]int64 `json:"interrupts,omitempty"`
	SoftIRQs   map[string][]int64 `json:"softirqs,omitempty"`
	// Hrtimers are per CPU the deltas of /proc/timer_list's hrtimer and tick
	// counters over the same interval; absent before round 8.
	Hrtimers []HrtimerFacts `json:"hrtimers,omitempty"`
	// Tasks are fio's tasks (the main process, its job processes or threads, and
	// their io-wq workers) and the high-priority kworkers (kworker/N:MH, where
	// kblockd runs) and ksoftirqd threads, as the guest sampled their scheduler
	// counters once a second during the run; absent before round 8.
	Tasks []TaskFacts `json:"tasks,omitempty"`
}

// HrtimerFacts are one CPU's hrtimer and idle-tick counters over the fio run, the
// deltas of /proc/timer_list's print_cpu fields (kernel/time/timer_list.c):
// hrtimer_cpu_base nr_events (hrtimer_interrupt runs), nr_retries (its re-runs
// when expiring the timers took past the next expiry), nr_hangs (its give-ups
// after three retries, when the CPU could not keep up with its timers: the
// interrupt is re-armed max_hang_time later, delaying every timer due meanwhile),
// and tick_sched idle_calls / idle_sleeps (entries into the idle loop's tick stop
// path and those that stopped the tick).
type HrtimerFacts struct {
	CPU        int   `json:"cpu"`
	NrEvents   int64 `json:"nr_events"`
	NrRetries  int64 `json:"nr_retries"`
	NrHangs    int64 `json:"nr_hangs"`
	IdleCalls  int64 `json:"idle_calls"`
	IdleSleeps int64 `json:"idle_sleeps"`
}

// TaskFacts are one fio task's scheduler counters (guest-init.sh task_sample, once
// a second): /proc/PID/task/TID/schedstat (fs/proc/base.c proc_pid_schedstat:
// se.sum_exec_runtime, sched_info.run_delay, sched_info.pcount — the per-task
// side of the sched_info that kernel/sched/stats.c reports per run queue in
// /proc/schedstat) and status's voluntary_ctxt_switches and
// nonvoluntary_ctxt_switches (fs/proc/array.c task_context_switch_counts:
// nvcsw, switches the task made by sleeping; nivcsw, preemptions).
type TaskFacts struct {
	// PID is the task's process (thread group), TID the task; Name its comm
	// ("fio", "iou-wrk-PID" for an io_uring worker).
	PID  int    `json:"pid"`
	TID  int    `json:"tid"`
	Name string `json:"name"`
	// Span is the guest uptime between the task's first and last sample (s); the
	// fields below without _total are the deltas over it.
	Span float64 `json:"span"`
	// RunNs is the task's CPU time (ns), WaitNs its time runnable on a run queue
	// but not running (ns), Slices the times it was switched in (timeslices).
	RunNs  int64 `json:"run_ns"`
	WaitNs int64 `json:"wait_ns"`
	Slices int64 `json:"slices"`
	// Voluntary and Nonvoluntary are its context switches away by sleeping and by
	// preemption.
	Voluntary    int64 `json:"voluntary"`
	Nonvoluntary int64 `json:"nonvoluntary"`
	// The *Total fields are the same counters at the last sample, since the task
	// began (fio forks its jobs after parsing the job file, so these include the
	// job's start-up and ramp).
	RunNsTotal        int64 `json:"run_ns_total"`
	WaitNsTotal       int64 `json:"wait_ns_total"`
	SlicesTotal       int64 `json:"slices_total"`
	VoluntaryTotal    int64 `json:"voluntary_total"`
	NonvoluntaryTotal int64 `json:"nonvoluntary_total"`
}

// RunPerSlice returns the task's mean CPU time per timeslice over its span (ns),
// 0 without a slice.
func (t TaskFacts) RunPerSlice() float64 {
	if t.Slices <= 0 {
		return 0
	}
	return float64(t.RunNs) / float64(t.Slices)
}

// DiskFacts describes one disk: its queue configuration as fio ran against it and
// the /sys/block/DISK/stat deltas over the run (block/genhd.c, part_stat_show).
type DiskFacts struct {
	Name       string `json:"name"`
	Scheduler  string `json:"scheduler"`
	NrRequests int    `json:"nr_requests"`
	// HwQueues counts /sys/block/DISK/mq entries (null_blk's poll queue included).
	HwQueues int `json:"hw_queues"`
	// QueueDepth is the SCSI device queue_depth; 0 for a non-SCSI disk.
	QueueDepth   int `json:"queue_depth,omitempty"`
	MaxSectorsKB int `json:"max_sectors_kb"`
	// IOTimeoutMS is queue/io_timeout, the queue's rq_timeout (ms); 0 in results
	// recorded before it was collected.
	IOTimeoutMS int `json:"io_timeout_ms,omitempty"`
	// ReadIOs ... WriteSectors are stat deltas: completed requests, merged bios,
	// 512-byte sectors.
	ReadIOs      int64 `json:"read_ios"`
	ReadMerges   int64 `json:"read_merges"`
	ReadSectors  int64 `json:"read_sectors"`
	WriteIOs     int64 `json:"write_ios"`
	WriteMerges  int64 `json:"write_merges"`
	WriteSectors int64 `json:"write_sectors"`
	// SetupReadIOs and SetupWriteIOs are the requests the disk completed before fio
	// started (its stat just before fio: the partition scan at add_disk and anything
	// else the guest's setup read or wrote).
	SetupReadIOs  int64 `json:"setup_read_ios,omitempty"`
	SetupWriteIOs int64 `json:"setup_write_ios,omitempty"`
	// InflightMean and InflightMax summarise /sys/block/DISK/inflight (reads +
	// writes) sampled every 250 ms during fio, start-up and ramp included.
	InflightMean float64 `json:"inflight_mean"`
	InflightMax  int     `json:"inflight_max"`
	// Tags are the debugfs hctx tag lines ("hctx0 cpus cpu0, nr_tags=64 ..."; since round 11
	// also the driver and scheduler bitmaps' wake_batch= and min_shallow_depth=, the latter
	// two prefixed sched_).
	Tags []string `json:"tags,omitempty"`
	// DeviceBusyMean and DeviceBusyMax summarise the SCSI device's device_busy
	// (budget in use, scsi_device_busy) sampled with the inflight counts; absent
	// for non-SCSI disks and for results recorded before it was collected.
	DeviceBusyMean float64 `json:"device_busy_mean,omitempty"`
	DeviceBusyMax  int     `json:"device_busy_max,omitempty"`
	// Hctxs are per hardware queue: the debugfs tag use sampled during fio and the
	// queued/run counter deltas over the run.
	Hctxs []HctxFacts `json:"hctxs,omitempty"`
}

// HctxFacts describe one hardware queue of a disk during the fio run.
type HctxFacts struct {
	// Name is the debugfs directory (hctx0, hctx1, ...).
	Name string `json:"name"`
	// TagsBusyMean/Max are the driver tags in use (debugfs tags, busy=) over the
	// samples; with host-wide tags every hctx reports the one shared set.
	TagsBusyMean float64 `json:"tags_busy_mean"`
	TagsBusyMax  int     `json:"tags_busy_max"`
	// SchedBusyMean/Max are the scheduler tags in use (debugfs sched_tags); 0
	// without an elevator.
	SchedBusyMean float64 `json:"sched_busy_mean,omitempty"`
	SchedBusyMax  int     `json:"sched_busy_max,omitempty"`
	// Queued is the number of requests allocated on the hctx (debugfs queued) and
	// Run the number of times the hctx was run (debugfs run,
	// __blk_mq_run_hw_queue), deltas from just before to just after fio.
	Queued int64 `json:"queued"`
	Run    int64 `json:"run"`
	// SetupActiveQueues is the tag set's active_queues seen from this hctx just
	// before fio (debugfs tags: the hctxs, or with shared tags the queues, counted as
	// active users by blk_mq_tag_busy and not yet idled by blk_mq_timeout_work), and
	// SetupQueued the requests allocated on it before fio (debugfs queued).
	SetupActiveQueues int   `json:"setup_active_queues,omitempty"`
	SetupQueued       int64 `json:"setup_queued,omitempty"`
}

// guestLog is the guest's result log split into its blocks.
type guestLog struct {
	blocks map[string][]string
	rc     map[string]string
	done   bool
}

// parseGuestLog splits result.log (see scripts/guest-init.sh) into blocks.
func parseGuestLog(data []byte) *guestLog {
	g := &guestLog{blocks: map[string][]string{}, rc: map[string]string{}}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "#blkmq-begin "):
			cur = strings.TrimPrefix(line, "#blkmq-begin ")
			g.blocks[cur] = nil
		case strings.HasPrefix(line, "#blkmq-end "):
			f := strings.Fields(line)
			if len(f) == 3 {
				g.rc[f[1]] = f[2]
			}
			cur = ""
		case line == "#blkmq-done":
			g.done = true
		case cur != "":
			g.blocks[cur] = append(g.blocks[cur], line)
		}
	}
	return g
}

// ParseGuestLog reads the guest's result log and returns fio's JSON (trimmed) and
// the facts. It returns an error naming the step that failed (modprobe, sysfs, fio)
// with the guest's own messages, or when the log is incomplete.
func ParseGuestLog(data []byte) (*FioJSON, *Facts, error) {
	g := parseGuestLog(data)
	for _, step := range []string{"modprobe", "sysfs", "fio"} {
		rc, ok := g.rc[step]
		if !ok {
			if !g.done {
				return nil, nil, fmt.Errorf("oracle: guest log ends before step %s finished (VM died or timed out)", step)
			}
			return nil, nil, fmt.Errorf("oracle: guest log has no %s step", step)
		}
		if rc != "0" {
			msg := g.blocks[step]
			if step == "fio" {
				msg = g.blocks["fio-log"]
			}
			return nil, nil, fmt.Errorf("oracle: guest step %s failed (rc %s): %s", step, rc, strings.Join(msg, "; "))
		}
	}
	fj, err := ParseFioJSON([]byte(strings.Join(g.blocks["fio"], "\n")))
	if err != nil {
		return nil, nil, err
	}
	facts, err := g.facts()
	if err != nil {
		return nil, nil, err
	}
	return fj, facts, nil
}

func (g *guestLog) facts() (*Facts, error) {
	f := &Facts{}
	byName := map[string]*DiskFacts{}
	for _, line := range g.blocks["disks"] {
		w := strings.Fields(line)
		if len(w) < 2 {
			continue // "kernel" or "disk" without its value: w[1] panicked
		}
		var kv map[string]string
		if len(w) > 2 {
			kv = pairs(w[2:])
		}
		switch w[0] {
		case "kernel":
			f.Kernel = w[1]
			f.CPUs = atoi(kv["cpus"])
		case "version":
			f.Version = strings.Join(w[1:], " ")
		case "disk":
			d := DiskFacts{Name: w[1], Scheduler: kv["scheduler"], NrRequests: atoi(kv["nr_requests"]),
				HwQueues: atoi(kv["hw_queues"]), QueueDepth: atoi(kv["queue_depth"]), MaxSectorsKB: atoi(kv["max_sectors_kb"]),
				IOTimeoutMS: atoi(kv["io_timeout"])}
			f.Disks = append(f.Disks, d)
		case "host":
			f.Hosts = append(f.Hosts, strings.Join(w[1:], " "))
		case "params":
			f.Params = append(f.Params, strings.Join(w[1:], " "))
		}
	}
	for i := range f.Disks {
		byName[f.Disks[i].Name] = &f.Disks[i]
	}
	if len(f.Disks) == 0 {
		return nil, fmt.Errorf("oracle: guest reported no new disk (did the module create one?)")
	}
	before, t0, err := statBlock(g.blocks["before"])
	if err != nil {
		return nil, err
	}
	after, t1, err := statBlock(g.blocks["after"])
	if err != nil {
		return nil, err
	}
	f.Seconds = t1 - t0
	for _, line := range g.blocks["modprobe"] {
		if w := strings.Fields(line); len(w) == 2 && w[0] == "uptime" {
			if up, err := strconv.ParseFloat(w[1], 64); err == nil && t0 > up {
				f.SetupSeconds, f.StartUptime = t0-up, t0
			}
		}
	}
	for name, b := range before {
		if d := byName[name]; d != nil && len(b) >= 7 && f.SetupSeconds > 0 {
			d.SetupReadIOs, d.SetupWriteIOs = b[0], b[4]
		}
	}
	for name, a := range after {
		d, b := byName[name], before[name]
		if d == nil || len(a) < 7 || len(b) < 7 {
			continue
		}
		d.ReadIOs, d.ReadMerges, d.ReadSectors = a[0]-b[0], a[1]-b[1], a[2]-b[2]
		d.WriteIOs, d.WriteMerges, d.WriteSectors = a[4]-b[4], a[5]-b[5], a[6]-b[6]
	}
	for _, line := range g.blocks["inflight"] {
		w := strings.Fields(line) // NAME samples N mean M max X
		if len(w) == 7 && byName[w[0]] != nil {
			byName[w[0]].InflightMean, _ = strconv.ParseFloat(w[4], 64)
			byName[w[0]].InflightMax = atoi(w[6])
		}
	}
	hx := map[string]*HctxFacts{}
	hctxOf := func(disk, name string) *HctxFacts {
		d := byName[disk]
		if d == nil {
			return nil
		}
		if h := hx[disk+" "+name]; h != nil {
			return h
		}
		d.Hctxs = append(d.Hctxs, HctxFacts{Name: name})
		for i := range d.Hctxs { // re-point after a possible reallocation
			hx[disk+" "+d.Hctxs[i].Name] = &d.Hctxs[i]
		}
		return hx[disk+" "+name]
	}
	for _, line := range g.blocks["samples"] {
		w := strings.Fields(line)
		switch {
		case len(w) >= 2 && w[0] == "disk" && byName[w[1]] != nil:
			kv := pairs(w[2:])
			byName[w[1]].DeviceBusyMean, _ = strconv.ParseFloat(kv["device_busy_mean"], 64)
			byName[w[1]].DeviceBusyMax = atoi(kv["device_busy_max"])
		case len(w) >= 3 && w[0] == "hctx":
			if h := hctxOf(w[1], w[2]); h != nil {
				kv := pairs(w[3:])
				h.TagsBusyMean, _ = strconv.ParseFloat(kv["tags_busy_mean"], 64)
				h.TagsBusyMax = atoi(kv["tags_busy_max"])
				h.SchedBusyMean, _ = strconv.ParseFloat(kv["sched_busy_mean"], 64)
				h.SchedBusyMax = atoi(kv["sched_busy_max"])
			}
		}
	}
	sb, sa := cpuStats(g.blocks["before"]), cpuStats(g.blocks["after"])
	for i := 0; i < len(sa) && i < len(sb); i++ {
		var tot, idle, irq int64
		for k := range sa[i] {
			if k < len(sb[i]) && k < 8 { // user..steal; guest time is inside user
				d := sa[i][k] - sb[i][k]
				tot += d
				switch k {
				case 3, 4:
					idle += d
				case 5, 6:
					irq += d
				}
			}
		}
		if tot > 0 {
			f.CPUBusy = append(f.CPUBusy, float64(tot-idle)/float64(tot))
			f.CPUIrq = append(f.CPUIrq, float64(irq)/float64(tot))
		}
	}
	cb, ca := hctxCounters(g.blocks["before"]), hctxCounters(g.blocks["after"])
	for k, a := range ca {
		disk, name, _ := strings.Cut(k, " ")
		if h := hctxOf(disk, name); h != nil {
			b := cb[k]
			h.Queued, h.Run = a[0]-b[0], a[1]-b[1]
		}
	}
	for _, line := range g.blocks["setup"] {
		w := strings.Fields(line) // active DISK HCTX active_queues A queued Q
		if len(w) != 7 || w[0] != "active" {
			continue
		}
		if h := hctxOf(w[1], w[2]); h != nil {
			kv := pairs(w[3:])
			h.SetupActiveQueues = atoi(kv["active_queues"])
			h.SetupQueued, _ = strconv.ParseInt(kv["queued"], 10, 64)
		}
	}
	for _, d := range byName {
		sort.Slice(d.Hctxs, func(i, j int) bool { return hctxIndex(d.Hctxs[i].Name) < hctxIndex(d.Hctxs[j].Name) })
	}
	f.Interrupts = counterDeltas(g.blocks["sched-before"], g.blocks["sched-after"], "irq")
	f.SoftIRQs = counterDeltas(g.blocks["sched-before"], g.blocks["sched-after"], "softirq")
	f.Hrtimers = hrtimerDeltas(g.blocks["sched-before"], g.blocks["sched-after"])
	f.Tasks = taskFacts(g.blocks["tasks"])
	for _, line := range g.blocks["tags"] {
		name, rest, _ := strings.Cut(line, " ")
		if d := byName[name]; d != nil {
			d.Tags = append(d.Tags, strings.TrimSpace(rest))
		}
	}
	return f, nil
}

// statBlock parses "uptime S" and "DISK field..." lines.
func statBlock(lines []string) (map[string][]int64, float64, error) {
	out := map[string][]int64{}
	up := 0.0
	for _, line := range lines {
		w := strings.Fields(line)
		if len(w) < 2 {
			continue
		}
		if w[0] == "hctx" || w[0] == "stat" {
			continue // hctxCounters and cpuStats read these
		}
		if w[0] == "uptime" {
			up, _ = strconv.ParseFloat(w[1], 64)
			continue
		}
		var v []int64
		for _, s := range w[1:] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("oracle: guest stat line %q: %v", line, err)
			}
			v = append(v, n)
		}
		out[w[0]] = v
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("oracle: guest log has no /sys/block stat snapshot")
	}
	return out, up, nil
}

// hctxCounters reads "hctx DISK HCTX queued Q run R" lines into "DISK HCTX" →
// {Q, R}.
func hctxCounters(lines []string) map[string][2]int64 {
	out := map[string][2]int64{}
	for _, line := range lines {
		w := strings.Fields(line)
		if len(w) != 7 || w[0] != "hctx" {
			continue
		}
		kv := pairs(w[3:])
		q, _ := strconv.ParseInt(kv["queued"], 10, 64)
		r, _ := strconv.ParseInt(kv["run"], 10, 64)
		out[w[1]+" "+w[2]] = [2]int64{q, r}
	}
	return out
}

// cpuStats reads "stat cpuN v0 v1 ..." lines (/proc/stat) in CPU order.
func cpuStats(lines []string) [][]int64 {
	var out [][]int64
	for _, line := range lines {
		w := strings.Fields(line)
		if len(w) < 3 || w[0] != "stat" || !strings.HasPrefix(w[1], "cpu") {
			continue
		}
		var v []int64
		for _, x := range w[2:] {
			n, _ := strconv.ParseInt(x, 10, 64)
			v = append(v, n)
		}
		out = append(out, v)
	}
	return out
}

// perCPURows reads "PREFIX NAME: c0 c1 ... [description]" lines (a row of
// /proc/interrupts or /proc/softirqs) into NAME → the leading counts.
func perCPURows(lines []string, prefix string) map[string][]int64 {
	out := map[string][]int64{}
	for _, line := range lines {
		w := strings.Fields(line)
		if len(w) < 3 || w[0] != prefix || !strings.HasSuffix(w[1], ":") {
			continue
		}
		var v []int64
		for _, x := range w[2:] {
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				break // the row's description ("Local timer interrupts")
			}
			v = append(v, n)
		}
		if len(v) > 0 {
			out[strings.TrimSuffix(w[1], ":")] = v
		}
	}
	return out
}

// counterDeltas returns, per row of prefix present before and after with the same
// number of CPUs, the per-CPU after − before; nil when no row has both.
func counterDeltas(before, after []string, prefix string) map[string][]int64 {
	b, a := perCPURows(before, prefix), perCPURows(after, prefix)
	var out map[string][]int64
	for name, av := range a {
		bv, ok := b[name]
		if !ok || len(bv) != len(av) {
			continue
		}
		d := make([]int64, len(av))
		for i := range av {
			d[i] = av[i] - bv[i]
		}
		if out == nil {
			out = map[string][]int64{}
		}
		out[name] = d
	}
	return out
}

// timerRows reads "timer cpuN FIELD V" lines into cpu → field → value.
func timerRows(lines []string) map[int]map[string]int64 {
	out := map[int]map[string]int64{}
	for _, line := range lines {
		w := strings.Fields(line)
		if len(w) != 4 || w[0] != "timer" || !strings.HasPrefix(w[1], "cpu") {
			continue
		}
		cpu, err := strconv.Atoi(strings.TrimPrefix(w[1], "cpu"))
		v, err2 := strconv.ParseInt(w[3], 10, 64)
		if err != nil || err2 != nil || cpu < 0 {
			continue
		}
		if out[cpu] == nil {
			out[cpu] = map[string]int64{}
		}
		out[cpu][w[2]] = v
	}
	return out
}

// hrtimerDeltas returns per CPU (in CPU order) the after − before of the timer
// rows, for the CPUs reported on both sides; nil when none is.
func hrtimerDeltas(before, after []string) []HrtimerFacts {
	b, a := timerRows(before), timerRows(after)
	var out []HrtimerFacts
	for cpu, av := range a {
		bv, ok := b[cpu]
		if !ok {
			continue
		}
		d := func(k string) int64 { return av[k] - bv[k] }
		out = append(out, HrtimerFacts{CPU: cpu, NrEvents: d("nr_events"), NrRetries: d("nr_retries"), NrHangs: d("nr_hangs"),
			IdleCalls: d("idle_calls"), IdleSleeps: d("idle_sleeps")})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CPU < out[j].CPU })
	return out
}

// taskFacts reads the tasks block's "task PID TID name N span S key value ..."
// lines, sorted by PID then TID; malformed lines are skipped.
func taskFacts(lines []string) []TaskFacts {
	var out []TaskFacts
	for _, line := range lines {
		w := strings.Fields(line)
		if len(w) < 5 || w[0] != "task" {
			continue
		}
		pid, err := strconv.Atoi(w[1])
		tid, err2 := strconv.Atoi(w[2])
		if err != nil || err2 != nil {
			continue
		}
		kv := pairs(w[3:])
		n := func(k string) int64 { v, _ := strconv.ParseInt(kv[k], 10, 64); return v }
		span, _ := strconv.ParseFloat(kv["span"], 64)
		out = append(out, TaskFacts{PID: pid, TID: tid, Name: kv["name"], Span: span,
			RunNs: n("run_ns"), WaitNs: n("wait_ns"), Slices: n("slices"), Voluntary: n("vol"), Nonvoluntary: n("nvol"),
			RunNsTotal: n("run_ns_total"), WaitNsTotal: n("wait_ns_total"), SlicesTotal: n("slices_total"),
			VoluntaryTotal: n("vol_total"), NonvoluntaryTotal: n("nvol_total")})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PID != out[j].PID {
			return out[i].PID < out[j].PID
		}
		return out[i].TID < out[j].TID
	})
	return out
}

// hctxIndex is N of "hctxN" (-1 when malformed).
func hctxIndex(name string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "hctx"))
	if err != nil {
		return -1
	}
	return n
}

// pairs reads "key value key value ..." words into a map.
func pairs(w []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(w); i += 2 {
		m[w[i]] = w[i+1]
	}
	return m
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// GuestSetupCPU is the CPU the oracle's guest runs modprobe on (taskset in
// scripts/guest-init.sh), and so the CPU add_disk's partition scan of a null_blk
// disk reads from.
const GuestSetupCPU = 0

// GuestSetup returns the guest's I/O before fio as the model runs it (the partition
// scan of every new disk from GuestSetupCPU, SetupSeconds before fio, on the guest's
// clock), or nil for results recorded before the guest pinned modprobe and reported
// its setup (SetupSeconds 0): those ran modprobe on whichever CPU the scheduler
// chose.
func (f *Facts) GuestSetup() *stack.GuestSetup {
	if f == nil || f.SetupSeconds <= 0 {
		return nil
	}
	return &stack.GuestSetup{ScanCPU: GuestSetupCPU,
		Before: sim.Time(math.Round(f.SetupSeconds * 1e9)), Uptime: sim.Time(math.Round(f.StartUptime * 1e9))}
}
