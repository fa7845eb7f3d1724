package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/blkmq/blkmq/stack"
)

// Index is a reference set: cases plus, next to the index file, each case's job
// file and committed kernel results (NAME.fio.json, NAME.facts.json under
// results/).
type Index struct {
	// Kernel is the guest kernel release the results were measured on: uname -r
	// first, then anything in parentheses ("6.1.0-57-amd64 (Debian 12
	// linux-image-amd64, 6.1.192-3)"); Release returns the uname -r. Reference and
	// Reruns refuse a result file that names another kernel, and SaveReferenceRun
	// a run on another kernel.
	Kernel string `json:"kernel"`
	// Harness says how they were measured (QEMU accelerator, vCPUs, fio version).
	Harness string `json:"harness"`
	// Calibration names, per driver (scsi_debug, null_blk), the case whose kernel
	// figures calibrate the emulation overhead (see EmulationOverhead).
	Calibration map[string]string `json:"calibration,omitempty"`
	// SlowdownCalibration names the two cases whose kernel runs calibrate the
	// emulation slowdown for every case (EmulationSlowdown): the same pinned reader at
	// low load, then CPU-bound (SlowdownJob on SlowdownDevice); empty = no slowdown.
	SlowdownCalibration []string `json:"slowdown_calibration,omitempty"`
	// Cases are the configurations, in order.
	Cases []Case `json:"cases"`
	// Effects are policy comparisons between pairs of cases (CompareEffect).
	Effects []Effect `json:"effects,omitempty"`

	dir      string
	overhead map[overheadKey]time.Duration
	cycle    map[overheadKey]time.Duration // CycleOverheadWith's calibrations
	slowdown float64                       // 0 = not calibrated yet
	cache    map[string]cachedRun
	// netWake, when set before the slowdown is calibrated, is the wake-up charging
	// netSlowdown nets out (default DefaultWake): sensitivity runs of the native
	// switch cost set it to the comparison's own.
	netWake *stack.EmulationOptions
}

// overheadKey is one calibrated overhead: per driver and emulation slowdown.
type overheadKey struct {
	driver   string
	slowdown float64
	wake     stack.EmulationOptions
}

// LoadIndex reads an index file (testdata/kernel/configs.json). It returns an error
// for unreadable or malformed JSON, a duplicate or empty case name, or a case whose
// description either side rejects.
func LoadIndex(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	var ix Index
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ix); err != nil {
		return nil, fmt.Errorf("oracle: %s: %w", path, err)
	}
	ix.dir = filepath.Dir(path)
	seen := map[string]bool{}
	for i := range ix.Cases {
		c := &ix.Cases[i]
		if c.Name == "" || strings.ContainsAny(c.Name, "/ ") || seen[c.Name] {
			return nil, fmt.Errorf("oracle: %s: case %d: name %q empty, duplicate or with '/' or ' '", path, i, c.Name)
		}
		seen[c.Name] = true
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("oracle: %s: case %s: %w", path, c.Name, err)
		}
	}
	for i := range ix.Effects {
		e := &ix.Effects[i]
		if ix.Find(e.A) == nil || ix.Find(e.B) == nil || e.Name == "" {
			return nil, fmt.Errorf("oracle: %s: effect %d %q: cases %q and %q must exist", path, i, e.Name, e.A, e.B)
		}
	}
	if n := ix.SlowdownCalibration; len(n) != 0 && (len(n) != 2 || ix.Find(n[0]) == nil || ix.Find(n[1]) == nil) {
		return nil, fmt.Errorf("oracle: %s: slowdown_calibration %q: want two existing cases (low load, CPU-bound)", path, n)
	}
	for drv, name := range ix.Calibration {
		if c := ix.Find(name); c == nil || c.Driver() != drv {
			return nil, fmt.Errorf("oracle: %s: calibration %s: case %q missing or not a %s case", path, drv, name, drv)
		}
	}
	return &ix, nil
}

// Release returns the uname -r of the kernel the index's results were measured on:
// the first field of Kernel ("" when Kernel is empty).
func (ix *Index) Release() string {
	if f := strings.Fields(ix.Kernel); len(f) > 0 {
		return f[0]
	}
	return ""
}

// checkRunKernel refuses a kernel run on another release than the index's: its
// results would sit beside references of another kernel, and the model would
// compare them with the index's kernel profile.
func (ix *Index) checkRunKernel(c *Case, f *Facts) error {
	if f == nil {
		return fmt.Errorf("oracle: case %s: the kernel run has no facts (no kernel release to check)", c.Name)
	}
	if want := ix.Release(); want != "" && f.Kernel != want {
		return fmt.Errorf("oracle: case %s: the kernel run was on %q, the index's results are from %s (%s): %w; build the guest of %s (oracle/scripts/build-guest.sh %s), or re-record every case and update the index's kernel",
			c.Name, f.Kernel, want, ix.Kernel, ErrWrongGuest, want, want)
	}
	if want, got := indexDebianVersion(ix.Kernel), procDebianVersion(f.Version); want != "" && got != "" && want != got {
		return fmt.Errorf("oracle: case %s: the kernel run was on Debian's %s build of %s, the index's results are from %s (%s): %w; build the guest from that package (oracle/scripts/build-guest.sh), or re-record every case and update the index's kernel",
			c.Name, got, f.Kernel, want, ix.Kernel, ErrWrongGuest)
	}
	return nil
}

var (
	indexDebianRE = regexp.MustCompile(`\d+\.\d+\.\d+-[0-9A-Za-z.+~]+`)
	procDebianRE  = regexp.MustCompile(`Debian (\d+\.\d+\.\d+-[0-9A-Za-z.+~]+)`)
)

// indexDebianVersion returns the Debian package version an index's Kernel names
// ("6.1.192-3" of "6.1.0-57-amd64 (Debian 12 linux-image-amd64, 6.1.192-3)"), or
// "": the last VERSION-REVISION after the release.
func indexDebianVersion(kernel string) string {
	_, rest, _ := strings.Cut(kernel, " ")
	m := indexDebianRE.FindAllString(rest, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// procDebianVersion returns the Debian package version of a /proc/version line
// ("6.1.192-3" of "... #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"), or
// "": the last "Debian X.Y.Z-R" (the compiler's "(Debian 12.2.0-14...)" comes
// before it).
func procDebianVersion(version string) string {
	m := procDebianRE.FindAllStringSubmatch(version, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// checkResultKernel refuses a committed facts file whose kernel is not the index's:
// a case re-recorded on another guest would be compared, and would calibrate, as if
// it were the index's kernel.
func (ix *Index) checkResultKernel(path string, f *Facts) error {
	if want := ix.Release(); want != "" && f.Kernel != want {
		return fmt.Errorf("oracle: %s: recorded on kernel %q, the index's results are from %s (%s): %w; re-record the case on %s",
			path, f.Kernel, want, ix.Kernel, ErrWrongGuest, want)
	}
	if want, got := indexDebianVersion(ix.Kernel), procDebianVersion(f.Version); want != "" && got != "" && want != got {
		return fmt.Errorf("oracle: %s: recorded on Debian's %s build of %s, the index's results are from %s (%s): %w; re-record the case on %s",
			path, got, f.Kernel, want, ix.Kernel, ErrWrongGuest, want)
	}
	return nil
}

// Slowdown returns the emulation slowdown calibrated from the committed runs of the
// SlowdownCalibration cases (1 when the index names none): fio's CPU time per command
// in the CPU-bound case over the model's at native costs (FioCPUSlowdown), or with
// BLKMQ_ORACLE_SLOWDOWN=marginal the guest's marginal CPU time per command between the
// two cases over the model's (EmulationSlowdown). With the fio-CPU method the factor
// is then made net of the calibration cell's sleep-and-wake cycles (netSlowdown;
// BLKMQ_ORACLE_SLOWDOWN_NET=0 keeps the gross one). It returns an error when the
// cases' results are missing or unusable, or for another BLKMQ_ORACLE_SLOWDOWN or
// BLKMQ_ORACLE_SLOWDOWN_NET.
func (ix *Index) Slowdown() (float64, error) {
	if len(ix.SlowdownCalibration) == 0 {
		return 1, nil
	}
	if ix.slowdown != 0 {
		return ix.slowdown, nil
	}
	var runs [2][]*Facts
	var fios [2][]*FioJSON
	for i, name := range ix.SlowdownCalibration {
		c := ix.Find(name)
		fj, facts, err := ix.Reference(c)
		if err != nil {
			return 0, err
		}
		mfj, more, err := ix.Reruns(c)
		if err != nil {
			return 0, err
		}
		runs[i] = append([]*Facts{facts}, more...)
		fios[i] = append([]*FioJSON{fj}, mfj...)
	}
	hi := ix.Find(ix.SlowdownCalibration[1])
	m, err := RunModel(hi, ix.JobPath(hi), ModelOptions{Seed: 1, EmulationSlowdown: -1, EmulationOverhead: -1})
	if err != nil {
		return 0, err
	}
	fioCPU, err := fioCPUCalibration()
	if err != nil {
		return 0, err
	}
	var f float64
	if fioCPU {
		f, err = FioCPUSlowdown(fios[1], m, SlowdownCPU)
	} else {
		f, err = EmulationSlowdown(runs[0], runs[1], m, SlowdownCPU)
	}
	if err != nil {
		return 0, fmt.Errorf("oracle: slowdown calibration cases %v: %w", ix.SlowdownCalibration, err)
	}
	net, err := netCalibration()
	if err != nil {
		return 0, err
	}
	if fioCPU && net {
		if f, err = ix.netSlowdown(hi, fios[1], f); err != nil {
			return 0, fmt.Errorf("oracle: slowdown calibration cases %v: %w", ix.SlowdownCalibration, err)
		}
	}
	ix.slowdown = f
	return f, nil
}

// Overhead returns the emulation overhead calibrated for the case's driver from the
// committed results (0 when the index names no calibration case for it), with the
// calibrated emulation slowdown applied to the model side (Slowdown), as
// CompareReference uses it. It returns an error when the calibration cases' results
// are missing or unusable.
func (ix *Index) Overhead(c *Case) (time.Duration, error) {
	f, err := ix.Slowdown()
	if err != nil {
		return 0, err
	}
	return ix.OverheadAt(c, f)
}

// OverheadAt is Overhead with the model side of the calibration run at emulation
// slowdown slowdown (<= 1: none): the per-command overhead is what the queue-depth-1
// latency leaves once the slowed CPU path is charged.
func (ix *Index) OverheadAt(c *Case, slowdown float64) (time.Duration, error) {
	return ix.OverheadWith(c, slowdown, stack.EmulationOptions{})
}

// OverheadWith is OverheadAt with the model side of the calibration run charging the
// emulated guest's wake-ups as wake says (ModelOptions.Wake): with WakeSplit the
// guest code of each wake-up is CPU time on the path, and the overhead is what the
// queue-depth-1 latency leaves after it. The calibration case is the index's for the
// driver, or the one BLKMQ_ORACLE_CALIBRATION names (calibrationCase; opt-in, for
// sensitivity runs: e.g. null_blk=calib-cpu-nb-qd1 calibrates null_blk on the pinned
// 2 ms queue-depth-1 reader instead of the unpinned 4 ms one). It returns an error
// for a malformed BLKMQ_ORACLE_CALIBRATION.
func (ix *Index) OverheadWith(c *Case, slowdown float64, wake stack.EmulationOptions) (time.Duration, error) {
	drv := c.Driver()
	name, ok, err := ix.calibrationCase(drv)
	if err != nil || !ok {
		return 0, err
	}
	slowdown = max(slowdown, 1)
	k := overheadKey{drv, slowdown, wake}
	if d, ok := ix.overhead[k]; ok {
		return d, nil
	}
	kf, mf, err := ix.calibrationFigures(ix.Find(name), ModelOptions{Seed: 1, EmulationSlowdown: slowdown, Wake: wake})
	if err != nil {
		return 0, err
	}
	d, err := EmulationOverhead(kf, mf)
	if err != nil {
		return 0, fmt.Errorf("oracle: calibration case %s: %w", name, err)
	}
	if ix.overhead == nil {
		ix.overhead = map[overheadKey]time.Duration{}
	}
	ix.overhead[k] = d
	return d, nil
}

// calibrationFigures returns a calibration case's committed kernel figures and the
// model's figures for it under o (OverheadWith, CycleOverheadWith).
func (ix *Index) calibrationFigures(cal *Case, o ModelOptions) (kernel, model *Figures, err error) {
	fj, facts, err := ix.Reference(cal)
	if err != nil {
		return nil, nil, err
	}
	if kernel, err = KernelFigures(fj, facts); err != nil {
		return nil, nil, err
	}
	m, err := RunModel(cal, ix.JobPath(cal), o)
	if err != nil {
		return nil, nil, err
	}
	return kernel, m.Figures(), nil
}

// calibrationCase returns the case that calibrates drv's emulation overhead: the
// index's Calibration entry, or the one BLKMQ_ORACLE_CALIBRATION names for drv
// (DRIVER=CASE[,DRIVER=CASE...]: a sensitivity run of which queue-depth-1 cell
// calibrates; the case must exist and be of that driver). ok is false when
// neither names one. It returns an error for a malformed variable or a case that
// is missing or of another driver.
func (ix *Index) calibrationCase(drv string) (name string, ok bool, err error) {
	name, ok = ix.Calibration[drv]
	v := os.Getenv("BLKMQ_ORACLE_CALIBRATION")
	if v == "" {
		return name, ok, nil
	}
	for _, kv := range strings.Split(v, ",") {
		d, n, found := strings.Cut(kv, "=")
		if !found || d == "" || n == "" {
			return "", false, fmt.Errorf("oracle: BLKMQ_ORACLE_CALIBRATION %q: want DRIVER=CASE[,DRIVER=CASE...]", v)
		}
		if d != drv {
			continue
		}
		if cal := ix.Find(n); cal == nil || cal.Driver() != drv {
			return "", false, fmt.Errorf("oracle: BLKMQ_ORACLE_CALIBRATION: case %q missing or not a %s case", n, drv)
		}
		name, ok = n, true
	}
	return name, ok, nil
}

// JobPath returns the case's job file path.
func (ix *Index) JobPath(c *Case) string {
	if filepath.IsAbs(c.Job) {
		return c.Job
	}
	return filepath.Join(ix.dir, c.Job)
}

func (ix *Index) resultPath(c *Case, kind string) string {
	return filepath.Join(ix.dir, "results", c.Name+"."+kind+".json")
}

// rerunPath is the file of a case's repeated kernel run (run 2, 3, ...):
// results/NAME.runK.KIND.json.
func (ix *Index) rerunPath(c *Case, run int, kind string) string {
	return filepath.Join(ix.dir, "results", fmt.Sprintf("%s.run%d.%s.json", c.Name, run, kind))
}

// Reruns reads a case's committed repeated kernel runs (run 2, 3, ... of the same
// configuration, for the run-to-run difference); none is not an error. It returns an
// error when a file exists but is malformed.
func (ix *Index) Reruns(c *Case) ([]*FioJSON, []*Facts, error) {
	var fjs []*FioJSON
	var fs []*Facts
	for run := 2; ; run++ {
		data, err := os.ReadFile(ix.rerunPath(c, run, "fio"))
		if errors.Is(err, os.ErrNotExist) {
			return fjs, fs, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("oracle: %w", err)
		}
		fj, err := ParseFioJSON(data)
		if err != nil {
			return nil, nil, fmt.Errorf("oracle: %s: %w", ix.rerunPath(c, run, "fio"), err)
		}
		data, err = os.ReadFile(ix.rerunPath(c, run, "facts"))
		if err != nil {
			return nil, nil, fmt.Errorf("oracle: %w", err)
		}
		var f Facts
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, nil, fmt.Errorf("oracle: %s: %w", ix.rerunPath(c, run, "facts"), err)
		}
		if err := ix.checkResultKernel(ix.rerunPath(c, run, "facts"), &f); err != nil {
			return nil, nil, err
		}
		fjs, fs = append(fjs, fj), append(fs, &f)
	}
}

// Reference reads a case's committed kernel results. It returns an error when a
// file is missing or malformed, or when its facts name another kernel than the
// index (wrapping ErrWrongGuest).
func (ix *Index) Reference(c *Case) (*FioJSON, *Facts, error) {
	data, err := os.ReadFile(ix.resultPath(c, "fio"))
	if err != nil {
		return nil, nil, fmt.Errorf("oracle: %w", err)
	}
	fj, err := ParseFioJSON(data)
	if err != nil {
		return nil, nil, fmt.Errorf("oracle: %s: %w", ix.resultPath(c, "fio"), err)
	}
	data, err = os.ReadFile(ix.resultPath(c, "facts"))
	if err != nil {
		return nil, nil, fmt.Errorf("oracle: %w", err)
	}
	var f Facts
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, fmt.Errorf("oracle: %s: %w", ix.resultPath(c, "facts"), err)
	}
	if err := ix.checkResultKernel(ix.resultPath(c, "facts"), &f); err != nil {
		return nil, nil, err
	}
	return fj, &f, nil
}

// SaveReference writes a kernel run as the case's committed results.
func (ix *Index) SaveReference(c *Case, k *KernelRun) error {
	return ix.SaveReferenceRun(c, k, 1)
}

// SaveReferenceRun writes a kernel run as the case's committed run number run:
// 1 is the reference (NAME.fio.json, NAME.facts.json), 2 and up are repeats
// (NAME.runK.*.json) that give the run-to-run difference. It returns an error for
// run < 1, a run on another kernel than the index's (Facts.Kernel against Release;
// wraps ErrWrongGuest), or a failed write.
func (ix *Index) SaveReferenceRun(c *Case, k *KernelRun, run int) error {
	if run < 1 {
		return fmt.Errorf("oracle: run %d out of range [1, ...)", run)
	}
	if err := ix.checkRunKernel(c, k.Facts); err != nil {
		return err
	}
	fioPath, factsPath := ix.resultPath(c, "fio"), ix.resultPath(c, "facts")
	if run > 1 {
		fioPath, factsPath = ix.rerunPath(c, run, "fio"), ix.rerunPath(c, run, "facts")
	}
	if err := os.MkdirAll(filepath.Join(ix.dir, "results"), 0o755); err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	fj, err := k.Fio.MarshalIndent()
	if err != nil {
		return err
	}
	facts, err := json.MarshalIndent(k.Facts, "", "  ")
	if err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	if err := os.WriteFile(fioPath, fj, 0o644); err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	return os.WriteFile(factsPath, append(facts, '\n'), 0o644)
}

// Find returns the case named name, or nil.
func (ix *Index) Find(name string) *Case {
	for i := range ix.Cases {
		if ix.Cases[i].Name == name {
			return &ix.Cases[i]
		}
	}
	return nil
}

// hostCoresRE finds the host's core count in a harness string ("... on a 2-core host").
var hostCoresRE = regexp.MustCompile(`(\d+)-core host`)

// HostCores returns the number of host cores the reference set's harness string says
// the guest ran on, or 0 when it does not say.
func (ix *Index) HostCores() int {
	m := hostCoresRE.FindStringSubmatch(ix.Harness)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
