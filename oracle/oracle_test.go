package oracle

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
)

func TestParseGuestLog(t *testing.T) {
	data, err := os.ReadFile("testdata/guest-result.log")
	if err != nil {
		t.Fatal(err)
	}
	fj, facts, err := ParseGuestLog(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(fj.Jobs) != 1 || fj.Jobs[0].JobName != "rr" || fj.Jobs[0].Read.TotalIOs == 0 {
		t.Fatalf("fio jobs: %+v", fj.Jobs)
	}
	if got := sortedKeys(fj.Jobs[0].Read.Clat.Percentile); !cmp.Equal(got, keptPercentiles) {
		t.Errorf("kept percentiles %v, want %v", got, keptPercentiles)
	}
	want := DiskFacts{Name: "nullb0", Scheduler: "none", NrRequests: 64, HwQueues: 3, MaxSectorsKB: 127,
		ReadIOs: 1135, ReadSectors: 9080, InflightMean: 0.74, InflightMax: 1,
		Tags: []string{"hctx0 cpus=cpu0 nr_tags=64 nr_reserved_tags=0 active_queues=0 depth=64",
			"hctx1 cpus=cpu1 nr_tags=64 nr_reserved_tags=0 active_queues=0 depth=64",
			"hctx2 cpus=cpu0,cpu1 nr_tags=64 nr_reserved_tags=0 active_queues=0 depth=64"}}
	if len(facts.Disks) != 1 {
		t.Fatalf("disks %+v", facts.Disks)
	}
	if d := cmp.Diff(want, facts.Disks[0]); d != "" {
		t.Errorf("disk facts (-want +got):\n%s", d)
	}
	if facts.Kernel != "6.1.0-57-amd64" || facts.CPUs != 2 || math.Abs(facts.Seconds-5.84) > 1e-9 {
		t.Errorf("facts kernel %q cpus %d seconds %v", facts.Kernel, facts.CPUs, facts.Seconds)
	}
}

func TestParseGuestLogFailures(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
	}{
		{"modprobe-failed", "#blkmq-begin modprobe\nmodprobe: unknown parameter 'foo'\n#blkmq-end modprobe 22\n#blkmq-done\n",
			"guest step modprobe failed (rc 22): modprobe: unknown parameter 'foo'"},
		{"vm-died", "#blkmq-begin modprobe\n", "ends before step modprobe finished"},
		{"fio-failed", "#blkmq-end modprobe 0\n#blkmq-end sysfs 0\n#blkmq-begin fio\n#blkmq-end fio 1\n#blkmq-begin fio-log\nfio: bad option\n#blkmq-end fio-log 0\n#blkmq-done\n",
			"guest step fio failed (rc 1): fio: bad option"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseGuestLog([]byte(tc.log))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCaseTranslation(t *testing.T) {
	c := Case{Name: "x", Device: "modprobe scsi_debug delay=1 max_queue=64",
		Set: []string{"device/queue_depth=15", "queue/nr_requests=56", "queue/scheduler=mq-deadline", "system/nr_cpus=2", "kernel=6.1.192"}}
	mod, err := c.Modprobe()
	if err != nil || mod != "scsi_debug delay=1 max_queue=64" {
		t.Errorf("Modprobe = %q, %v", mod, err)
	}
	sys, err := c.Sysfs()
	if err != nil {
		t.Fatal(err)
	}
	// the scheduler first: an elevator switch resets nr_requests
	if d := cmp.Diff([]string{"queue/scheduler mq-deadline", "device/queue_depth 15", "queue/nr_requests 56"}, sys); d != "" {
		t.Errorf("Sysfs (-want +got):\n%s", d)
	}
	d, err := c.Description()
	if err != nil {
		t.Fatal(err)
	}
	if d.Kernel != GuestKernel || d.CPUs != 2 || d.Set[0] != "system/hz=250" || len(d.Set) != 4 {
		t.Errorf("Description = %+v", d)
	}
	if err := c.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestCaseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Case
		want string
	}{
		{"cloud-device", Case{Device: "cloud iops=5000"}, `device kind "cloud" has no kernel counterpart`},
		{"host-key", Case{Device: "null_blk", Set: []string{"host/can_queue=8"}}, `setting "host/can_queue" has no sysfs file`},
		{"other-kernel", Case{Device: "null_blk", Set: []string{"kernel=5.10"}}, "the guest runs 6.1"},
		{"hz", Case{Device: "null_blk", Set: []string{"system/hz=1000"}}, "HZ=250"},
		{"cpus", Case{Device: "null_blk", CPUs: 100}, "cpus 100 out of range [1, 64]"},
		{"empty", Case{}, "device: empty"},
		{"model-rejects", Case{Device: "null_blk bogus=1"}, `unknown null_blk parameter "bogus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCompareRows(t *testing.T) {
	k := &Figures{Jobs: []JobFigures{{Job: "a", Dir: "read", IOPS: 1000, ClatMean: 4e6, ClatP99: 8e6}},
		Device: DeviceFigures{MergeFraction: 0.30, CommandsPerSec: 1000, MeanCommandBytes: 4096}}
	m := &Figures{Jobs: []JobFigures{{Job: "a", Dir: "read", IOPS: 1200, ClatMean: 4.5e6, ClatP99: 9e6}, {Job: "b", Dir: "write", IOPS: 5}},
		Device: DeviceFigures{MergeFraction: 0.25, CommandsPerSec: 1200, MeanCommandBytes: 4096}}
	c := Compare("t", k, m, []KnownMiss{{Row: "a read iops", Mechanism: "m"}})
	type res struct {
		Key       string
		Pass      bool
		KnownMiss string
	}
	var got []res
	for _, r := range c.Rows {
		got = append(got, res{r.Key, r.Pass, r.KnownMiss})
	}
	want := []res{{"a read iops", false, "m"}, {"a read clat_mean", true, ""}, {"a read clat_p99", true, ""},
		{"b write iops", false, ""}, {"device commands_per_sec", true, ""}, {"device mean_command", true, ""},
		{"device merges", true, ""}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if f := c.Failed(); len(f) != 1 || f[0].Key != "b write iops" {
		t.Errorf("Failed() = %+v", f)
	}
	var b strings.Builder
	if err := c.WriteText(&b); err != nil || !strings.Contains(b.String(), "known miss a read iops: m") {
		t.Errorf("WriteText: %v\n%s", err, b.String())
	}
}

func TestEmulationOverhead(t *testing.T) {
	k := &Figures{Jobs: []JobFigures{{ClatMean: 4.3e6}}}
	m := &Figures{Jobs: []JobFigures{{ClatMean: 4.0e6}}}
	d, err := EmulationOverhead(k, m)
	if err != nil || d != 300*time.Microsecond {
		t.Errorf("EmulationOverhead = %v, %v; want 300µs", d, err)
	}
	// the error names both causes: a wake switch the user chose can make the model
	// slower, and the message once blamed the device presets only
	if _, err := EmulationOverhead(m, &Figures{Jobs: []JobFigures{{ClatMean: 5e6}}}); err == nil ||
		!strings.Contains(err.Error(), "kernel clat mean 4.000 ms below the model's 5.000 ms without any overhead") ||
		!strings.Contains(err.Error(), "emulated CPU costs (emulation slowdown, wake switch)") {
		t.Errorf("model slower than kernel: error %v, want one naming the presets and the emulated CPU costs", err)
	}
}

// TestOverheadDevice: a QD1 job on the model gains exactly the overhead.
func TestOverheadDevice(t *testing.T) {
	c := &Case{Name: "cal", Device: "null_blk irqmode=2 completion_nsec=4000000", Set: []string{"queue/scheduler=none"}}
	path := t.TempDir() + "/cal.fio"
	if err := os.WriteFile(path, []byte(CalibrationJob), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := RunModel(c, path, ModelOptions{Runtime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	more, err := RunModel(c, path, ModelOptions{Runtime: time.Second, EmulationOverhead: 500 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	b, m := base.Figures().Jobs[0].ClatMean, more.Figures().Jobs[0].ClatMean
	if math.Abs(m-b-5e5) > 2e4 {
		t.Errorf("clat mean %.0f ns with overhead, %.0f without: want +500 µs", m, b)
	}
}

func TestHarnessAvailable(t *testing.T) {
	h := &Harness{Cache: t.TempDir()}
	err := h.Available()
	if err == nil {
		t.Fatal("empty cache: want an error")
	}
	if !errors.Is(err, ErrNoGuest) && !errors.Is(err, ErrNoQEMU) {
		t.Fatalf("error %v wraps neither ErrNoGuest nor ErrNoQEMU", err)
	}
	for _, want := range []string{"build-guest.sh", "apt-get install qemu-system-x86"} {
		if !strings.Contains(ErrNoGuest.Error()+ErrNoQEMU.Error(), want) {
			t.Errorf("errors do not name %q", want)
		}
	}
	if _, err := h.Run(context.Background(), &Case{Device: "null_blk"}, "x.fio"); err == nil {
		t.Error("Run without a guest: want an error")
	}
}

func TestWriteScripts(t *testing.T) {
	dir, err := WriteScripts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"build-guest.sh", "run-guest.sh", "guest-init.sh"} {
		st, err := os.Stat(dir + "/" + f)
		if err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s: %v, mode %v", f, err, st.Mode())
		}
	}
}

func TestErrCell(t *testing.T) {
	tests := []struct {
		name          string
		kernel, model float64
		want          string
	}{
		{"relative", 0.30, 0.25, "-16.7%"},
		{"kernel-zero", 0, 0.020, "+0.020 abs"},
		{"kernel-shows-as-zero", 0.0000757, 0.020, "+0.020 abs"},
		{"model-below-tiny-kernel", 0.0004, 0, "-4.0e-04 abs"},
		{"both-zero", 0, 0, "+0.0%"},
		{"small-but-shown", 0.002, 0.020, "+900.0%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := errCell(row("device merges", "merge_fraction", tc.kernel, tc.model, 0.1)); got != tc.want {
				t.Errorf("errCell(kernel %v, model %v) = %q, want %q", tc.kernel, tc.model, got, tc.want)
			}
		})
	}
}

// TestParseGuestSetup: a log of the guest with modprobe pinned to CPU 0 (null_blk
// shared_tags, two disks; fam-hold-nb-deep-shallow run by hand) reports the setup
// I/O: 3 partition-scan reads per disk before fio, and on the shared tags of hctx0
// one active user (only the later disk's scan counts), which Facts.GuestSetup turns
// into the scan the model replays.
func TestParseGuestSetup(t *testing.T) {
	data, err := os.ReadFile("testdata/guest-setup-result.log")
	if err != nil {
		t.Fatal(err)
	}
	_, facts, err := ParseGuestLog(data)
	if err != nil {
		t.Fatal(err)
	}
	type disk struct {
		Reads  int64
		Active []int
	}
	var got []disk
	for _, d := range facts.Disks {
		x := disk{Reads: d.SetupReadIOs}
		for _, h := range d.Hctxs {
			x.Active = append(x.Active, h.SetupActiveQueues)
		}
		got = append(got, x)
	}
	want := []disk{{3, []int{1, 0, 0}}, {3, []int{1, 0, 0}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("setup facts (-want +got):\n%s", d)
	}
	if math.Abs(facts.SetupSeconds-0.81) > 1e-9 || math.Abs(facts.StartUptime-5.97) > 1e-9 {
		t.Errorf("setup %v s before fio at uptime %v s, want 0.81 at 5.97", facts.SetupSeconds, facts.StartUptime)
	}
	s := facts.GuestSetup()
	if s == nil || s.ScanCPU != GuestSetupCPU || s.Before != 810*sim.Millisecond || s.Uptime != 5970*sim.Millisecond {
		t.Errorf("GuestSetup = %+v", s)
	}
	if (&Facts{}).GuestSetup() != nil {
		t.Error("facts without setup give a GuestSetup")
	}
}

// The round-8 scheduler facts (guest-init.sh sched_stat and task_sample), from a
// log written by hand in the kernel's formats: /proc/interrupts and /proc/softirqs
// rows (arch/x86/kernel/irq.c, fs/proc/softirqs.c), /proc/timer_list's print_cpu
// fields (kernel/time/timer_list.c), /proc/PID/schedstat (fs/proc/base.c) and the
// status switch counts (fs/proc/array.c), as the guest's awk summarises them. The
// older logs, without these blocks, load with the fields absent.
func TestParseGuestSchedFacts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		file   string
		irqs   map[string][]int64
		soft   map[string][]int64
		timers []HrtimerFacts
		tasks  []TaskFacts
	}{
		{name: "round-8", file: "testdata/guest-sched-result.log",
			irqs: map[string][]int64{"LOC": {1547, 5489}, "RES": {74, 2000}, "CAL": {7, 8}, "TLB": {0, 1}},
			soft: map[string][]int64{"HI": {0, 0}, "TIMER": {178, 256}, "NET_TX": {0, 0}, "NET_RX": {0, 0}, "BLOCK": {0, 1138},
				"IRQ_POLL": {0, 0}, "TASKLET": {0, 0}, "SCHED": {51, 800}, "HRTIMER": {0, 0}, "RCU": {148, 289}},
			timers: []HrtimerFacts{{CPU: 0, NrEvents: 1679, IdleCalls: 1380, IdleSleeps: 1370},
				{CPU: 1, NrEvents: 7278, NrRetries: 7, NrHangs: 1, IdleCalls: 1099, IdleSleeps: 1050}},
			tasks: []TaskFacts{
				{PID: 301, TID: 301, Name: "fio", Span: 4.01, RunNs: 5000000, WaitNs: 100000, Slices: 5, Voluntary: 5,
					RunNsTotal: 125000000, WaitNsTotal: 3100000, SlicesTotal: 45, VoluntaryTotal: 17, NonvoluntaryTotal: 3},
				{PID: 305, TID: 305, Name: "fio", Span: 4.01, RunNs: 3950000000, WaitNs: 40000000, Slices: 1250, Voluntary: 1140, Nonvoluntary: 110,
					RunNsTotal: 4930000000, WaitNsTotal: 41000000, SlicesTotal: 1370, VoluntaryTotal: 1145, NonvoluntaryTotal: 225}}},
		{name: "before-round-8", file: "testdata/guest-result.log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			_, facts, err := ParseGuestLog(data)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.irqs, facts.Interrupts); d != "" {
				t.Errorf("interrupts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.soft, facts.SoftIRQs); d != "" {
				t.Errorf("softirqs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.timers, facts.Hrtimers); d != "" {
				t.Errorf("hrtimers (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.tasks, facts.Tasks); d != "" {
				t.Errorf("tasks (-want +got):\n%s", d)
			}
		})
	}
}

// A committed reference recorded before round 8 loads without the scheduler facts,
// and writing it back adds no field (omitempty).
func TestOldFactsLoad(t *testing.T) {
	// a committed facts file of round 7, trimmed
	data := `{"kernel": "6.1.0-57-amd64", "cpus": 2, "seconds": 6.28,
		"disks": [{"name": "sda", "scheduler": "none", "nr_requests": 64, "hw_queues": 2, "max_sectors_kb": 512, "read_ios": 41730}],
		"cpu_busy": [0.046, 0.967], "cpu_irq": [0, 0], "setup_seconds": 1.23, "start_uptime": 6.09}`
	var f Facts
	if err := json.Unmarshal([]byte(data), &f); err != nil {
		t.Fatal(err)
	}
	if f.Interrupts != nil || f.SoftIRQs != nil || f.Hrtimers != nil || f.Tasks != nil {
		t.Errorf("old facts have round-8 fields: %+v %+v %+v %+v", f.Interrupts, f.SoftIRQs, f.Hrtimers, f.Tasks)
	}
	out, err := json.Marshal(&f)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"interrupts", "softirqs", "hrtimers", "tasks"} {
		if strings.Contains(string(out), `"`+k+`"`) {
			t.Errorf("re-marshalled old facts contain %q", k)
		}
	}
	if got := (TaskFacts{RunNs: 3000, Slices: 3}).RunPerSlice(); got != 1000 {
		t.Errorf("RunPerSlice = %v, want 1000", got)
	}
	if got := (TaskFacts{RunNs: 3000}).RunPerSlice(); got != 0 {
		t.Errorf("RunPerSlice without a slice = %v, want 0", got)
	}
}
