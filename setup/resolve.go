package setup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// Defaults of a machine nobody described (assumptions, stated in --explain as
// "default").
const (
	// DefaultCPUs is system/nr_cpus when not given: fixed, not this machine's count, so
	// results do not depend on where they are computed.
	DefaultCPUs = 4
	// DefaultHZ is system/hz: CONFIG_HZ=250 (Debian, Ubuntu generic kernels).
	DefaultHZ = 250
	// DefaultDevice is the device when none is given.
	DefaultDevice = "null_blk"
)

// Layer is one source of settings: the command line or a config file. Later layers
// override earlier ones: a non-empty Kernel, CPUs or Host replaces, non-empty Devices
// replace the whole device list, Set entries apply in order.
type Layer struct {
	// Name is the source shown by --explain and in errors, e.g. "flags" or
	// "config storvsc.toml".
	Name string
	// Desc is the layer's description.
	Desc Description
	// Lines, when non-nil, maps a Set entry (as written) to its line in the layer's
	// file, for error messages.
	Lines map[string]int
	// KeyLines, when non-nil, maps a field's key in the layer's file (kernel, cpus,
	// host, devices) to its line, for error messages.
	KeyLines map[string]int
	// DeviceLines, when non-nil, is the line of each Devices entry in the layer's
	// file (a devices array may span lines), for error messages.
	DeviceLines []int
}

// at returns where the layer gives key: "NAME:LINE" when the line is known, else
// the layer's name.
func (l Layer) at(key string) string {
	if line, ok := l.KeyLines[key]; ok {
		return fmt.Sprintf("%s:%d", l.Name, line)
	}
	return l.Name
}

// Setting is one resolved value and where it came from.
type Setting struct {
	// Key is the --set key (e.g. "queue/nr_requests"), or KIND.PARAM for a device
	// or host module parameter as given.
	Key string
	// Value is the resolved value.
	Value string
	// Source is "default", "era X.Y", "device KIND", "host KIND", or a layer name
	// (e.g. "flags", "config FILE").
	Source string
	// Note explains a value the model treats specially ("" usually).
	Note string
}

// Resolved is a described machine turned into a stack.Config.
type Resolved struct {
	// Config is ready for stack.Run (Seed 0: set it).
	Config stack.Config
	// Settings lists every setting with its value and source, in display order.
	Settings []Setting
	// Warnings are non-fatal remarks (a parameter the kernel itself ignores, a value
	// capped as the driver caps it).
	Warnings []string
	// LUNs are the LUN names fio jobs target (filename=/directory=) when there are
	// several.
	LUNs []string
	// Capacity is each LUN's size in bytes (0 = unknown), in LUNs order: what a fio
	// job without size= covers (see SizeJobs).
	Capacity []int64
	// bounded marks, in LUNs order, the LUNs whose model rejects I/O beyond Capacity;
	// capacityNote says where each capacity comes from ("scsi_debug dev_size_mb=8").
	bounded      []bool
	capacityNote []string
}

func newState() *state {
	return &state{cpus: DefaultCPUs, hz: DefaultHZ, canQueue: 256, nrHwQueues: 1, cmdPerLun: 64,
		maxSectors: 2 * blkDefMaxSectorsKB, maxHwSectors: 2 * scsiDefaultMaxSectorsKB, maxSegments: sgAll,
		maxSegmentSize: blkMaxSegmentSize, logicalBS: 512, src: map[string]string{}, notes: map[string]string{}}
}

// Resolve turns a single description into a stack.Config; see ResolveLayers.
func (d Description) Resolve() (*Resolved, error) {
	return ResolveLayers(Layer{Name: "flags", Desc: d})
}

// ResolveLayers merges the layers and resolves them, in this order: defaults; the
// early keys (kernel, system/nr_cpus, system/hz) from the Kernel and CPUs fields and
// any Set; the era switches of the kernel release; the host description; the device
// descriptions (which set the host/ keys of their driver); then every Set entry in
// layer order. Errors name the layer, the key or parameter and the allowed values.
func ResolveLayers(layers ...Layer) (*Resolved, error) {
	if groups, at := driverGroups(layers); groups != nil {
		return resolveGroups(layers, groups, at) // several driver kinds (multidev.go)
	}
	return resolveOne(layers)
}

// conflictingEarly refuses a layer that gives kernel or system/nr_cpus both as its
// field (--kernel, --cpus; kernel =, cpus = in a config file) and as a set entry
// with another value: which one was meant is not clear.
func conflictingEarly(d Description, k, v string) error {
	switch {
	case k == "kernel" && d.Kernel != "" && d.Kernel != v:
		return fmt.Errorf("kernel=%s disagrees with kernel %q given in the same place (--kernel or kernel =); give one", v, d.Kernel)
	case k == "system/nr_cpus" && d.CPUs != 0 && strings.TrimSpace(v) != fmt.Sprint(d.CPUs):
		return fmt.Errorf("system/nr_cpus=%s disagrees with cpus %d given in the same place (--cpus or cpus =); give one", v, d.CPUs)
	}
	return nil
}

// givenSet records a layer's set entries by key (tags= under host/host_tagset,
// the key it sets): the value as written (tags=shared for the alias) and its line
// in the layer's file (0: unknown).
type givenSet map[string]struct {
	v    string
	line int
}

// add records key=v of one layer, refusing a key the layer gave before with another
// value: within one place (the command line, one config file) the last one would
// win without a word, and which one was meant is not clear. A later layer
// overriding an earlier one is not a repeat.
func (g givenSet) add(k, v string, line int) error {
	key, shown := k, v
	if k == "tags" {
		key, shown = "host/host_tagset", "tags="+v
	}
	prev, ok := g[key]
	if !ok {
		g[key] = struct {
			v    string
			line int
		}{shown, line}
		return nil
	}
	if prev.v == shown {
		return nil
	}
	first := prev.v
	if prev.line > 0 {
		first = fmt.Sprintf("%s at line %d", prev.v, prev.line)
	}
	return fmt.Errorf("%s given twice in the same place (%s, then %s); give it once", key, first, shown)
}

// resolveOne is ResolveLayers for one host driver's devices.
func resolveOne(layers []Layer) (*Resolved, error) {
	s := newState()
	var merged Description
	hostFrom, devFrom, hostAt, devAt := "", "", "", ""
	var devLines []int // the file line of each device entry, nil if unknown
	type set struct{ k, v, from, at string }
	var sets []set
	for _, l := range layers {
		d := l.Desc
		if d.Kernel != "" {
			if err := s.set("kernel", d.Kernel, l.Name); err != nil {
				return nil, fmt.Errorf("setup: %s: %w", l.at("kernel"), err)
			}
		}
		if d.CPUs != 0 {
			if err := s.set("system/nr_cpus", fmt.Sprint(d.CPUs), l.Name); err != nil {
				// a config file's "cpus = -1" named the file without its line
				return nil, fmt.Errorf("setup: %s: cpus: %w", l.at("cpus"), err)
			}
		}
		if d.Host != "" {
			merged.Host, hostFrom, hostAt = d.Host, l.Name, l.at("host")
		}
		if len(d.Devices) > 0 {
			merged.Devices, devFrom, devAt = d.Devices, l.Name, l.at("devices")
			devLines = nil
			if len(l.DeviceLines) == len(d.Devices) {
				devLines = l.DeviceLines
			}
		}
		given := givenSet{} // this layer's keys so far
		for _, a := range d.Set {
			at := l.Name
			line, hasLine := l.Lines[a]
			if hasLine {
				at = fmt.Sprintf("%s:%d", l.Name, line)
			}
			k, v, err := splitAssign(a)
			if err != nil {
				return nil, fmt.Errorf("setup: %s: %w", at, err)
			}
			if err := given.add(k, v, line); err != nil {
				return nil, fmt.Errorf("setup: %s: %w", at, err)
			}
			sets = append(sets, set{k, v, l.Name, at})
			if kd, ok := keys[k]; ok && kd.early {
				// an early key is applied with its layer, so that a later layer
				// (the flags over a config file) overrides it as it overrides
				// the layer's kernel and cpus fields
				if err := conflictingEarly(d, k, v); err != nil {
					return nil, fmt.Errorf("setup: %s: %w", at, err)
				}
				if err := s.set(k, v, l.Name); err != nil {
					return nil, fmt.Errorf("setup: %s: %w", at, err)
				}
			}
		}
	}
	s.applyEra()
	if err := s.applyDevices(merged, hostFrom, devFrom, hostAt, devAt, devLines); err != nil {
		return nil, err
	}
	for _, st := range sets {
		if k, ok := keys[st.k]; !ok || !k.early {
			if err := s.set(st.k, st.v, st.from); err != nil {
				return nil, fmt.Errorf("setup: %s: %w", st.at, err)
			}
		}
	}
	return s.resolved()
}

// applyDevices applies the host and device descriptions; hostFrom and devFrom name
// the layers that gave them (the settings' source), hostAt and devAt where (the
// layer and line, for errors; devLines, when non-nil, the line of each device entry
// in devFrom's file).
func (s *state) applyDevices(d Description, hostFrom, devFrom, hostAt, devAt string, devLines []int) error {
	devs := d.Devices
	if len(devs) == 0 {
		devs, devFrom, devAt, devLines = []string{DefaultDevice}, "default", "default", nil
	}
	devWhere := func(i int) string {
		at := devAt
		if devLines != nil {
			at = fmt.Sprintf("%s:%d", devFrom, devLines[i])
		}
		return fmt.Sprintf("%s: --device %q", at, clip(devs[i]))
	}
	var kinds []deviceKind
	var names []string
	var pairsOf [][][2]string
	for i, desc := range devs {
		where := devWhere(i)
		kind, pairs, err := splitDescription(desc, where)
		if err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		k, ok := deviceKinds[kind]
		if !ok {
			return fmt.Errorf("setup: %s: unknown device kind %q; allowed: %s", where, clip(kind), kindNames(deviceKinds))
		}
		if k.driver && len(devs) > 1 {
			return fmt.Errorf("setup: %s: %s is its own host driver and must be the only --device of its host (more LUNs: scsi_debug max_luns= or num_tgts=, null_blk nr_devices=, nvme namespaces=)", where, kind)
		}
		s.warn = append(s.warn, repeatedParams(kind, pairs, where)...)
		kinds, names, pairsOf = append(kinds, k), append(names, kind), append(pairsOf, pairs)
	}
	host := d.Host
	if host != "" && kinds[0].driver {
		dev := names[0]
		if devFrom == "default" {
			dev += ", the default device,"
		}
		msg := fmt.Sprintf("%s is its own host; describe it with its module parameters or --set host/...", dev)
		if kind, _, err := splitDescription(host, ""); err == nil {
			if _, ok := hostKinds[kind]; !ok {
				msg = fmt.Sprintf("unknown host kind %q; allowed: %s; %s", clip(kind), kindNames(hostKinds), msg)
			}
		}
		if devFrom == "default" {
			msg += "; a --host takes --device " + hostedKinds()
		}
		return fmt.Errorf("setup: %s: --host %q: %s", hostAt, clip(host), msg)
	}
	if host == "" && !kinds[0].driver {
		host, hostFrom = kinds[0].host, "default for "+names[0]
		hostAt = hostFrom
	}
	if host != "" {
		where := fmt.Sprintf("%s: --host %q", hostAt, clip(host))
		kind, pairs, err := splitDescription(host, where)
		if err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		hk, ok := hostKinds[kind]
		if !ok {
			return fmt.Errorf("setup: %s: unknown host kind %q; allowed: %s", where, clip(kind), kindNames(hostKinds))
		}
		s.warn = append(s.warn, repeatedParams(kind, pairs, where)...)
		if err := hk.parse(s, pairs, where, "host "+kind+" ("+hostFrom+")"); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
	}
	for i, k := range kinds {
		where := devWhere(i)
		if err := k.parse(s, pairsOf[i], where, "device "+names[i]+" ("+devFrom+")"); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
	}
	return nil
}

// resolved builds the stack.Config and the settings list.
func (s *state) resolved() (*Resolved, error) {
	if s.nrHwQueues > s.cpus {
		s.warn = append(s.warn, fmt.Sprintf("host/nr_hw_queues %d > %d CPUs: hctxs without a CPU get no I/O", s.nrHwQueues, s.cpus))
	}
	if src := s.src["host/cmd_per_lun"]; s.queueDepth == 0 && s.cmdPerLun > s.canQueue && src != "" &&
		!strings.HasPrefix(src, "device ") && !strings.HasPrefix(src, "host ") {
		s.warn = append(s.warn, fmt.Sprintf("host/cmd_per_lun %d > host/can_queue %d: the LUN queue_depth is capped at %d, as the SCSI midlayer does", s.cmdPerLun, s.canQueue, s.canQueue))
	}
	if err := s.checkLimits(); err != nil {
		return nil, err
	}
	qd := s.effectiveQueueDepth()
	if qd > min(s.canQueue, 10000) {
		return nil, fmt.Errorf("setup: device/queue_depth=%d: allowed: [1, min(host/can_queue %d, 10000)]", qd, s.canQueue)
	}
	if s.queueDepth == 0 && min(s.cmdPerLun, s.canQueue) > qd {
		s.warn = append(s.warn, fmt.Sprintf("host/cmd_per_lun %d: the LUN queue_depth is capped at SCSI_MAX_QUEUE_DEPTH %d, as scsi_change_queue_depth does", s.cmdPerLun, qd))
	}
	if eff := s.effectiveScheduler(); s.nrRequests > 0 && eff == "none" && s.nrRequests > s.canQueue {
		why := ""
		if s.scheduler == "" {
			why = "; queue/scheduler is none, the kernel default here"
		}
		return nil, fmt.Errorf("setup: queue/nr_requests=%d: without a scheduler allowed: [1, host/can_queue %d] (driver tags only shrink%s)", s.nrRequests, s.canQueue, why)
	}
	opts := s.opts
	cfg := stack.Config{
		NrCPUs: s.cpus,
		Host: stack.Host{CanQueue: s.canQueue, NrHwQueues: s.nrHwQueues, CmdPerLun: s.cmdPerLun,
			HostTagset: s.hostTagset},
		Kernel:  s.kernel,
		Options: &opts,
	}
	r := &Resolved{Warnings: s.warn}
	sched := s.scheduler
	if sched == "" && s.pollQueues > 0 {
		// dispatch picks the default from the simulated hctxs only; the poll
		// hctxs it does not simulate still count in elevator_get_default.
		sched = s.defaultScheduler()
	}
	for _, l := range s.luns {
		cfg.LUNs = append(cfg.LUNs, stack.LUN{Name: l.name, Device: l.build, QueueDepth: s.queueDepth,
			NrRequests: s.nrRequests, Scheduler: sched, MaxSectorsKB: min(s.maxSectors/2, 32767), Limits: s.queueLimits()})
		r.LUNs = append(r.LUNs, l.name)
		r.Capacity = append(r.Capacity, l.capacity)
		r.bounded = append(r.bounded, l.bounded)
		r.capacityNote = append(r.capacityNote, l.capacityNote)
	}
	s.applyDrivers(&cfg) // drivers and per-device tag sets (setup/devices.go)
	cfg.Placement.Rule = s.placement
	cfg.Placement.PlaceWhenRun, cfg.Placement.ForkSpread, cfg.Placement.KworkerTasks = s.placeWhenRun, s.forkSpread, s.kworkerTasks
	cfg.Placement.ForkIdlestGroup, cfg.Placement.NohzKickNrRunning = s.forkIdlestGroup, s.nohzKickNrRunning
	cfg.Timing.KblockdTTWU, cfg.Timing.IRQPreempt = s.kblockdTTWU, s.irqPreempt
	cfg.Timing.NoProcessOneWork = s.noProcessOneWork
	cfg.Placement.PELTLoad, cfg.Placement.NUMAImbalancePull = s.peltLoad, s.numaPull
	cfg.Submit.CheckPreemptTick = s.checkPreemptTick
	cfg.Placement.RebalanceDomains = s.rebalanceDomains
	cfg.SysfsWrites = s.sysfsWrites // run/sysfs_writes (sysfswrites.go)
	if err := stack.Check(cfg, nil); err != nil {
		return nil, userError(err)
	}
	var err error
	if r.Config, err = withEmulation(cfg, s); err != nil { // emulation slowdown and overhead (overhead.go)
		return nil, err
	}
	if s.scheduler != "" {
		delete(s.notes, "queue/scheduler") // the poll_queues note explains the default only
	}
	for _, name := range keyOrder {
		if name == "tags" {
			continue
		}
		src := s.src[name]
		if src == "" {
			src = "default"
		}
		r.Settings = append(r.Settings, Setting{Key: name, Value: keys[name].get(s), Source: src, Note: s.notes[name]})
	}
	w, rc := sbitmapEra(s.kernel)
	eraSrc := "default"
	if s.kernel != "" {
		eraSrc = "era " + s.kernel
	}
	r.Settings = append(r.Settings,
		Setting{Key: "sbitmap/wake_scheme", Value: w, Source: eraSrc, Note: "from kernel only"},
		Setting{Key: "sbitmap/wake_batch_recalc", Value: rc, Source: eraSrc, Note: "from kernel only"})
	prow, pwarn := profileSettings(s.kernel)
	r.Settings, r.Warnings = append(r.Settings, prow...), append(r.Warnings, pwarn...)
	for _, l := range s.luns {
		v := l.kind
		if l.capacity > 0 {
			v += fmt.Sprintf(", %d bytes", l.capacity)
		}
		r.Settings = append(r.Settings, Setting{Key: "lun " + l.name, Value: v, Source: "device " + l.kind})
	}
	r.Settings = append(r.Settings, s.extra...)
	return r, nil
}

// Options returns the dispatch switches of the resolved configuration.
func (r *Resolved) Options() dispatch.Options { return *r.Config.Options }

// WithSeed returns a copy of the Config with Seed set and a watchdog of limit model
// time (0 keeps the stack default).
func (r *Resolved) WithSeed(seed uint64, limit sim.Time) stack.Config {
	c := r.Config
	c.Seed = seed
	c.Watchdog = limit
	return c
}

// Explain writes the settings as aligned "key = value  (source)" lines.
func (r *Resolved) Explain() string {
	w := 0
	for _, st := range r.Settings {
		w = max(w, len(st.Key))
	}
	var b strings.Builder
	for _, st := range r.Settings {
		fmt.Fprintf(&b, "%-*s = %s  (%s", w, st.Key, st.Value, st.Source)
		if st.Note != "" {
			fmt.Fprintf(&b, "; %s", st.Note)
		}
		b.WriteString(")\n")
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	return b.String()
}

// SizeJobs gives every job without size= the size of the LUN it targets, minus its
// offset, as fio does for a block device (fio's size defaults to the file or device
// size), when the LUN's capacity is known. The stack would otherwise use 1 GiB. It
// matters for random I/O on small devices: scsi_debug's default 8 MiB lets random
// reads merge (the request-queue merge of adjacent sectors). It returns the jobs changed.
//
// On a LUN whose model rejects I/O beyond its capacity (hdd), the jobs without size=
// share what the stack's layout leaves of the capacity (stack.Run gives each job its own
// region, 1 MiB aligned, one after the other), each a whole number of MiB; CheckFit
// reports any job that still does not fit.
func (r *Resolved) SizeJobs(specs []fio.Spec) []string {
	var changed []string
	share := r.boundedShares(specs)
	for i := range specs {
		s := &specs[i]
		resolvePercents(s, r.capacityOf(s.Target))
		if s.Size != 0 {
			continue
		}
		li := r.lunIndex(s.Target)
		if li < 0 {
			continue
		}
		// fio: io_size = real_file_size - file_offset, the offset of this clone
		// (offset + N × offset_increment)
		c := r.Capacity[li] - s.Offset - int64(s.Index)*s.OffsetIncrement
		if r.bounded[li] {
			c = share[li]
		}
		if c >= s.BlockSize && r.Capacity[li] > 0 {
			s.Size = c
			changed = append(changed, s.Instance())
		}
	}
	return changed
}

// capacityOf is the capacity of the LUN a job targets, 0 if unknown.
func (r *Resolved) capacityOf(target string) int64 {
	if li := r.lunIndex(target); li >= 0 {
		return r.Capacity[li]
	}
	return 0
}

// resolvePercents turns fio's size=N% and offset=N% into bytes of the device's
// capacity (fio: a share of the file or device size), aligned to the block
// size, when the capacity is known.
func resolvePercents(s *fio.Spec, capacity int64) {
	if capacity <= 0 {
		return
	}
	if s.OffsetPercent > 0 && s.Offset == 0 {
		s.Offset = int64(float64(capacity)*s.OffsetPercent/100) / s.BlockSize * s.BlockSize
		s.OffsetPercent = 0
	}
	if s.SizePercent > 0 && s.Size == 0 {
		s.Size = max(int64(float64(capacity-s.Offset)*s.SizePercent/100)/s.BlockSize*s.BlockSize, s.BlockSize)
		s.SizePercent = 0
	}
}

// regionAlign is the alignment of the job regions stack.Run lays out (bytes).
const regionAlign = 1 << 20

func alignRegion(n int64) int64 { return (n + regionAlign - 1) &^ (regionAlign - 1) }

// stackDefaultSize is the size stack.Run gives a job without size= (bytes).
const stackDefaultSize = 1 << 30

// boundedShares returns, per bounded LUN, the size each of its jobs without size= gets:
// the capacity left after every other job's region, split evenly, in whole MiB.
func (r *Resolved) boundedShares(specs []fio.Spec) []int64 {
	used := int64(0)
	n := make([]int64, len(r.LUNs))
	for i := range specs {
		s := &specs[i]
		li := r.lunIndex(s.Target)
		switch {
		case s.Size != 0:
			used += alignRegion(s.Offset + s.Size)
		case li >= 0 && r.bounded[li]:
			n[li]++
			used += alignRegion(s.Offset)
		case li >= 0 && r.Capacity[li] > s.Offset+s.BlockSize:
			used += alignRegion(r.Capacity[li])
		default:
			used += alignRegion(s.Offset + stackDefaultSize)
		}
	}
	share := make([]int64, len(r.LUNs))
	for li := range share {
		if n[li] > 0 && r.Capacity[li] > used {
			share[li] = (r.Capacity[li] - used) / n[li] &^ (regionAlign - 1)
		}
	}
	return share
}

// CheckFit returns an error naming the first job that would do I/O past the end of
// its LUN, when the LUN's capacity is known (scsi_debug dev_size_mb or virtual_gb,
// null_blk gb, the nvme, ssd, cloud and hdd models' sizes). Call it after SizeJobs.
//
// A job on a block device (its target is the LUN's /dev name) covers [offset +
// N × offset_increment, that + size) of it, size= defaulting to the device's size
// (SizeJobs). fio refuses an offset at or past the device's end ("offset extends
// end"); a region that runs past it would have fio issue I/O the kernel refuses
// (blkdev_write_iter fails a write past the end with ENOSPC, blkdev_read_iter returns
// 0 bytes), so it is an error here rather than a silent run on bytes that do not
// exist. A job that names no device gets a file on a file system on the LUN, so its
// offset + size must fit the LUN too: fio fails with ENOSPC laying out or writing a
// larger file. On a LUN whose model rejects such I/O (hdd) the regions stack.Run lays out
// for jobs that do not name the device (one after the other, 1 MiB aligned, 1 GiB for
// a job without size) must fit too.
func (r *Resolved) CheckFit(specs []fio.Spec) error {
	start := int64(0)
	for i := range specs {
		s := &specs[i]
		size := s.Size
		if size == 0 {
			size = stackDefaultSize
		}
		size -= size % s.BlockSize
		li := r.lunIndex(s.Target)
		if li >= 0 && r.Capacity[li] > 0 && s.Target == r.LUNs[li] {
			c := r.Capacity[li]
			off := s.Offset + int64(s.Index)*s.OffsetIncrement
			if off >= c {
				return fmt.Errorf("setup: %s:%d: job %s: offset %d is at or past the end of %s (%d bytes, %s): fio stops with \"%s: offset extends end (%d > %d)\"; lower offset= or offset_increment=",
					s.File, s.Line, s.Instance(), off, r.LUNs[li], c, r.capacityNote[li], s.Name, off, c)
			}
			if off+size > c {
				return fmt.Errorf("setup: %s:%d: job %s: I/O region [%d, %d) runs past the end of %s (%d bytes, %s): the kernel fails writes past the end (ENOSPC) and reads there return nothing; lower size= (at most %d here) or enlarge the device",
					s.File, s.Line, s.Instance(), off, off+size, r.LUNs[li], c, r.capacityNote[li], c-off)
			}
			continue
		}
		if end := start + s.Offset + size; li >= 0 && r.bounded[li] && end > r.Capacity[li] {
			return fmt.Errorf("setup: job %s: offset+size end at byte %d of %s, beyond its capacity %d (jobs get consecutive regions; lower size= or numjobs)",
				s.Instance(), end, r.LUNs[li], r.Capacity[li])
		}
		if off := s.Offset + int64(s.Index)*s.OffsetIncrement; li >= 0 && !r.bounded[li] && r.Capacity[li] > 0 && s.Size != 0 && off+s.Size > r.Capacity[li] {
			// fio opens a file on a file system on the device and lays it out
			// (reads) or writes into it: past the device's capacity that fails
			// with ENOSPC ("fio: ENOSPC on laying out file, stopping")
			return fmt.Errorf("setup: %s:%d: job %s: offset+size = %d bytes is larger than %s (%d bytes, %s): the job names no device (filename=), so fio puts its file on a file system on %s, and laying out or writing more than the device holds fails with ENOSPC; lower size= (at most %d here) or enlarge the device",
				s.File, s.Line, s.Instance(), off+s.Size, r.LUNs[li], r.Capacity[li], r.capacityNote[li], r.LUNs[li], max(r.Capacity[li]-off, 0))
		}
		start += alignRegion(s.Offset + size)
	}
	return nil
}

// JobNotes returns the remarks fio itself prints about a job file whose values it
// adjusts (fixup_options, init.c), one per job section: a synchronous engine with
// iodepth > 1 runs at queue depth 1. The other adjustments fio makes silently
// (iodepth_batch_submit, iodepth_low and iodepth_batch_complete_* above iodepth are
// capped at iodepth) are not reported, as fio does not report them. Two notes are the
// model's own: a thinktime cut at the runtime, and a job that sets neither direct= nor
// buffered=, which fio runs buffered (direct=0 is its default) and the model runs as
// direct I/O (an explicit direct=0 is an Unmodelled warning instead).
func JobNotes(specs []fio.Spec) []string {
	var out []string
	for i := range specs {
		s := &specs[i]
		if s.Index == 0 && !s.DirectSet {
			out = append(out, fmt.Sprintf("job %s: neither direct= nor buffered= is set, so fio does buffered I/O (its default, direct=0); %s", s.Name, noteDefaultBuffered))
		}
		if s.Index == 0 && !s.IOEngine.Async() && s.IODepth > 1 {
			out = append(out, fmt.Sprintf("job %s: both iodepth >= 1 and synchronous I/O engine %s are selected, queue depth will be capped at 1 (fio's note)", s.Name, s.IOEngine))
		}
		if s.Index == 0 && s.ThinkTime > 0 && s.Runtime > 0 && 10*s.ThinkTime >= s.Runtime {
			// stack's pause caps every sleep at the job's timeout; fio 3.33 does that for
			// rate sleeps only (rate_ddir) and sleeps a thinktime whole, fio 3.34 caps it
			// too (f9fc7a27, "backend: fix runtime when used with thinktime")
			out = append(out, fmt.Sprintf("job %s: thinktime %v is at least a tenth of runtime %v: a think that would run past the runtime ends at the runtime, as fio 3.34+ does; fio 3.33 sleeps the whole thinktime and reports a longer run", s.Name, s.ThinkTime, s.Runtime))
		}
		if s.Index == 0 && s.SteadyState.Set && !s.SteadyState.Active() {
			out = append(out, fmt.Sprintf("job %s: steadystate= is set but ss_dur is 0 (fio's default): steady state detection is off, as in fio; set ss_dur (>= 2 s) to detect it", s.Name))
		}
	}
	return out
}

// hostedKinds lists the device kinds that sit behind a --host (the kinds that are not
// their own host driver), "a, b or c".
func hostedKinds() string {
	var out []string
	for k, d := range deviceKinds {
		if !d.driver {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// noteDefaultBuffered says what the model does with a job left at fio's default
// buffered I/O.
const noteDefaultBuffered = "the model has no page cache and runs it as direct=1 (reads are not cached, writes are not deferred to writeback): set direct=1 to run what is modelled"

// lunIndex is the LUN a job targets (the only one, or the one named), -1 if none.
func (r *Resolved) lunIndex(target string) int {
	if len(r.LUNs) == 1 {
		return 0
	}
	for i, n := range r.LUNs {
		if n == target {
			return i
		}
	}
	return -1
}

// CheckTargets returns an error naming the job file, line and job of the first job
// that names a device the machine does not have, with the devices it has: fio would
// fail to open it. A job names a device when its target (fio.Spec.Target) is a /dev/
// path; a job targeting anything else (a directory, a file, its own name) runs on the
// only LUN, and with several LUNs must name one of them (stack.Run's lunFor).
func (r *Resolved) CheckTargets(specs []fio.Spec) error {
	for i := range specs {
		s := &specs[i]
		if s.Index != 0 || r.lunIndex(s.Target) >= 0 && (len(r.LUNs) > 1 || !strings.HasPrefix(s.Target, "/dev/") || s.Target == r.LUNs[0]) {
			continue
		}
		what := "targets " + s.Target
		if s.Filename != "" {
			what = "filename=" + s.Filename
		} else if s.Directory != "" {
			what = "directory=" + s.Directory
		}
		return fmt.Errorf("setup: %s:%d: job %s: %s names no modelled device; the devices are %s (add a --device, or name one of them)",
			s.File, s.Line, s.Name, what, strings.Join(r.LUNs, ", "))
	}
	return nil
}
