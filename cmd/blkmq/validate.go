package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blkmq/blkmq/oracle"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/spf13/cobra"
)

// validateFlags are the flags of blkmq validate.
type validateFlags struct {
	device     string
	sets       []string
	cpus       int
	seed       uint64
	runtime    time.Duration
	format     string
	overhead   string
	slowdown   string
	wake       string
	rt         int
	timeout    time.Duration
	cache      string
	keep       string
	reference  string
	only       string
	buildGuest bool
}

func newValidateCmd() *cobra.Command {
	var v validateFlags
	cmd := &cobra.Command{
		Use:   "validate JOB.fio --device 'KIND key=value ...' [--set key=value ...]",
		Short: "Run one fio job on the model and on a real kernel in a VM, side by side",
		Long: `validate runs the same fio job with the same device description on the model and on
a real Linux kernel (Debian's 6.1, booted under QEMU from a cached initramfs), and prints
per-job IOPS, mean and p99 completion latency, device commands/s, mean command size and
the share of merged bios, with the model's relative error.

The device is a kernel block driver the guest can load: "scsi_debug key=value ..." or
"null_blk key=value ..." (module parameters; keep latencies at milliseconds — scsi_debug
delay is in jiffies, 4 ms at HZ=250 — so that emulation speed does not dominate).
--set accepts the settings with a sysfs file on a running kernel: queue/scheduler,
queue/nr_requests, device/queue_depth, queue/max_sectors_kb (written under
/sys/block/DISK/ of every new disk, the scheduler first), and system/nr_cpus (the VM's
vCPUs, default 2). The model runs the profile of the guest kernel (6.1.0-57-amd64 = 6.1.192: mainline 6.1 plus its
modelled stable backports) with the guest's CPU count.
In the job file, write ${DEV} for the first new disk and ${DEV1}, ${DEV2}, ... for the
first, second, ... (e.g. filename=${DEV}): each is replaced by that disk's path, in the
VM and in the model alike.

Under TCG each command costs the guest a few hundred microseconds of emulated CPU.
--emulation-overhead=auto (default) first runs a queue-depth-1 calibration job in the VM
and adds the measured per-command overhead to the model's device; 0 turns that off.
The emulated CPU is also tens of times slower than a native one, so a guest CPU that
submits a few thousand commands a second saturates: --emulation-slowdown=auto (default)
first runs a calibration job in the VM (one pinned 4k reader at iodepth 32 on a 2 ms
null_blk) and multiplies every CPU cost of the model, except a cache line's move between
CPUs (host hardware under multi-threaded TCG), by the factor at which the model spends
fio's CPU time per command there: net of the reader's own sleep-and-wake cycles, which
the wake split charges separately (18.0 on the host of the committed reference runs;
the gross factor, fio's CPU per command over the model's native path, is 22.5 there and
over-charges a CPU-bound reader by about 25 %; auto-gross keeps it, the rule before
round 9; stderr prints both). 1 turns the slowdown off. With both on,
the overhead is calibrated with the slowdown applied. --emulation-wake-switch=on (or a
native cost such as 1.5us) also charges the guest code of each task wake-up as scaled CPU
time — the waker's try_to_wake_up on its CPU, the woken task's schedule, context switch
and return to user space on its own — and stamps fio's issue_time when the submitting
system call's work is done, instead of leaving that time in the overhead, which is then
calibrated with it (the default, on); off keeps the round-4 model.

--reference testdata/kernel/configs.json compares the model with committed kernel
results instead (no VM). --build-guest builds the VM image (apt-get; needs root) of
the references' kernel, 6.1.0-57-amd64 (Debian 6.1.192-3), refreshing the apt lists
when they do not have it and failing when the archive does not; a guest built for
another kernel is refused (exit 2), naming both releases.

Exit status: 0 when every checked row (IOPS ±15 %, mean clat ±25 %, merges ±20 %) is
within tolerance or a recorded known miss; 1 otherwise (or when the calibration fails
with the default emulation costs); 2 on bad input, a missing harness (the message
names the install command), or a --emulation-wake-switch / --emulation-slowdown of your
choosing that makes the model slower than the guest at queue depth 1 with no overhead.`,
		Example: `  blkmq validate job.fio --device 'scsi_debug delay=1 max_queue=64 submit_queues=2 virtual_gb=4' \
      --set queue/scheduler=none --set device/queue_depth=15 --set queue/nr_requests=56
  blkmq validate job.fio --device 'null_blk irqmode=2 completion_nsec=4000000 hw_queue_depth=16' --output-format json
  blkmq validate --reference testdata/kernel/configs.json --case 000-small-none
  blkmq validate --build-guest`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return v.run(cmd, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&v.device, "device", "", `kernel block driver and module parameters: "scsi_debug key=value ..." or "null_blk key=value ..."`)
	f.StringArrayVar(&v.sets, "set", nil, "sysfs setting key=value, repeatable: queue/scheduler, queue/nr_requests, device/queue_depth, queue/max_sectors_kb, system/nr_cpus")
	f.IntVar(&v.cpus, "cpus", 0, "vCPUs of the VM and CPUs of the model (default 2)")
	f.Uint64Var(&v.seed, "seed", 1, "seed of the fio workloads' random offsets and read/write mix (PCG); model timing jitter uses its own fixed stream")
	f.DurationVar(&v.runtime, "runtime", 0, "override every job's runtime on both sides, whole seconds (0 = the job file's)")
	f.StringVar(&v.format, "output-format", "text", "text or json")
	f.StringVar(&v.overhead, "emulation-overhead", "auto", "per-command TCG overhead added to the model: auto (calibrate in the VM), 0, or a duration such as 300us")
	f.StringVar(&v.slowdown, "emulation-slowdown", "auto", "factor by which the model's CPU costs are multiplied for the emulated guest CPU: auto (calibrate in the VM, net of the calibration reader's sleep-and-wake cycles), auto-gross (calibrate, gross: the rule before round 9), 1 (none), or a number in [1, 1000]")
	f.StringVar(&v.wake, "emulation-wake-switch", "on", "with an emulation slowdown, charge each task sleep's and wake-up's guest code as scaled CPU time on the CPUs that run it: on (1us native context switch), off (the round-4 model), or the native switch cost, a duration in [1ns, 1ms] whose scaled cost (× the slowdown) is at most 1ms (0 is refused: the model reads a zero switch as the 1us default)")
	f.IntVar(&v.rt, "rt-priority", 0, "run the VM at SCHED_FIFO priority N (root; steadier timing on a busy host)")
	f.DurationVar(&v.timeout, "timeout", 5*time.Minute, "wall-clock limit of one VM run")
	f.StringVar(&v.cache, "cache", "", "guest image directory (default $BLKMQ_ORACLE_CACHE, $XDG_CACHE_HOME/blkmq-oracle or ~/.cache/blkmq-oracle)")
	f.StringVar(&v.keep, "keep", "", "directory that receives the guest's raw result and console logs")
	f.StringVar(&v.reference, "reference", "", "compare the model with the committed kernel results of this index (configs.json); no VM")
	f.StringVar(&v.only, "case", "", "with --reference: only this case")
	f.BoolVar(&v.buildGuest, "build-guest", false, "build the VM image into the cache directory and exit")
	return cmd
}

func (v *validateFlags) run(cmd *cobra.Command, args []string) error {
	if v.format != "text" && v.format != "json" {
		return usageError(fmt.Errorf("--output-format %q: allowed values are text, json", v.format))
	}
	if v.runtime < 0 || v.runtime%time.Second != 0 {
		return usageError(fmt.Errorf("--runtime %v: allowed: whole seconds >= 0", v.runtime))
	}
	// the harness passes whole seconds to the VM script and reads 0 or less as 300s
	if v.timeout < time.Second || v.timeout > 24*time.Hour || v.timeout%time.Second != 0 {
		return usageError(fmt.Errorf("--timeout %v: allowed: whole seconds in [1s, 24h]", v.timeout))
	}
	// chrt -f takes 1..99; 0 runs the VM at normal priority
	if v.rt < 0 || v.rt > 99 {
		return usageError(fmt.Errorf("--rt-priority %d: allowed: [0, 99] (0 = normal scheduling, 1..99 SCHED_FIFO)", v.rt))
	}
	h := &oracle.Harness{Cache: v.cache, Timeout: v.timeout, RTPriority: v.rt, Keep: v.keep, Log: cmd.ErrOrStderr()}
	switch {
	case v.buildGuest:
		if len(args) > 0 || v.reference != "" {
			return usageError(errors.New("--build-guest takes no job file and no --reference"))
		}
		if err := h.BuildGuest(cmd.Context()); err != nil {
			return &exitError{1, err}
		}
		return nil
	case v.reference != "":
		if len(args) > 0 || v.device != "" {
			return usageError(errors.New("--reference takes no job file and no --device"))
		}
		return v.runReference(cmd)
	}
	if len(args) != 1 {
		return usageError(errors.New("need a job file: blkmq validate JOB.fio --device '...' (or --reference FILE, --build-guest)"))
	}
	if v.only != "" {
		return usageError(errors.New("--case needs --reference"))
	}
	if v.device == "" {
		return usageError(errors.New(`--device is required: "scsi_debug key=value ..." or "null_blk key=value ..."`))
	}
	c := &oracle.Case{Name: filepath.Base(args[0]), Job: args[0], Device: v.device, Set: v.sets, CPUs: v.cpus}
	if err := c.Check(); err != nil {
		return usageError(err)
	}
	overhead, auto, err := parseOverhead(v.overhead)
	if err != nil {
		return usageError(err)
	}
	slowdown, autoSlow, err := parseSlowdown(v.slowdown)
	if err != nil {
		return usageError(err)
	}
	grossOnly := v.slowdown == "auto-gross"
	wake, _, err := parseWake(v.wake)
	if err != nil {
		return usageError(err)
	}
	if _, err := os.Stat(args[0]); err != nil {
		return usageError(err)
	}
	// A job file the model rejects is reported before the guest is looked for, and a
	// missing guest before the model runs the job (a whole 60 s job took a minute or
	// more before "guest not built"); the model runs after the VM.
	mo := oracle.ModelOptions{Seed: v.seed, Runtime: v.runtime, EmulationOverhead: overhead, EmulationSlowdown: slowdown, Wake: wake}
	if err := oracle.CheckModel(c, args[0], mo); err != nil {
		return usageError(err)
	}
	if err := h.Available(); err != nil {
		return usageError(err)
	}
	if v.runtime > 0 {
		h.FioArgs = fmt.Sprintf("--runtime=%d", int(v.runtime.Seconds()))
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if autoSlow {
		fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: calibrating the emulation slowdown (a CPU-bound null_blk reader in the VM)...")
		var gross float64
		if slowdown, gross, err = calibrateSlowdown(ctx, h, c, v.seed, wake, grossOnly); err != nil {
			return &exitError{1, err}
		}
		if grossOnly {
			fmt.Fprintf(cmd.ErrOrStderr(), "blkmq: emulation slowdown %.2f (gross: fio's CPU per command on the calibration reader over the model's native path, the round 7-8 rule; it includes the reader's own sleep-and-wake cycles, which the wake split charges again)\n", slowdown)
		} else {
			fmt.Fprintf(cmd.ErrOrStderr(), "blkmq: emulation slowdown %.2f (net of the calibration reader's sleep-and-wake cycles; gross %.2f, %+.1f %%)\n", slowdown, gross, (gross/slowdown-1)*100)
		}
		mo.EmulationSlowdown = slowdown
		if err := checkWake(wake, slowdown); err != nil {
			return err
		}
	}
	if auto {
		fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: calibrating the emulation overhead (queue depth 1 in the VM)...")
		if overhead, err = calibrate(ctx, h, c, v.seed, slowdown, wake); err != nil {
			return v.calibrationFailure(err)
		}
		mo.EmulationOverhead = overhead
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: running the job in the VM...")
	k, err := h.Run(ctx, c, args[0])
	if err != nil {
		return &exitError{1, err}
	}
	kf, err := oracle.KernelFigures(k.Fio, k.Facts)
	if err != nil {
		return &exitError{1, err}
	}
	m, err := oracle.RunModel(c, args[0], mo)
	if err != nil {
		return usageError(err)
	}
	cmp := oracle.Compare(c.Name, kf, m.Figures(), nil)
	return v.report(cmd.OutOrStdout(), []result{{cmp, overhead, max(slowdown, 1), k.Facts}})
}

// parseSlowdown reads --emulation-slowdown: auto (the net factor, oracle.NetSlowdown),
// auto-gross (oracle.FioCPUSlowdown's, the rule of rounds 7-8), or a factor in
// [1, 1000] (1 = none; returned as -1, "none" for oracle.ModelOptions).
func parseSlowdown(s string) (f float64, auto bool, err error) {
	if s == "auto" || s == "auto-gross" {
		return 0, true, nil
	}
	f, err = strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 1 && f <= 1000) {
		return 0, false, fmt.Errorf("--emulation-slowdown %q: allowed: auto, auto-gross, or a number in [1, 1000] (1 = none, e.g. 18)", s)
	}
	if f == 1 {
		return -1, false, nil
	}
	return f, false, nil
}

// calibrateSlowdown runs oracle.SlowdownJob on oracle.SlowdownDevice in the VM and on
// the model (native costs), and returns the emulation slowdown and the gross factor
// (oracle.FioCPUSlowdown). The slowdown is the net one (oracle.NetSlowdown, as the
// reference set calibrates it since round 9): the factor at which the model, charging
// the comparison's wake split wake, spends fio's CPU per command on the calibration
// reader, so that the reader's own sleep-and-wake cycles in the guest are not charged
// twice (once inside the factor, once as the model's switches). The netting runs
// without the per-command overhead (not yet calibrated at this point; on the reference
// set's calibration cell the overhead of 259us moves the net factor by 0.005 %). With
// grossOnly the slowdown is the gross factor (--emulation-slowdown auto-gross).
func calibrateSlowdown(ctx context.Context, h *oracle.Harness, c *oracle.Case, seed uint64, wake stack.EmulationOptions, grossOnly bool) (slowdown, gross float64, err error) {
	dir, err := os.MkdirTemp("", "blkmq-calibrate")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	hc := *h
	hc.FioArgs, hc.Keep = "", ""
	var runs [1]*oracle.FioJSON
	var cal oracle.Case
	var job string
	for i, text := range []string{oracle.SlowdownJob} {
		job = filepath.Join(dir, fmt.Sprintf("slowdown%d.fio", i))
		if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
			return 0, 0, err
		}
		cal = oracle.Case{Name: "slowdown", Job: job, Device: oracle.SlowdownDevice, Set: []string{"queue/scheduler=none"}, CPUs: c.CPUs}
		k, err := hc.Run(ctx, &cal, job)
		if err != nil {
			return 0, 0, fmt.Errorf("slowdown calibration: %w", err)
		}
		runs[i] = k.Fio
	}
	m, err := oracle.RunModel(&cal, job, oracle.ModelOptions{Seed: seed, EmulationSlowdown: -1, EmulationOverhead: -1})
	if err != nil {
		return 0, 0, err
	}
	if gross, err = oracle.FioCPUSlowdown(runs[:1], m, oracle.SlowdownCPU); err != nil {
		return 0, 0, err
	}
	if grossOnly {
		return gross, gross, nil
	}
	if slowdown, err = netSlowdown(&cal, job, runs[:1], gross, wake); err != nil {
		return 0, 0, err
	}
	return slowdown, gross, nil
}

// netSlowdown is the model side of the netting (oracle.NetSlowdown without an
// overhead), separate so that a test checks it on the committed calibration runs.
func netSlowdown(cal *oracle.Case, job string, runs []*oracle.FioJSON, gross float64, wake stack.EmulationOptions) (float64, error) {
	return oracle.NetSlowdown(cal, job, runs, gross, wake, nil)
}

// parseWake reads --emulation-wake-switch: off (the zero options, and off reports
// true), on (oracle.DefaultWake: dispatch.NativeSwitch, issue_time at the
// submitting syscall's return, the reaper's second look after its submission's work) or the native switch cost, a duration in [1ns, 1ms].
// 0 is refused, not read as on: stack.EmulationOptions.Switch 0 means
// dispatch.NativeSwitch, so a user asking for a free switch would get 1us.
func parseWake(s string) (stack.EmulationOptions, bool, error) {
	switch s {
	case "off":
		return stack.EmulationOptions{}, true, nil
	case "on", "":
		return oracle.DefaultWake, false, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 1 || d > time.Millisecond {
		return stack.EmulationOptions{}, false, fmt.Errorf("--emulation-wake-switch %q: allowed: on, off, or a duration in [1ns, 1ms] (e.g. 1us); 0 is refused: a context switch costs time, and the model reads a zero cost as the 1us default", s)
	}
	o := oracle.DefaultWake
	o.Switch = sim.Time(d.Nanoseconds())
	return o, false, nil
}

// checkWake refuses (exit 2) a wake switch whose cost scaled by the emulation
// slowdown passes the 1 ms limit of one CPU cost: the flag's [0, 1ms] is the native
// cost, so at slowdown f the switch may be at most 1ms/f.
func checkWake(wake stack.EmulationOptions, slowdown float64) error {
	if !(slowdown > 1) {
		return nil // no scaling (the slowdown's own range is checked where it is read)
	}
	if _, err := (stack.Config{}).EmulatedWith(slowdown, wake); err != nil {
		return usageError(fmt.Errorf("--emulation-wake-switch: %w", err))
	}
	return nil
}

// calibrationFailure gives a failed overhead calibration its exit status. When the
// model is slower than the guest without any overhead (*oracle.CalibrationError) and
// the user chose the emulated CPU costs (a wake switch duration, or a slowdown other
// than auto), the cause is that input: exit 2, naming the flags. Otherwise (the
// defaults) it is the model that disagrees with the guest: exit 1.
func (v *validateFlags) calibrationFailure(err error) error {
	var ce *oracle.CalibrationError
	if !errors.As(err, &ce) {
		return &exitError{1, err}
	}
	var chosen []string
	if v.wake != "on" && v.wake != "off" && v.wake != "" {
		chosen = append(chosen, "--emulation-wake-switch "+v.wake)
	}
	if v.slowdown != "auto" && v.slowdown != "auto-gross" {
		chosen = append(chosen, "--emulation-slowdown "+v.slowdown)
	}
	if len(chosen) == 0 {
		return &exitError{1, err}
	}
	return usageError(fmt.Errorf("%s: %w; with these emulated CPU costs no non-negative overhead fits the queue-depth-1 calibration: choose a smaller value (defaults: --emulation-wake-switch on, a 1us switch; --emulation-slowdown auto)",
		strings.Join(chosen, ", "), err))
}

// parseOverhead reads --emulation-overhead: auto, 0 or a duration.
func parseOverhead(s string) (d time.Duration, auto bool, err error) {
	switch s {
	case "auto":
		return 0, true, nil
	case "0":
		return 0, false, nil
	}
	d, err = time.ParseDuration(s)
	if err != nil || d < 0 || d > time.Second {
		return 0, false, fmt.Errorf("--emulation-overhead %q: allowed: auto, 0, or a duration in [0, 1s] (e.g. 300us)", s)
	}
	return d, false, nil
}

// calibrate runs oracle.CalibrationJob on the case's device in the VM and on the
// model (at emulation slowdown slowdown), and returns the per-command overhead.
func calibrate(ctx context.Context, h *oracle.Harness, c *oracle.Case, seed uint64, slowdown float64, wake stack.EmulationOptions) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "blkmq-calibrate")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	job := filepath.Join(dir, "calibrate.fio")
	if err := os.WriteFile(job, []byte(oracle.CalibrationJob), 0o644); err != nil {
		return 0, err
	}
	cal := *c
	cal.Name = "calibrate"
	hc := *h
	hc.FioArgs, hc.Keep = "", ""
	k, err := hc.Run(ctx, &cal, job)
	if err != nil {
		return 0, fmt.Errorf("calibration: %w", err)
	}
	kf, err := oracle.KernelFigures(k.Fio, k.Facts)
	if err != nil {
		return 0, err
	}
	m, err := oracle.RunModel(&cal, job, oracle.ModelOptions{Seed: seed, EmulationSlowdown: slowdown, Wake: wake})
	if err != nil {
		return 0, err
	}
	return oracle.EmulationOverhead(kf, m.Figures())
}

// result is one comparison with what the output shows beside it.
type result struct {
	cmp      *oracle.Comparison
	overhead time.Duration
	slowdown float64
	facts    *oracle.Facts
}

// maxReferenceBytes caps a --reference index (the committed one is about
// 0.3 MB): oracle.LoadIndex reads the whole file, so /dev/zero or a huge file
// took memory without end.
const maxReferenceBytes = 64 << 20

// checkReferenceFile refuses a --reference path that is not a regular file or
// is larger than maxReferenceBytes, before it is read.
func checkReferenceFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--reference: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("--reference %s: not a regular file (want an index such as testdata/kernel/configs.json)", path)
	}
	if fi.Size() > maxReferenceBytes {
		return fmt.Errorf("--reference %s: %d bytes, larger than the %d allowed for an index", path, fi.Size(), maxReferenceBytes)
	}
	return nil
}

func (v *validateFlags) runReference(cmd *cobra.Command) error {
	if err := checkReferenceFile(v.reference); err != nil {
		return usageError(err)
	}
	ix, err := oracle.LoadIndex(v.reference)
	if err != nil {
		return usageError(err)
	}
	var rs []result
	for i := range ix.Cases {
		c := &ix.Cases[i]
		if v.only != "" && c.Name != v.only {
			continue
		}
		o := oracle.ModelOptions{Seed: v.seed, Runtime: v.runtime}
		if o.Wake, o.WakeOff, err = parseWake(v.wake); err != nil {
			return usageError(err)
		}
		switch f, auto, err := parseSlowdown(v.slowdown); {
		case err != nil:
			return usageError(err)
		case v.slowdown == "auto-gross":
			return usageError(errors.New("--emulation-slowdown auto-gross applies to a job run in the VM; with --reference the committed calibration is net (auto), and BLKMQ_ORACLE_SLOWDOWN_NET=0 selects the gross factor"))
		case auto:
			if o.EmulationSlowdown, err = ix.Slowdown(); err != nil {
				return &exitError{1, err}
			}
		default:
			o.EmulationSlowdown = f
		}
		if err := checkWake(o.Wake, o.EmulationSlowdown); err != nil {
			return err
		}
		switch ov, auto, err := parseOverhead(v.overhead); {
		case err != nil:
			return usageError(err)
		case !auto:
			o.EmulationOverhead = ov
			if ov == 0 {
				o.EmulationOverhead = -1 // explicit 0: no calibration
			}
		}
		if o.EmulationOverhead == 0 {
			if o.EmulationOverhead, err = ix.OverheadWith(c, o.EmulationSlowdown, o.Wake); err != nil {
				return v.calibrationFailure(err)
			}
		}
		cmp, _, err := ix.CompareReference(c, o)
		if err != nil {
			return &exitError{1, err}
		}
		_, facts, _ := ix.Reference(c)
		rs = append(rs, result{cmp, max(o.EmulationOverhead, 0), max(o.EmulationSlowdown, 1), facts})
	}
	if len(rs) == 0 {
		return usageError(fmt.Errorf("--case %q: no such case in %s", v.only, v.reference))
	}
	return v.report(cmd.OutOrStdout(), rs)
}

// report prints the comparisons and returns exit status 1 when a checked row
// misses.
func (v *validateFlags) report(w io.Writer, rs []result) error {
	failed := 0
	for _, r := range rs {
		failed += len(r.cmp.Failed())
	}
	if v.format == "json" {
		type out struct {
			*oracle.Comparison
			EmulationOverheadNs int64         `json:"emulation_overhead_ns"`
			EmulationSlowdown   float64       `json:"emulation_slowdown"`
			Facts               *oracle.Facts `json:"kernel_facts,omitempty"`
		}
		doc := struct {
			Comparisons []out `json:"comparisons"`
			Failed      int   `json:"failed_rows"`
		}{Failed: failed}
		for _, r := range rs {
			doc.Comparisons = append(doc.Comparisons, out{r.cmp, r.overhead.Nanoseconds(), r.slowdown, r.facts})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else {
		for i, r := range rs {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := r.cmp.WriteText(w); err != nil {
				return err
			}
			fmt.Fprintf(w, "  (model adds %v per command for the emulation overhead and multiplies its CPU costs by %.1f for the emulation slowdown)\n", r.overhead, r.slowdown)
			if r.facts != nil {
				for _, d := range r.facts.Disks {
					fmt.Fprintf(w, "  kernel %s: scheduler %s, nr_requests %d, queue_depth %d, inflight mean %.1f max %d\n",
						d.Name, d.Scheduler, d.NrRequests, d.QueueDepth, d.InflightMean, d.InflightMax)
				}
			}
		}
	}
	if failed > 0 {
		return &exitError{1, fmt.Errorf("%d checked rows out of tolerance", failed)}
	}
	return nil
}
