package oracle

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/setup"
)

// GuestKernel is uname -r of the guest kernel (Debian 12's linux-image-amd64): the
// model runs its profile, dispatch.KernelProfile("6.1.0-57-amd64") = 6.1.192,
// mainline 6.1 plus the stable backports of modelled switches. Results record the
// kernel they were measured on (Facts.Kernel), and the comparison runs the model
// with that kernel's profile (ModelOptions.Kernel).
const GuestKernel = "6.1.0-57-amd64"

// GuestHZ is CONFIG_HZ of Debian's amd64 kernel (scsi_debug delay is in jiffies).
const GuestHZ = 250

// DefaultCPUs is the guest's vCPU count when a Case does not set one: two, the
// cores of the project machines (more vCPUs than host cores distort timing).
const DefaultCPUs = 2

// Case is one validation configuration: a job file, a device and settings.
type Case struct {
	// Name identifies the configuration (file names in testdata/kernel use it).
	Name string `json:"name"`
	// Job is the fio job file, relative to the index's directory (or absolute).
	Job string `json:"job"`
	// Device is "scsi_debug key=value ..." or "null_blk key=value ...": the module
	// and its parameters, as modprobe takes them and setup parses them.
	Device string `json:"device"`
	// Set are sysfs-style settings applied to every disk the module creates:
	// queue/scheduler, queue/nr_requests, device/queue_depth, queue/max_sectors_kb;
	// also system/nr_cpus (the vCPUs) and kernel (must be the guest's).
	Set []string `json:"set,omitempty"`
	// CPUs is the guest's vCPU count and the model's system/nr_cpus; 0 = 2.
	CPUs int `json:"cpus,omitempty"`
	// Notes says what the configuration exercises.
	Notes string `json:"notes,omitempty"`
	// CPUBound marks a case meant to saturate the guest's CPU (the emulation
	// slowdown's calibration, SlowdownJob); every other case must stay device-bound.
	CPUBound bool `json:"cpu_bound,omitempty"`
	// KnownMisses are comparison rows the model is known to miss, with the
	// measured model value and the mechanism believed missing; tests skip them.
	KnownMisses []KnownMiss `json:"known_misses,omitempty"`
}

// KnownMiss records one comparison row the model misses.
type KnownMiss struct {
	// Row is the row key as Compare names it: "JOB DIR METRIC" (e.g.
	// "wal write iops") or "device METRIC" (e.g. "device merges").
	Row string `json:"row"`
	// Model is the model's value when the miss was recorded (the row's unit).
	Model float64 `json:"model"`
	// Kernel is the kernel's committed value.
	Kernel float64 `json:"kernel"`
	// Mechanism is what the model lacks or gets wrong, as believed.
	Mechanism string `json:"mechanism"`
}

// cpus returns the vCPU count: CPUs, else a system/nr_cpus setting, else 2.
func (c *Case) cpus() (int, error) {
	n := c.CPUs
	for _, a := range c.Set {
		k, v, err := setup.SplitAssignment(a)
		if err != nil {
			return 0, err
		}
		if k == "system/nr_cpus" {
			m, err := strconv.Atoi(v)
			if err != nil || m < 1 || m > 64 {
				return 0, fmt.Errorf("oracle: %s: allowed: an integer in [1, 64]", a)
			}
			if n != 0 && n != m {
				return 0, fmt.Errorf("oracle: %s contradicts cpus %d", a, n)
			}
			n = m
		}
	}
	if n == 0 {
		n = DefaultCPUs
	}
	if n < 1 || n > 64 {
		return 0, fmt.Errorf("oracle: cpus %d out of range [1, 64]", n)
	}
	return n, nil
}

// Modprobe returns the guest's module invocation for the device. Only the two
// kernel block drivers the guest ships are allowed: scsi_debug and null_blk.
func (c *Case) Modprobe() (string, error) {
	f := strings.Fields(c.Device)
	if len(f) > 0 && f[0] == "modprobe" {
		f = f[1:]
	}
	if len(f) == 0 {
		return "", fmt.Errorf("oracle: device: empty; want \"scsi_debug key=value ...\" or \"null_blk key=value ...\"")
	}
	switch f[0] {
	case "scsi_debug", "null_blk":
	default:
		return "", fmt.Errorf("oracle: device kind %q has no kernel counterpart in the guest; allowed: scsi_debug, null_blk", f[0])
	}
	for _, a := range f[1:] {
		if !strings.Contains(a, "=") {
			return "", fmt.Errorf("oracle: device parameter %q: want key=value", a)
		}
	}
	return strings.Join(f, " "), nil
}

// sysfsAttr maps a setting key to the attribute under /sys/block/DISK/.
var sysfsAttr = map[string]string{
	"queue/scheduler":      "queue/scheduler",
	"queue/nr_requests":    "queue/nr_requests",
	"device/queue_depth":   "device/queue_depth",
	"queue/max_sectors_kb": "queue/max_sectors_kb",
}

// Sysfs returns the guest's "ATTRIBUTE VALUE" lines: the scheduler first (switching
// the elevator resets nr_requests, so it must precede it), then the other settings
// in order. Keys with no sysfs file on a running kernel (host/..., tags, era/...)
// are errors naming the key: on the kernel they come from the module parameters or
// the release.
func (c *Case) Sysfs() ([]string, error) {
	var sched, rest []string
	for _, a := range c.Set {
		k, v, err := setup.SplitAssignment(a)
		if err != nil {
			return nil, err
		}
		switch k {
		case "system/nr_cpus":
			continue
		case "kernel":
			if !sameKernel(v, GuestKernel) {
				return nil, fmt.Errorf("oracle: kernel=%s: the guest runs %s; allowed: %s", v, GuestKernel, GuestKernel)
			}
			continue
		case "system/hz":
			if v != strconv.Itoa(GuestHZ) {
				return nil, fmt.Errorf("oracle: system/hz=%s: the guest kernel has HZ=%d; allowed: %d", v, GuestHZ, GuestHZ)
			}
			continue
		}
		attr, ok := sysfsAttr[k]
		if !ok {
			return nil, fmt.Errorf("oracle: setting %q has no sysfs file on a running kernel; allowed: queue/scheduler, queue/nr_requests, device/queue_depth, queue/max_sectors_kb, system/nr_cpus, kernel=%s (host and tag-set properties come from the module parameters)", k, GuestKernel)
		}
		line := attr + " " + v
		if k == "queue/scheduler" {
			sched = append(sched, line)
		} else {
			rest = append(rest, line)
		}
	}
	return append(sched, rest...), nil
}

// Description returns the model's machine description: the guest's kernel era, CPU
// count and HZ, the device and the settings (the kernel and CPU keys the guest
// accepts are kept out, having been applied here).
func (c *Case) Description() (setup.Description, error) {
	return c.descriptionFor(GuestKernel)
}

// descriptionFor is Description for a given guest kernel release (uname -r).
func (c *Case) descriptionFor(kernel string) (setup.Description, error) {
	n, err := c.cpus()
	if err != nil {
		return setup.Description{}, err
	}
	d := setup.Description{Kernel: kernel, CPUs: n, Devices: []string{c.Device},
		Set: []string{"system/hz=" + strconv.Itoa(GuestHZ)}}
	for _, a := range c.Set {
		k, _, _ := setup.SplitAssignment(a)
		if k == "system/nr_cpus" || k == "kernel" || k == "system/hz" {
			continue
		}
		d.Set = append(d.Set, a)
	}
	return d, nil
}

// sameKernel reports whether two release strings name the same kernel profile
// ("6.1.0-57-amd64" and "6.1.192").
func sameKernel(a, b string) bool {
	if a == b {
		return true
	}
	pa, err := dispatch.KernelProfile(a)
	if err != nil {
		return false
	}
	pb, err := dispatch.KernelProfile(b)
	return err == nil && pa.Release == pb.Release
}

// Check validates the Case for both sides without running anything.
func (c *Case) Check() error {
	if _, err := c.cpus(); err != nil {
		return err
	}
	if _, err := c.Modprobe(); err != nil {
		return err
	}
	if _, err := c.Sysfs(); err != nil {
		return err
	}
	d, err := c.Description()
	if err != nil {
		return err
	}
	if _, err := d.Resolve(); err != nil {
		return fmt.Errorf("oracle: model side: %w", err)
	}
	return nil
}
