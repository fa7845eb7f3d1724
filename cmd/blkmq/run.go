package main

import (
	"fmt"
	"io"
	"os"
	"slices"
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
	// histBits is --hist-bits (stack.Config.HistogramBits; applied by withLimits)
	histBits int
	// strict rejects options accepted but not modelled; sections is --section;
	// jobArgs are fio options given on the command line instead of a job file
	strict   bool
	sections []string
	jobArgs  []string
	// stdin is where a job file named "-" is read from (the command's input)
	stdin io.Reader
	// changed reports whether a flag was given (the command's FlagSet.Changed), to
	// tell a given --cpus 0 from an absent one.
	changed func(name string) bool
}

func (m *machineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	m.changed = f.Changed
	f.StringVar(&m.kernel, "kernel", "", "kernel release selecting every era switch: MAJOR.MINOR in [4.15, 6.19], or a 6.1 stable release / Debian uname -r (6.1.192, 6.1.0-57-amd64: mainline plus its modelled backports); other uname -r forms count as MAJOR.MINOR (default: current kernel)")
	f.IntVar(&m.cpus, "cpus", 0, "online CPUs (system/nr_cpus), [1, 4096] (default: the config file's, else 4)")
	f.StringVar(&m.host, "host", "", `SCSI host "KIND key=value ..." (storvsc, generic); default: the device's`)
	f.StringArrayVar(&m.devices, "device", nil, `device "KIND key=value ..." in module-parameter style, repeatable:
scsi_debug, null_blk, cloud, ssd, hdd (default "null_blk")`)
	f.StringArrayVar(&m.sets, "set", nil, "sysfs-style setting key=value, repeatable, each key once (e.g. queue/nr_requests=56, device/queue_depth=15,\nqueue/scheduler=mq-deadline, host/host_tagset=1, tags=shared, era/...; see --explain)")
	f.StringVar(&m.config, "config", "", "TOML file with the same settings (kernel, cpus, host, devices, set); flags override it")
	f.Uint64Var(&m.seed, "seed", 1, "seed of the fio workloads' random offsets and read/write mix (PCG); model timing jitter uses its own fixed stream")
	f.DurationVar(&m.runtime, "runtime", 0, "override every job's runtime (e.g. 10s; 0 = the job file's)")
	f.IntVar(&m.histBits, "hist-bits", fio.DefaultHistogramBits, fmt.Sprintf("latency histogram precision: each power of two of latencies in 2^N bins, [1, %d] (0 = 6, fio's own) (at most 14.5 KiB per histogram, allocated as latencies reach its bins; 4: 3.9 KiB, 10: 200 KiB); only percentiles and bins change", fio.MaxHistogramBits))
	f.BoolVar(&m.strict, "strict", false, "reject a job file whose options are accepted but not modelled (each is otherwise a warning)")
	f.StringArrayVar(&m.sections, "section", nil, "run only the named job section (fio --section), repeatable; [global] sections always apply")
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

// parseConfig is the fio parser's environment for the modelled machine: the
// process environment for ${VAR}, $ncpus = the modelled CPUs (resolved from the
// config file and flags; this machine's when they do not resolve, the error
// being reported later), and the --section selection.
func (m *machineFlags) parseConfig() *fio.ParseConfig {
	c := &fio.ParseConfig{Sections: m.sections}
	if layers, err := m.layers(); err == nil {
		if res, err := setup.ResolveLayers(layers...); err == nil {
			c.NCPUs = res.Config.NrCPUs
		}
	}
	return c
}

// loadJobs parses the job file and applies --runtime.
func (m *machineFlags) loadJobs(path string) ([]fio.Spec, error) {
	if m.runtime < 0 || m.runtime > fio.MaxDuration {
		// above a year the job's check named the runtime in ns, not the flag
		return nil, fmt.Errorf("--runtime %v: allowed: [0, %v] (0 = the job file's)", m.runtime, fio.MaxDuration)
	}
	if m.histBits < 0 || m.histBits > fio.MaxHistogramBits {
		// the Config check would name stack's field, not the flag
		return nil, fmt.Errorf("--hist-bits %d: allowed: [1, %d] (0 = %d, fio's own)", m.histBits, fio.MaxHistogramBits, fio.DefaultHistogramBits)
	}
	var specs []fio.Spec
	var err error
	switch {
	case path == "":
		specs, err = m.parseConfig().ParseArgs(m.jobArgs)
	case path == "-" && m.stdin != nil:
		// fio reads a job file named "-" from stdin (init.c __parse_jobs_ini);
		// relative includes are then taken from the current directory, as there
		specs, err = m.parseConfig().Parse(m.stdin, "<stdin>")
	default:
		specs, err = m.parseConfig().ParseFile(path)
	}
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

// unmodelled prints one warning line per option accepted but not modelled
// (fio.Warnings) and returns them; with --strict they are an error (exit 2).
func (m *machineFlags) unmodelled(cmd *cobra.Command, specs []fio.Spec) ([]string, error) {
	ws := fio.Warnings(specs)
	if m.strict && len(ws) > 0 {
		return ws, fmt.Errorf("--strict: %d option(s) accepted but not modelled:\n  %s", len(ws), strings.Join(ws, "\n  "))
	}
	for _, w := range ws {
		fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", w)
	}
	return ws, nil
}

// inertNote is the Note setup gives a device or host module parameter it accepts
// but does not simulate (a real module parameter such as null_blk bs= or
// scsi_debug's INQUIRY strings).
const inertNote = "accepted; no effect in the model"

// inertParams prints one warning line per module parameter given that the model
// accepts but does not simulate, as unmodelled does for fio options, and returns
// them; with --strict they are an error (exit 2).
func (m *machineFlags) inertParams(cmd *cobra.Command, res *setup.Resolved) ([]string, error) {
	var ws []string
	for _, st := range res.Settings {
		if st.Note == inertNote {
			ws = append(ws, fmt.Sprintf("module parameter accepted but not modelled: %s=%s (%s): no effect in the model", st.Key, st.Value, st.Source))
		}
	}
	if m.strict && len(ws) > 0 {
		return ws, fmt.Errorf("--strict: %d module parameter(s) accepted but not modelled:\n  %s", len(ws), strings.Join(ws, "\n  "))
	}
	for _, w := range ws {
		fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", w)
	}
	return ws, nil
}

// stoppedJob is a job instance that stopped early and why (stack.JobResult.Stopped).
type stoppedJob struct {
	name   string
	index  int
	reason string
}

// stoppedLines gives the "stopped early" warning lines: one per instance, except that
// consecutive clones of one job (index i, i+1, ...) with the same reason share one
// line naming the range ("jobs a.0-a.63 stopped early: ..."); the JSON keeps every
// instance (fio.BlkmqOutput.Stopped).
func stoppedLines(js []stoppedJob) []string {
	var out []string
	for i := 0; i < len(js); {
		j := i + 1
		for j < len(js) && js[j].name == js[i].name && js[j].reason == js[i].reason && js[j].index == js[j-1].index+1 {
			j++
		}
		if j-i == 1 {
			out = append(out, fmt.Sprintf("job %s.%d stopped early: %s", js[i].name, js[i].index, js[i].reason))
		} else {
			out = append(out, fmt.Sprintf("jobs %s.%d-%s.%d stopped early: %s", js[i].name, js[i].index, js[j-1].name, js[j-1].index, js[i].reason))
		}
		i = j
	}
	return out
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
		m        machineFlags
		format   string
		outPath  string
		minimal  bool
		explain  bool
		overhead time.Duration
		slowdown float64
		replicas int
		eta      string
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

--emulation-overhead DUR adds DUR to every device command's completion: the per-command
cost of a guest under QEMU TCG (blkmq validate measures it at queue depth 1, about
0.27 ms for scsi_debug and 0.24 ms for null_blk on a 2-core host), so the model can be
compared with a kernel you ran under emulation. --emulation-slowdown F multiplies every
CPU cost of the model by F: an emulated guest's CPU runs the kernel's code F times slower
(blkmq validate measures it on a CPU-bound null_blk job: 67.0 on the quiet 2-core host of
the committed reference runs), so
a CPU that saturates in the guest saturates in the model too.

Exit status 2 on a bad job file, flag or setting (the message names the file, line, key
and the allowed values); 1 if the model fails (e.g. a modelled hang caught by the watchdog).

Ctrl-C (SIGINT) or SIGTERM ends the model at the model time reached and prints the
results so far, as fio does ("fio: terminating on signal 2" on stderr, then the report,
each job's runtime the time it ran); the exit status is then 128, fio's. A second signal
exits at once (130). --eta always shows progress even when stderr is not a terminal.
With --replicas the signal starts no further replica and ends the running ones: the
output is replica 1's results so far, with the spread over the replicas that had
finished and, under "blkmq", which were interrupted or not started; exit status 128.

` + settingsHelp(),
		Example: `  blkmq run job.fio --device 'scsi_debug delay=0 max_queue=192 submit_queues=16' --cpus 16
  blkmq run job.fio --device 'null_blk completion_nsec=200000 irqmode=2 hw_queue_depth=64'
  blkmq run testdata/fio/000_storvsc.fio --kernel 5.17 --cpus 16 --device cloud \
      --set queue/nr_requests=56 --set device/queue_depth=15 --set tags=shared --runtime 10s
  blkmq run job.fio --config machine.toml --output-format json+ --seed 7
  blkmq run job.fio --device 'hdd model=cheetah-15k3 tcq=1' --set queue/scheduler=mq-deadline --explain`,
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true, // fio options may follow: see splitRunArgs
		RunE: func(cmd *cobra.Command, args []string) error {
			own, jobArgs, pos := splitRunArgs(cmd, args)
			if err := cmd.Flags().Parse(own); err != nil {
				return flagError(cmd, err)
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			path := ""
			switch {
			case len(pos) == 1 && len(jobArgs) == 0:
				path = pos[0]
			case len(pos) == 0 && len(jobArgs) > 0:
				m.jobArgs = jobArgs
			case len(pos) == 0:
				return usageError(fmt.Errorf("run: give a job file, or fio options (--name=JOB --rw=... ...)"))
			case len(jobArgs) == 0:
				// fio runs several job files in turn (init.c parse_jobs_ini's
				// stonewall_flag stonewalls the first job of every file after the
				// first); blkmq runs one parse.
				return usageError(fmt.Errorf("run: give one job file, not %d (%s): fio runs several in turn, blkmq one; pull the others in with `include FILE` and put stonewall in the first job of each, as fio does", len(pos), strings.Join(pos, " ")))
			default:
				hint := ""
				if len(jobArgs) > 0 {
					hint = " (with fio options on the command line, give blkmq's own flag values with '=', e.g. --runtime=100ms)"
				}
				return usageError(fmt.Errorf("run: give one job file or fio options, not %q and %q%s", strings.Join(pos, " "), strings.Join(jobArgs, " "), hint))
			}
			if minimal {
				format = "terse"
			}
			formats, err := parseFormats(format)
			if err != nil {
				return usageError(err)
			}
			m.stdin = cmd.InOrStdin()
			specs, err := m.loadJobs(path)
			if err != nil {
				return usageError(err)
			}
			var extra []string
			if cmd.Flags().Changed("emulation-overhead") {
				extra = append(extra, fmt.Sprintf("system/emulation_overhead=%v", overhead))
			}
			if cmd.Flags().Changed("emulation-slowdown") {
				extra = append(extra, fmt.Sprintf("system/emulation_slowdown=%v", slowdown))
			}
			layers, err := m.layers(extra...)
			if err != nil {
				return usageError(err)
			}
			label := path
			if label == "" {
				label = "<args>"
			}
			res, err := setup.ResolveLayers(append(jobLayer(label, specs), layers...)...)
			if err != nil {
				return usageError(err)
			}
			if explain {
				_, err := io.WriteString(cmd.OutOrStdout(), res.Explain())
				return err
			}
			warnings, err := m.unmodelled(cmd, specs)
			if err != nil {
				return usageError(err)
			}
			inert, err := m.inertParams(cmd, res)
			if err != nil {
				return usageError(err)
			}
			warnings = append(warnings, inert...)
			for _, w := range res.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", w)
				warnings = append(warnings, w)
			}
			notes := setup.JobNotes(specs)
			for _, n := range notes {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: note:", n)
			}
			if err := res.CheckTargets(specs); err != nil {
				return usageError(err)
			}
			sized := res.SizeJobs(specs)
			if err := res.CheckFit(specs); err != nil {
				return usageError(err)
			}
			for _, n := range setup.WholeDeviceNotes(specs, sized) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: note:", n)
				notes = append(notes, n)
			}
			if replicas < 1 || replicas > maxReplicas {
				return usageError(fmt.Errorf("--replicas %d: allowed: [1, %d]", replicas, maxReplicas))
			}
			if err := checkEta(eta); err != nil {
				return usageError(err)
			}
			if replicas > 1 {
				if anyLogs(specs) {
					fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning: write_bw_log/write_lat_log/write_iops_log: no log files are written with --replicas")
				}
				return runReplicated(cmd, withLimits(cmd, res.WithSeed(m.seed, 0)), specs, replicas, formats, outPath, eta, warnings, notes)
			}
			logs, err := openRunLogs(specs)
			if err != nil {
				return usageError(err)
			}
			cfg := res.WithSeed(m.seed, 0)
			if logs != nil {
				cfg.Logs = logs.jobs
			}
			// Ctrl-C ends the model at the model time reached and prints the
			// results so far, as fio does; a second one exits at once.
			sig := catchInterrupt(cmd.ErrOrStderr())
			out, err := runStack(cmd, cfg, specs, eta, sig.C())
			sig.Stop()
			if logs != nil {
				if lerr := logs.finish(); err == nil && lerr != nil {
					return usageError(lerr)
				}
			}
			if err != nil {
				return runError(cmd, err)
			}
			for _, l := range idleJobLines(out) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", l)
				warnings = append(warnings, l)
			}
			bk := &fio.BlkmqOutput{Warnings: warnings, Notes: notes}
			var stopped []stoppedJob
			for _, j := range out.Jobs {
				if j.Stopped != "" {
					stopped = append(stopped, stoppedJob{j.Spec.Name, j.Spec.Index, j.Stopped})
					if bk.Stopped == nil {
						bk.Stopped = map[string]string{}
					}
					bk.Stopped[j.Spec.Instance()] = j.Stopped
				}
			}
			for _, l := range stoppedLines(stopped) {
				fmt.Fprintln(cmd.ErrOrStderr(), "blkmq: warning:", l)
			}
			if len(bk.Warnings) == 0 && len(bk.Notes) == 0 && bk.Stopped == nil {
				bk = nil
			}
			rep := reportOf(out)
			err = writeOutputs(cmd, outPath, formats, func(w io.Writer, f string) error {
				switch f {
				case "terse":
					return rep.WriteTerse(w, depthsOf(out))
				case "json", "json+":
					return rep.WriteJSON(w, fio.OutputOptions{Plus: f == "json+", GlobalOptions: fio.GlobalOptionMap(specs), Blkmq: bk,
						Depths: depthsOf(out), SteadyState: steadyOf(out), DiskUtil: out.DiskUtil()})
				}
				return rep.WriteTextWith(w, fio.TextOptions{Specs: specs, Depths: depthsOf(out), SteadyState: steadyOf(out), DiskUtil: out.DiskUtil()})
			})
			if err == nil && out.Interrupted {
				return interruptedError("run interrupted by signal %d at model time %v: the results above are up to there", sig.Signal(), out.End)
			}
			return err
		},
	}
	m.register(cmd)
	cmd.Flags().StringVar(&format, "output-format", "normal", "output format: normal (fio text), json, json+, terse, or several separated by commas (json,normal)")
	cmd.Flags().StringVar(&eta, "eta", "auto", "progress on stderr, as fio's --eta: auto (a bar on a terminal, for runs over a second), always (also a line a second when not a terminal), never")
	cmd.Flags().BoolVar(&minimal, "minimal", false, "fio's terse output, version 3 (same as --output-format terse)")
	cmd.Flags().StringVar(&outPath, "output", "", "write the output to this file instead of stdout (fio --output)")
	cmd.Flags().BoolVar(&explain, "explain", false, "print every resolved setting and its source, then exit without running")
	cmd.Flags().DurationVar(&overhead, "emulation-overhead", 0, "add this delay to every device command's completion, as blkmq validate does, to compare with your own\nQEMU (TCG) runs, e.g. 270us, in [0, 1s] (the same as --set system/emulation_overhead=DUR, also in a TOML set list)")
	cmd.Flags().Float64Var(&slowdown, "emulation-slowdown", 1, "multiply every CPU cost by this factor (a cache line's move between CPUs is host hardware and stays unscaled), as blkmq validate does, to compare with your own\nQEMU (TCG) runs, e.g. 74, in [1, 1000] (the same as --set system/emulation_slowdown=F, also in a TOML set list)")
	cmd.Flags().IntVar(&replicas, "replicas", 1, "run the jobs with N model-jitter seeds (1..N) in parallel and report each figure's mean and 95% interval, disk_util's too\n(JSON: under a \"blkmq\" key; text: after fio's output); the fio output shown is seed 1's, [1, 1000]")
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
	ramp := map[string]time.Duration{} // ramp_time of a job without time_based
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
		if !j.Spec.TimeBased && j.Spec.RampTime > 0 {
			ramp[name] = j.Spec.RampTime
		}
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
		if r := ramp[name]; r > 0 && window[name] == 0 {
			// fio opens the window only when ramp_time ends (ramp_time_over), and
			// without time_based a job stops once its size is done: a job that
			// finishes during ramp_time has no window, whatever its runtime.
			lines = append(lines, fmt.Sprintf("job %s: no I/O completed in the 0s measurement window: the job did all its I/O (size) within ramp_time=%v, and without time_based it stops when its size is done, so the window after ramp_time never opened; a shorter ramp_time, or time_based, gives it one",
				name, r))
			continue
		}
		lines = append(lines, fmt.Sprintf("job %s: no I/O completed in the %v measurement window: %s; a longer --runtime may help",
			name, window[name], why))
	}
	if len(lines) > 0 {
		lines = append(lines, "by the end of the run: "+strings.Join(luns, "; "))
	}
	return lines
}

// parseFormats reads --output-format: one or more of normal (text), json,
// json+, separated by commas, as fio takes them.
func parseFormats(v string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(v, ",") {
		switch f = strings.TrimSpace(f); f {
		case "text":
			f = "normal"
			fallthrough
		case "normal", "json", "json+", "terse":
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		default:
			return nil, fmt.Errorf("--output-format %q: allowed values are normal (text), json, json+, terse, comma-separated", v)
		}
	}
	return out, nil
}

// writeOutputs writes each format, in the order given, to --output or stdout.
func writeOutputs(cmd *cobra.Command, path string, formats []string, write func(io.Writer, string) error) error {
	w := cmd.OutOrStdout()
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return usageError(fmt.Errorf("--output: %w", err))
		}
		defer f.Close()
		w = f
	}
	for _, f := range formats {
		if err := write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// splitRunArgs sorts run's arguments (flag parsing is off so fio options can be
// given as fio takes them): blkmq's own flags (with their values), fio options
// (--key[=value], the job given on the command line: see fio.ParseArgs) and
// positional arguments (the job file).
func splitRunArgs(cmd *cobra.Command, args []string) (own, fioArgs, pos []string) {
	fs := cmd.Flags()
	cliJob := slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--name=") })
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" {
			own = append(own, "--help")
			continue
		}
		if !strings.HasPrefix(a, "--") || a == "--" {
			pos = append(pos, a)
			continue
		}
		name, _, hasValue := strings.Cut(a[2:], "=")
		f := fs.Lookup(name)
		if f == nil || cliJob && name == "runtime" { // fio's own --runtime (seconds) in a command-line job
			fioArgs = append(fioArgs, a)
			continue
		}
		own = append(own, a)
		if !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	return own, fioArgs, pos
}

// depthsOf returns each job instance's depth distributions, in result order.
func depthsOf(out *stack.Result) []*fio.DepthStats {
	ds := make([]*fio.DepthStats, len(out.Jobs))
	for i := range out.Jobs {
		ds[i] = &out.Jobs[i].Depth
	}
	return ds
}

// steadyOf returns each job instance's steadystate= state, in result order.
func steadyOf(out *stack.Result) []*fio.SteadyStateResult {
	ss := make([]*fio.SteadyStateResult, len(out.Jobs))
	for i := range out.Jobs {
		ss[i] = out.Jobs[i].SteadyState
	}
	return ss
}
