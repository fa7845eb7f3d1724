package setup

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/internal/echo"
	"github.com/blkmq/blkmq/stack"
)

// state is the machine being resolved: every setting as a typed value plus where
// it came from.
type state struct {
	kernel     string
	cpus       int
	hz         int
	canQueue   int
	nrHwQueues int
	cmdPerLun  int
	hostTagset bool
	// vmbusChannelCPUs: the storvsc host's VMBus channel CPUs (scsi.Storvsc); when set,
	// commands complete on the channel storvsc_do_io picks (scsi.CompleteOnVMBusChannel).
	vmbusChannelCPUs []int
	// pollQueues are null_blk's poll_queues: extra hctxs of the request queue
	// that count in elevator_get_default's nr_hw_queues but get no normal I/O,
	// so the model does not simulate them.
	pollQueues int

	queueDepth int // 0 = cmd_per_lun
	nrRequests int // 0 = kernel default
	scheduler  string
	// request-size limits (struct queue_limits; dispatch.QueueLimits): the
	// driver's, then queue/max_sectors_kb (limits.go)
	maxSectors     int   // max_sectors (512-byte sectors)
	maxHwSectors   int   // max_hw_sectors (sectors)
	maxSegments    int   // max_segments
	maxSegmentSize int64 // max_segment_size (bytes)
	logicalBS      int   // logical_block_size (bytes)

	opts dispatch.Options

	emulationOverhead time.Duration          // system/emulation_overhead (overhead.go)
	emulationSlowdown float64                // system/emulation_slowdown (overhead.go); 0 = 1
	emulationWake     stack.EmulationOptions // system/emulation_wake_switch (overhead.go); zero = off
	placement         stack.PlacementRule    // system/sched_placement (placement.go)
	placeWhenRun      bool                   // system/sched_wake_placement=run (placement.go)
	forkSpread        bool                   // system/sched_fork_placement=spread (placement.go)
	forkIdlestGroup   bool                   // system/sched_fork_idlest_group=on (placement.go)
	nohzKickNrRunning bool                   // system/sched_nohz_kick=nr_running (placement.go)
	kworkerTasks      bool                   // system/sched_kworker_tasks=on (placement.go)
	kblockdTTWU       bool                   // system/kblockd_ttwu=on (placement.go)
	irqPreempt        bool                   // system/irq_preempt=on (placement.go)
	noProcessOneWork  bool                   // system/process_one_work=off (placement.go)
	peltLoad          bool                   // system/sched_pelt_load=on (placement.go)
	checkPreemptTick  bool                   // system/check_preempt_tick=on (placement.go)
	numaPull          bool                   // system/sched_numa_pull=on (placement.go)
	rebalanceDomains  bool                   // system/rebalance_domains=on (placement.go)
	sysfsWrites       []stack.SysfsWrite     // run/sysfs_writes (sysfswrites.go)

	luns  []lun
	src   map[string]string // key -> source
	notes map[string]string // key -> note
	extra []Setting         // device and host parameters as given
	warn  []string
}

// key is one setting addressable with --set (sysfs-style path).
type key struct {
	name    string
	doc     string
	allowed string
	// early keys are applied before the host and device descriptions, whose
	// derived values depend on them.
	early bool
	set   func(s *state, v string) error
	get   func(s *state) string
}

var keys = map[string]*key{}

// keyOrder is the display order of --explain and of error listings.
var keyOrder []string

func addKey(k *key) {
	keys[k.name] = k
	keyOrder = append(keyOrder, k.name)
}

// errRange is the error of a value outside its allowed values.
type errRange struct{ allowed string }

func (e errRange) Error() string { return "allowed: " + e.allowed }

func parseInt(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, errRange{fmt.Sprintf("an integer in [%d, %d]", lo, hi)}
	}
	return n, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "y", "yes", "true", "on":
		return true, nil
	case "0", "n", "no", "false", "off":
		return false, nil
	}
	return false, errRange{"0 or 1 (also y/n, true/false)"}
}

func fmtBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func intKey(name, doc string, lo, hi int, early bool, field func(*state) *int) *key {
	return &key{name: name, doc: doc, allowed: fmt.Sprintf("[%d, %d]", lo, hi), early: early,
		set: func(s *state, v string) error {
			n, err := parseInt(v, lo, hi)
			if err == nil {
				*field(s) = n
			}
			return err
		},
		get: func(s *state) string { return strconv.Itoa(*field(s)) }}
}

func boolKey(name, doc string, field func(*state) *bool) *key {
	return &key{name: name, doc: doc, allowed: "0, 1",
		set: func(s *state, v string) error {
			b, err := parseBool(v)
			if err == nil {
				*field(s) = b
			}
			return err
		},
		get: func(s *state) string { return fmtBool(*field(s)) }}
}

// enumKey is a key whose values are names mapped to a small integer type.
func enumKey[T ~uint8](name, doc string, names []string, field func(*state) *T) *key {
	return &key{name: name, doc: doc, allowed: strings.Join(names, ", "),
		set: func(s *state, v string) error {
			for i, n := range names {
				if strings.TrimSpace(v) == n {
					*field(s) = T(i)
					return nil
				}
			}
			return errRange{strings.Join(names, ", ")}
		},
		get: func(s *state) string {
			i := int(*field(s))
			if i < len(names) {
				return names[i]
			}
			return strconv.Itoa(i)
		}}
}

func init() {
	addKey(&key{name: "kernel", doc: "kernel release whose rules apply (selects every era/ switch)",
		allowed: "MAJOR.MINOR in [4.15, 6.19], a stable release (6.1.192: mainline plus its modelled backports) or a uname -r form (6.1.0-57-amd64, v5.17, 6.8-rc2), or current", early: true,
		set: func(s *state, v string) error {
			v = strings.TrimSpace(v)
			if v == "" || v == "current" {
				s.kernel = ""
				delete(s.notes, "kernel")
				return nil
			}
			rel, note, err := kernelRelease(v)
			if err != nil {
				return err
			}
			s.kernel = rel
			delete(s.notes, "kernel")
			if note != "" {
				s.notes["kernel"] = note
			}
			return nil
		},
		get: func(s *state) string {
			if s.kernel == "" {
				return "current"
			}
			return s.kernel
		}})
	addKey(intKey("system/nr_cpus", "online CPUs (one software queue each)", 1, 4096, true,
		func(s *state) *int { return &s.cpus }))
	addKey(intKey("system/hz", "CONFIG_HZ: jiffies per second (scsi_debug delay)", 1, 10000, true,
		func(s *state) *int { return &s.hz }))
	addKey(intKey("host/can_queue", "Scsi_Host can_queue = tag set queue_depth", 1, 10240, false,
		func(s *state) *int { return &s.canQueue }))
	addKey(intKey("host/nr_hw_queues", "hardware queues (hctxs) of the tag set", 1, 4096, false,
		func(s *state) *int { return &s.nrHwQueues }))
	addKey(intKey("host/cmd_per_lun", "initial LUN queue_depth (capped at can_queue)", 1, 10240, false,
		func(s *state) *int { return &s.cmdPerLun }))
	addKey(boolKey("host/host_tagset", "host-wide tags (BLK_MQ_F_TAG_HCTX_SHARED; storvsc RFC hctx_share_tags)",
		func(s *state) *bool { return &s.hostTagset }))
	addKey(&key{name: "tags", doc: "shorthand for host/host_tagset", allowed: "per-hctx, shared",
		set: func(s *state, v string) error {
			switch strings.TrimSpace(v) {
			case "per-hctx":
				s.hostTagset = false
			case "shared":
				s.hostTagset = true
			default:
				return errRange{"per-hctx, shared"}
			}
			return nil
		},
		get: func(s *state) string {
			if s.hostTagset {
				return "shared"
			}
			return "per-hctx"
		}})
	addKey(&key{name: "device/queue_depth", doc: "LUN queue_depth (SCSI budget); unset = cmd_per_lun (0 is refused, as sdev_store_queue_depth refuses it with EINVAL)",
		allowed: "[1, 10000]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 1, 10000)
			if err == nil {
				s.queueDepth = n
			}
			return err
		},
		get: func(s *state) string { return strconv.Itoa(s.effectiveQueueDepth()) }})
	addKey(&key{name: "queue/nr_requests", doc: "request-queue nr_requests (per hctx unless host-wide tags); unset = kernel default (0 is refused, as queue_requests_store refuses it with EINVAL)",
		allowed: "[1, 2048]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 1, 2048)
			if err == nil {
				s.nrRequests = n
				if n < blkdevMinRQ {
					s.warn = append(s.warn, fmt.Sprintf("queue/nr_requests=%d: the kernel's queue_requests_store raises values below BLKDEV_MIN_RQ to %d; the model keeps %d as given (a model-only setting)", n, blkdevMinRQ, n))
				}
			}
			return err
		},
		get: func(s *state) string {
			if s.nrRequests == 0 {
				return fmt.Sprintf("%d (kernel default)", s.defaultNrRequests())
			}
			return strconv.Itoa(s.nrRequests)
		}})
	addKey(&key{name: "queue/scheduler", doc: "I/O scheduler (elevator)", allowed: "none, mq-deadline, default",
		set: func(s *state, v string) error {
			switch v = strings.Trim(strings.TrimSpace(v), "[]"); v {
			case "none", "mq-deadline":
				s.scheduler = v
			case "default", "":
				s.scheduler = ""
			case "bfq", "kyber":
				// block/bfq-iosched.c, block/kyber-iosched.c: real blk-mq elevators
				return fmt.Errorf("%s is a kernel I/O scheduler the model does not simulate; allowed: none, mq-deadline, default", v)
			default:
				return errRange{"none, mq-deadline, default"}
			}
			return nil
		},
		get: func(s *state) string {
			if s.scheduler == "" {
				return s.defaultScheduler() + " (kernel default)"
			}
			return s.scheduler
		}})
	addLimitKeys() // queue/max_sectors_kb and the driver's limits (limits.go)
	addEraKeys()
}

// effectiveQueueDepth is the LUN queue_depth the stack will use.
func (s *state) effectiveQueueDepth() int {
	if s.queueDepth > 0 {
		return s.queueDepth
	}
	return stack.Host{CanQueue: s.canQueue, CmdPerLun: s.cmdPerLun}.DefaultQueueDepth()
}

// defaultScheduler is elevator_get_default for this tag set and era: the request
// queue's nr_hw_queues includes the poll hctxs (null_blk poll_queues).
func (s *state) defaultScheduler() string {
	if s.nrHwQueues+s.pollQueues == 1 || s.hostTagset && s.opts.DefaultElevator == dispatch.ElevatorSingleQueueOrSharedTags {
		return "mq-deadline"
	}
	return "none"
}

// blkdevMinRQ is BLKDEV_MIN_RQ (include/linux/blkdev.h), the floor queue_requests_store
// applies to a written nr_requests.
const blkdevMinRQ = 4

// defaultNrRequests is blk_mq_init_sched / tag set default nr_requests.
func (s *state) defaultNrRequests() int {
	sched := s.scheduler
	if sched == "" {
		sched = s.defaultScheduler()
	}
	if sched == "mq-deadline" {
		return 2 * min(s.canQueue, 128)
	}
	return s.canQueue
}

// queueSysfs61 are the attributes 6.1's block/blk-sysfs.c (and blk-mq-sysfs.c,
// blk-throttle.c) puts in /sys/block/DEV/queue/; the ones without a key are refused
// as not simulated rather than as unknown.
var queueSysfs61 = map[string]bool{
	"add_random": true, "chunk_sectors": true, "dax": true, "discard_granularity": true,
	"discard_max_bytes": true, "discard_max_hw_bytes": true, "discard_zeroes_data": true,
	"fua": true, "hw_sector_size": true, "io_poll": true, "io_poll_delay": true,
	"io_timeout": true, "iostats": true, "logical_block_size": true,
	"max_discard_segments": true, "max_hw_sectors_kb": true, "max_integrity_segments": true,
	"max_sectors_kb": true, "max_segment_size": true, "max_segments": true,
	"minimum_io_size": true, "nomerges": true, "nr_requests": true, "nr_zones": true,
	"max_open_zones": true, "max_active_zones": true, "optimal_io_size": true,
	"physical_block_size": true, "read_ahead_kb": true, "rotational": true,
	"rq_affinity": true, "scheduler": true, "stable_writes": true, "throttle_sample_time": true,
	"virt_boundary_mask": true, "wbt_lat_usec": true, "write_cache": true,
	"write_same_max_bytes": true, "write_zeroes_max_bytes": true, "zone_append_max_bytes": true,
	"zone_write_granularity": true, "zoned": true,
}

// set applies one key=value, recording its source.
func (s *state) set(name, value, source string) error {
	k, ok := keys[name]
	if !ok {
		if attr, isQueue := strings.CutPrefix(name, "queue/"); isQueue && queueSysfs61[attr] {
			return fmt.Errorf("%s is a sysfs attribute of /sys/block/DEV/queue/ (6.1 block/blk-sysfs.c) that the model does not simulate; allowed: %s", name, strings.Join(sortedKeys(), ", "))
		}
		return fmt.Errorf("unknown key %q; allowed: %s", clip(name), strings.Join(sortedKeys(), ", "))
	}
	if err := k.set(s, value); err != nil {
		return fmt.Errorf("%s=%s: %w", name, clip(value), err)
	}
	if name == "tags" {
		name = "host/host_tagset"
		source += " (tags=" + strings.TrimSpace(value) + ")"
	}
	s.src[name] = source
	return nil
}

func sortedKeys() []string {
	out := append([]string(nil), keyOrder...)
	sort.Strings(out)
	return out
}

// SplitAssignment splits "key=value" and returns an error naming the text when
// there is no '=' or the key is empty.
func SplitAssignment(a string) (key, value string, err error) {
	key, value, err = splitAssign(a)
	if err != nil {
		return "", "", fmt.Errorf("setup: %w", err)
	}
	return key, value, nil
}

func splitAssign(a string) (key, value string, err error) {
	k, v, ok := strings.Cut(a, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", fmt.Errorf("%q: want key=value (e.g. queue/nr_requests=56)", clip(a))
	}
	return k, strings.TrimSpace(v), nil
}

// Keys returns every key accepted by --set and Description.Set, sorted, with its
// allowed values and meaning, for help texts.
func Keys() []KeyInfo {
	var out []KeyInfo
	for _, n := range sortedKeys() {
		k := keys[n]
		out = append(out, KeyInfo{Name: n, Allowed: k.allowed, Doc: k.doc})
	}
	return out
}

// KeyInfo describes one settable key.
type KeyInfo struct {
	// Name is the sysfs-style path, e.g. "queue/nr_requests".
	Name string
	// Allowed lists the allowed values or range.
	Allowed string
	// Doc says what the key models.
	Doc string
}

// majorMinor reduces a kernel release as uname -r or a git tag writes it ("5.17",
// "5.17.3", "v5.17", "6.1.0-57-amd64", "6.8-rc2") to MAJOR.MINOR, the granularity of
// the modelled rules. ok is false when v does not start with two dot-separated
// numbers followed by the end or one of . - + ~ _.
func majorMinor(v string) (string, bool) {
	v = strings.TrimPrefix(v, "v")
	num := func(i int) int { // index after the digits starting at i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		return i
	}
	maj := num(0)
	if maj == 0 || maj >= len(v) || v[maj] != '.' {
		return "", false
	}
	mn := num(maj + 1)
	if mn == maj+1 || mn < len(v) && !strings.ContainsRune(".-+~_", rune(v[mn])) {
		return "", false
	}
	return v[:mn], true
}

// clip returns s cut for an error message (echo.Clip: at most echo.Max bytes and the
// length).
func clip(s string) string { return echo.Clip(s) }
