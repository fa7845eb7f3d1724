package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/setup"
	"github.com/blkmq/blkmq/stack"
	"github.com/spf13/cobra"
)

// machineFlags are the flags that describe the modelled machine (run and sweep).
type machineFlags struct {
	kernel  string
	cpus    int
	host    string
	devices []string
	sets    []string
	config  string
	seed    uint64
	runtime time.Duration
	// changed reports whether a flag was given (the command's FlagSet.Changed), to
	// tell a given --cpus 0 from an absent one.
	changed func(name string) bool
}

func (m *machineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	m.changed = f.Changed
	f.StringVar(&m.kernel, "kernel", "", "kernel release MAJOR.MINOR in [4.15, 6.19] selecting every era switch; uname -r forms (5.17.3, v5.17, 6.1.0-57-amd64) count as MAJOR.MINOR (default: current kernel)")
	f.IntVar(&m.cpus, "cpus", 0, "online CPUs (system/nr_cpus), [1, 4096] (default: the config file's, else 4)")
	f.StringVar(&m.host, "host", "", `SCSI host "KIND key=value ..." (storvsc, generic); default: the device's`)
	f.StringArrayVar(&m.devices, "device", nil, `device "KIND key=value ..." in module-parameter style, repeatable:
scsi_debug, null_blk, cloud, ssd, hdd (default "null_blk")`)
	f.StringArrayVar(&m.sets, "set", nil, "sysfs-style setting key=value, repeatable (e.g. queue/nr_requests=56, device/queue_depth=15,\nqueue/scheduler=mq-deadline, host/host_tagset=1, tags=shared, era/...; see --explain)")
	f.StringVar(&m.config, "config", "", "TOML file with the same settings (kernel, cpus, host, devices, set); flags override it")
	f.Uint64Var(&m.seed, "seed", 1, "seed of the fio workloads' random offsets and read/write mix (PCG); model timing jitter uses its own fixed stream")
	f.DurationVar(&m.runtime, "runtime", 0, "override every job's runtime (e.g. 10s; 0 = the job file's)")
}

// layers returns the config-file layer (if any) and the flags layer.
func (m *machineFlags) layers(extra ...string) ([]setup.Layer, error) {
	var ls []setup.Layer
	if m.config != "" {
		l, err := setup.LoadConfig(m.config)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	// 0 means "not set" to setup (the config file's or the default 4 CPUs apply),
	// so only a --cpus given on the command line can be 0: reject it like -1.
	if m.cpus < 0 || m.cpus == 0 && m.changed != nil && m.changed("cpus") {
		return nil, fmt.Errorf("--cpus %d: allowed: [1, 4096]", m.cpus)
	}
	d := setup.Description{Kernel: m.kernel, CPUs: m.cpus, Host: m.host, Devices: m.devices,
		Set: append(append([]string(nil), m.sets...), extra...)}
	return append(ls, setup.Layer{Name: "flags", Desc: d}), nil
}

// loadJobs parses the job file and applies --runtime.
func (m *machineFlags) loadJobs(path string) ([]fio.Spec, error) {
	if m.runtime < 0 {
		return nil, fmt.Errorf("--runtime %v: must be >= 0", m.runtime)
	}
	specs, err := fio.ParseFile(path)
	if err != nil {
		return nil, err
	}
	if m.runtime > 0 {
		for i := range specs {
			specs[i].Runtime = m.runtime
		}
	}
	return specs, nil
}

// usageError wraps err as an exit-status-2 error.
func usageError(err error) error { return &exitError{2, err} }

// runError classifies a stack.Run error by its type (classify in main.go).
func runError(_ *cobra.Command, err error) error { return classify(err) }

// jobLayer turns the job file's ioscheduler= into a queue/scheduler setting, below
// the config file and the flags.
func jobLayer(path string, specs []fio.Spec) []setup.Layer {
	for _, s := range specs {
		if s.IOScheduler != "" {
			return []setup.Layer{{Name: fmt.Sprintf("job %s:%d ioscheduler", path, s.Line),
				Desc: setup.Description{Set: []string{"queue/scheduler=" + s.IOScheduler}}}}
		}
	}
	return nil
}

func newRunCmd() *cobra.Command {
	var (
		m       machineFlags
		format  string
		explain bool
	)
	cmd := &cobra.Command{
		Use:   "run JOB.fio",
		Short: "Run an fio job file on a modelled host and disk",
		Long: `run parses an fio job file, builds the modelled machine from the host and device
described in module-parameter style (--device, --host), sysfs-style settings (--set) and a
kernel release (--kernel, which selects every era switch), runs the jobs in virtual time
and prints fio's output: text by default, fio's JSON layout with --output-format=json, and
json+ (with completion-latency bins).

--explain prints every resolved setting and where its value came from (default, era,
host, device, config file, flags) and exits without running.

Exit status 2 on a bad job file, flag or setting (the message names the file, line, key
and the allowed values); 1 if the model fails (e.g. a modelled hang caught by the watchdog).

` + settingsHelp(),
		Example: `  blkmq run job.fio --device 'scsi_debug delay=0 max_queue=192 submit_queues=16' --cpus 16
  blkmq run job.fio --device 'null_blk completion_nsec=200000 irqmode=2 hw_queue_depth=64'
  blkmq run testdata/fio/000_storvsc.fio --kernel 5.17 --cpus 16 --device cloud \
      --set queue/nr_requests=56 --set device/queue_depth=15 --set tags=shared --runtime 10s
  blkmq run job.fio --config machine.toml --output-format json+ --seed 7
  blkmq run job.fio --device 'hdd model=cheetah-15k3 tcq=1' --set queue/scheduler=mq-deadline --explain`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			plus := false
			switch format {
			case "normal", "text":
			case "json":
			case "json+":
				plus = true
			default:
				return usageError(fmt.Errorf("--output-format %q: allowed values are normal (text), json, json+", format))
			}
			specs, err := m.loadJobs(args[0])
			if err != nil {
				return usageError(err)
			}
			layers, err := m.layers()
			if err != nil {
				return usageError(err)
			}
			res, err := setup.ResolveLayers(append(jobLayer(args[0], specs), layers...)...)
			if err != nil {
				return usageError(err)
			}
			if explain {
				_, err := io.WriteString(cmd.OutOrStdout(), res.Explain())
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", w)
			}
			for _, n := range setup.JobNotes(specs) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: note:", n)
			}
			if err := res.CheckTargets(specs); err != nil {
				return usageError(err)
			}
			res.SizeJobs(specs)
			if err := res.CheckFit(specs); err != nil {
				return usageError(err)
			}
			out, err := runStack(cmd, res.WithSeed(m.seed, 0), specs)
			if err != nil {
				return runError(cmd, err)
			}
			for _, l := range idleJobLines(out) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", l)
			}
			rep := reportOf(out)
			w := cmd.OutOrStdout()
			if format == "json" || format == "json+" {
				err = rep.WriteJSON(w, fio.OutputOptions{Plus: plus})
			} else {
				err = rep.WriteText(w)
			}
			return err
		},
	}
	m.register(cmd)
	cmd.Flags().StringVar(&format, "output-format", "normal", "output format: normal (fio text), json, json+")
	cmd.Flags().BoolVar(&explain, "explain", false, "print every resolved setting and its source, then exit without running")
	return cmd
}

// settingsHelp lists the --device kinds and the --set keys with their ranges.
func settingsHelp() string {
	var b strings.Builder
	b.WriteString("Devices (--device KIND key=value ...): " + strings.Join(setup.DeviceKinds(), ", ") +
		"; hosts (--host): " + strings.Join(setup.HostKinds(), ", ") +
		".\nParameters: see the setup package documentation; a wrong name lists the allowed ones.\n\nSettings (--set key=value):\n")
	for _, k := range setup.Keys() {
		fmt.Fprintf(&b, "  %-32s %s: %s\n", k.Name, k.Allowed, k.Doc)
	}
	return b.String()
}

// reportOf arranges the per-instance results the way fio reports them.
func reportOf(out *stack.Result) *fio.Report {
	rs := make([]*fio.Result, len(out.Jobs))
	for i, j := range out.Jobs {
		rs[i] = j.Fio
	}
	return fio.NewReport(rs)
}

// idleJobLines explains each job (its numjobs clones together) that completed no I/O
// in its measurement window, which fio prints as a bare header: whether its tasks
// slept in blk_mq_get_tag waiting for a tag (JobResult.MaxSleepers), and how far
// each LUN's requests got by the end of the run (dispatch.QueueStats).
func idleJobLines(out *stack.Result) []string {
	var order []string
	idle := map[string]bool{}
	sleepers := map[string]int{}
	window := map[string]time.Duration{}
	for _, j := range out.Jobs {
		name := j.Spec.Name
		if _, ok := idle[name]; !ok {
			order = append(order, name)
			idle[name] = true
		}
		for _, d := range j.Fio.Dirs {
			if d.TotalIOs > 0 {
				idle[name] = false
			}
		}
		sleepers[name] = max(sleepers[name], j.MaxSleepers)
		window[name] = max(window[name], j.Fio.Window)
	}
	var luns []string
	for i, q := range out.Queues {
		luns = append(luns, fmt.Sprintf("LUN %d: %d bios submitted, %d commands accepted by the device, %d requests completed",
			i, q.Bios, q.Dispatched, q.Completed))
	}
	var lines []string
	for _, name := range order {
		if !idle[name] {
			continue
		}
		why := "its submitter never slept waiting for a tag, so its I/Os were still queued or in the device"
		if n := sleepers[name]; n > 0 {
			why = fmt.Sprintf("its submitter was still blocked: up to %d of its tasks slept in blk_mq_get_tag waiting for a tag", n)
		}
		lines = append(lines, fmt.Sprintf("job %s: no I/O completed in the %v measurement window: %s; a longer --runtime may help",
			name, window[name], why))
	}
	if len(lines) > 0 {
		lines = append(lines, "by the end of the run: "+strings.Join(luns, "; "))
	}
	return lines
}
