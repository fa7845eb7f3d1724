package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestModelVsKernel compares the model with the committed kernel figures of every
// reference case (testdata/kernel), with the jobs' own runtimes (8 s of model time,
// under a second of CPU for the whole set): per-job IOPS within ±15 %, mean completion
// latency within ±25 %, device merge fraction within ±20 % (or 0.01 absolute). A
// row listed as a known miss in configs.json is skipped with its mechanism; a known
// miss that now passes fails, so the entry gets removed.
func TestModelVsKernel(t *testing.T) {
	checkModelVsKernel(t, sharedReferenceIndex(t))
}

// checkModelVsKernel runs TestModelVsKernel's comparison over every case of ix.
func checkModelVsKernel(t *testing.T, ix *Index) {
	t.Helper()
	for i := range ix.Cases {
		c := &ix.Cases[i]
		t.Run(c.Name, func(t *testing.T) {
			skipFamilyInShort(t, c.Name)
			cmp, _, err := ix.cachedCompare(c, ModelOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var table strings.Builder
			_ = cmp.WriteText(&table)
			t.Log("\n" + table.String())
			for _, km := range c.KnownMisses {
				if !hasRow(cmp, km.Row) {
					t.Errorf("known miss %q names no comparison row", km.Row)
				}
			}
			for _, r := range cmp.Rows {
				if r.Tol == 0 {
					continue
				}
				t.Run(strings.ReplaceAll(r.Key, " ", "_"), func(t *testing.T) {
					if r.KnownMiss != "" {
						if r.Pass {
							t.Fatalf("known miss now within tolerance (kernel %.4g, model %.4g, %+.1f%%): remove it from configs.json",
								r.Kernel, r.Model, 100*r.RelErr)
						}
						t.Skipf("known miss: kernel %.4g, model %.4g (%+.1f%%): %s", r.Kernel, r.Model, 100*r.RelErr, r.KnownMiss)
					}
					if !r.Pass {
						t.Errorf("kernel %.4g, model %.4g: error %+.1f%% beyond ±%.0f%%", r.Kernel, r.Model, 100*r.RelErr, 100*r.Tol)
					}
				})
			}
		})
	}
}

// TestPolicyEffects checks the sign of every policy effect of the reference set
// (configs.json effects: per-hctx vs host-wide tags, none vs mq-deadline, libaio
// vs io_uring) per job IOPS and mean clat: wherever the kernel's effect exceeds
// twice its run-to-run difference, the model's effect must have the same sign. A
// row listed as a known miss of the effect is skipped with its mechanism.
func TestPolicyEffects(t *testing.T) {
	checkPolicyEffects(t, sharedReferenceIndex(t))
}

// checkPolicyEffects runs TestPolicyEffects's sign check over every effect of ix.
func checkPolicyEffects(t *testing.T, ix *Index) {
	t.Helper()
	for i := range ix.Effects {
		e := &ix.Effects[i]
		t.Run(strings.ReplaceAll(e.Name, " ", "_"), func(t *testing.T) {
			skipFamilyInShort(t, e.Name)
			ec, err := ix.CompareEffect(e, ModelOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var table strings.Builder
			_ = ec.WriteText(&table)
			t.Log("\n" + table.String())
			for _, km := range e.KnownMisses {
				found := false
				for _, r := range ec.Rows {
					found = found || r.Key == km.Row
				}
				if !found {
					t.Errorf("known miss %q names no effect row", km.Row)
				}
			}
			for _, r := range ec.Rows {
				if !r.Checked {
					continue
				}
				t.Run(strings.ReplaceAll(r.Key, " ", "_"), func(t *testing.T) {
					if r.KnownMiss != "" {
						if r.Pass {
							t.Fatalf("known miss now has the kernel's sign (kernel %+.1f%%, model %+.1f%%): remove it from configs.json", 100*r.Kernel, 100*r.Model)
						}
						t.Skipf("known miss: kernel %+.1f%%, model %+.1f%%: %s", 100*r.Kernel, 100*r.Model, r.KnownMiss)
					}
					if !r.Pass {
						t.Errorf("kernel effect %+.1f%% (run-to-run %.1f%%), model %+.1f%%: wrong sign", 100*r.Kernel, 100*r.RunDiff, 100*r.Model)
					}
				})
			}
		})
	}
}

var (
	sharedIndexOnce sync.Once
	sharedIndex     *Index
	sharedIndexErr  error
)

// sharedReferenceIndex is the reference index shared by the model-side tests, so
// that each case's model side runs once (Index caches it).
func sharedReferenceIndex(t *testing.T) *Index {
	t.Helper()
	sharedIndexOnce.Do(func() { sharedIndex, sharedIndexErr = LoadIndex(referenceIndexPath()) })
	if sharedIndexErr != nil {
		t.Fatal(sharedIndexErr)
	}
	return sharedIndex
}

// skipFamilyInShort skips, under -short, the cases and effects of the deep-readers
// family (names containing "fam-"): 38 model runs that take minutes under the race
// detector (CI's -race -short step) and run in full in the plain `go test ./...`.
func skipFamilyInShort(t *testing.T, name string) {
	t.Helper()
	if testing.Short() && strings.Contains(name, "fam-") {
		t.Skip("-short: the fam-* reference family runs in the full test")
	}
}

func hasRow(c *Comparison, key string) bool {
	for _, r := range c.Rows {
		if r.Key == key {
			return true
		}
	}
	return false
}

// TestReferenceSetCoverage checks that the committed set covers what it must:
// at least 12 cases, both drivers, libaio and io_uring, none and mq-deadline,
// per-hctx and host-wide tags, several LUNs or devices, pinned jobs, and the
// source-000 configuration; and that every case has committed results in which
// the guest ran what the case asked for (scheduler, queue_depth, nr_requests).
func TestReferenceSetCoverage(t *testing.T) {
	ix := loadReferenceIndex(t)
	if len(ix.Cases) < 12 {
		t.Errorf("%d cases, want at least 12", len(ix.Cases))
	}
	seen := map[string]bool{}
	for i := range ix.Cases {
		c := &ix.Cases[i]
		fj, facts, err := ix.Reference(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		for _, w := range strings.Fields(c.Device) {
			seen[w] = true
			if k, _, ok := strings.Cut(w, "="); ok {
				seen[k] = true
			}
		}
		for _, s := range c.Set {
			seen[s] = true
		}
		if len(facts.Disks) > 1 {
			seen["several disks"] = true
		}
		if facts.Kernel == "" || facts.CPUs == 0 {
			t.Errorf("%s: facts lack kernel/cpus: %+v", c.Name, facts)
		}
		sysfs, _ := c.Sysfs()
		for _, d := range facts.Disks {
			for _, line := range sysfs {
				attr, v, _ := strings.Cut(line, " ")
				got := ""
				switch attr {
				case "queue/scheduler":
					got = d.Scheduler
				case "queue/nr_requests":
					got = itoa(d.NrRequests)
				case "device/queue_depth":
					got = itoa(d.QueueDepth)
				default:
					continue
				}
				if got != v {
					t.Errorf("%s: disk %s %s = %s in the guest, case asks %s", c.Name, d.Name, attr, got, v)
				}
			}
		}
		for _, j := range fj.Jobs {
			if cpu := j.UsrCPU + j.SysCPU; cpu > 80 && !c.CPUBound {
				t.Errorf("%s: job %s used %.0f%% CPU in the guest: CPU-bound, not device-bound", c.Name, j.JobName, cpu)
			}
		}
		if math.IsNaN(facts.Seconds) || facts.Seconds <= 0 {
			t.Errorf("%s: facts.Seconds %v", c.Name, facts.Seconds)
		}
	}
	for _, want := range []string{"scsi_debug", "null_blk", "host_max_queue", "max_luns", "shared_tags",
		"queue/scheduler=none", "queue/scheduler=mq-deadline", "device/queue_depth=15", "queue/nr_requests=56", "several disks"} {
		if !seen[want] {
			t.Errorf("reference set lacks %s", want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRefreshKnownMisses rewrites the model and kernel values of every known miss in
// configs.json (case rows and effect rows) with the current figures (opt-in: BLKMQ_ORACLE_REFRESH_MISSES=1),
// keeping the mechanisms; run it after a model change that moves a missed row.
func TestRefreshKnownMisses(t *testing.T) {
	if os.Getenv("BLKMQ_ORACLE_REFRESH_MISSES") != "1" {
		t.Skip("set BLKMQ_ORACLE_REFRESH_MISSES=1 to rewrite the known-miss values")
	}
	path := referenceIndexPath()
	ix := loadReferenceIndex(t)
	// With BLKMQ_ORACLE_RECONCILE=1 it also drops the misses that now pass and records
	// the rows that now fail, with the mechanism of a sibling miss of the same case or
	// effect, else BLKMQ_ORACLE_MISS_NOTE: review the diff before committing it.
	reconcile := os.Getenv("BLKMQ_ORACLE_RECONCILE") == "1"
	note := os.Getenv("BLKMQ_ORACLE_MISS_NOTE")
	if reconcile && note == "" {
		t.Fatal("BLKMQ_ORACLE_RECONCILE=1 needs BLKMQ_ORACLE_MISS_NOTE: the mechanism to record for a new miss with no sibling")
	}
	for i := range ix.Cases {
		c := &ix.Cases[i]
		if len(c.KnownMisses) == 0 && !reconcile {
			continue
		}
		cmp, _, err := ix.CompareReference(c, ModelOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for k := range c.KnownMisses {
			km := &c.KnownMisses[k]
			for _, r := range cmp.Rows {
				if r.Key == km.Row {
					km.Model, km.Kernel = round4(r.Model), round4(r.Kernel)
				}
			}
		}
		if reconcile {
			var keep []KnownMiss
			for _, km := range c.KnownMisses {
				if r, ok := findRow(cmp.Rows, km.Row); ok && (r.Tol == 0 || !r.Pass) {
					keep = append(keep, km)
				}
			}
			for _, r := range cmp.Rows {
				if r.Tol != 0 && !r.Pass && r.KnownMiss == "" {
					keep = append(keep, KnownMiss{Row: r.Key, Model: round4(r.Model), Kernel: round4(r.Kernel),
						Mechanism: siblingMechanism(c.KnownMisses, note)})
				}
			}
			c.KnownMisses = keep
		}
	}
	for i := range ix.Effects {
		e := &ix.Effects[i]
		if len(e.KnownMisses) == 0 && !reconcile {
			continue
		}
		ec, err := ix.CompareEffect(e, ModelOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for k := range e.KnownMisses {
			km := &e.KnownMisses[k]
			for _, r := range ec.Rows {
				if r.Key == km.Row {
					km.Model, km.Kernel = round4(r.Model), round4(r.Kernel)
				}
			}
		}
		if reconcile {
			var keep []KnownMiss
			for _, km := range e.KnownMisses {
				for _, r := range ec.Rows {
					if r.Key == km.Row && (!r.Checked || !r.Pass) {
						keep = append(keep, km)
					}
				}
			}
			for _, r := range ec.Rows {
				if r.Checked && !r.Pass && r.KnownMiss == "" {
					keep = append(keep, KnownMiss{Row: r.Key, Model: round4(r.Model), Kernel: round4(r.Kernel),
						Mechanism: siblingMechanism(e.KnownMisses, note)})
				}
			}
			e.KnownMisses = keep
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ix); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// siblingMechanism returns the mechanism recorded for another miss of the same case or
// effect (the first one), else note.
func siblingMechanism(misses []KnownMiss, note string) string {
	for _, km := range misses {
		if km.Mechanism != "" {
			return km.Mechanism
		}
	}
	return note
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// TestDumpReference writes every case's comparison and every effect as JSON to
// $BLKMQ_ORACLE_DUMP (opt-in): the input of the known-miss bookkeeping. With
// BLKMQ_ORACLE_TTWU=1 the model runs with dispatch.Timing.KblockdTTWU
// (ModelOptions.KblockdTTWU), with BLKMQ_ORACLE_PREEMPT=0 without
// dispatch.Timing.IRQPreempt (ModelOptions.IRQPreemptOff; DefaultIRQPreempt); BLKMQ_ORACLE_POW=0 turns
// the ProcessOneWork rule off (dispatch.Timing.NoProcessOneWork), BLKMQ_ORACLE_WRITEPLUG=0
// blkdev_write_iter's plug (ModelOptions.NoBlkdevWriteIterPlug), BLKMQ_ORACLE_TICK=1
// and BLKMQ_ORACLE_BALANCE=1 switch on CheckPreemptTick and RebalanceDomains,
// BLKMQ_ORACLE_WORKERBALANCE=1 Placement.WorkerIdleBalance,
// BLKMQ_ORACLE_IOWQSYSCALL=1 SubmitTiming.IOWQSubmitWorkSyscall (old rule),
// BLKMQ_ORACLE_FORKIDLEST=1 Placement.ForkIdlestGroup, BLKMQ_ORACLE_NOHZKICK=1
// Placement.NohzKickNrRunning, BLKMQ_ORACLE_KWTASKS=1 Placement.KworkerTasks,
// BLKMQ_ORACLE_FIOPARENT=1 Placement.FioParent (ModelOptions.FioParent),
// BLKMQ_ORACLE_SERIALWAKE=1 Timing.RunHwQueuesSerialWake (ModelOptions.RunHwQueuesSerialWake),
// BLKMQ_ORACLE_HOSTCORES=1 CPUModel.HostCores from the set's harness string
// (ModelOptions.HostCores, Index.HostCores: the vCPUs share the host's cores).
// DefaultWake's emulation switches: BLKMQ_ORACLE_TICKREFILL=0 and BLKMQ_ORACLE_DRAIN=0
// leave out EmulationOptions.TickSwitchRefill and DrainSwitch, BLKMQ_ORACLE_TLBWS (off,
// on or a duration) sets TLBWorkingSet, BLKMQ_ORACLE_TLBHOST=1 (or a duration) the
// opt-in TLBHostRefill. Also: BLKMQ_ORACLE_IOSCHED=1 GetTagIOScheduleReturn,
// BLKMQ_ORACLE_RUNQWAIT=1 GetTagRunQueueWait, BLKMQ_ORACLE_KEEPCPU=0 IOWQWorkerYields,
// BLKMQ_ORACLE_PLACE_ENTITY=0 NoPlaceEntityCredit, BLKMQ_ORACLE_DD_MIN_SHALLOW=async
// DeadlineMinShallowAsyncDepth, BLKMQ_ORACLE_DD_NEXT_RQ=clear DeadlineMoveClearsNextRq
// (all ModelOptions); BLKMQ_ORACLE_WAKE, _DATACOPY, _MMSWITCH, _DIOPAGE, _CYCLE, _SEED
// and _DUMP_CASES take values described where they are read below.
func TestDumpReference(t *testing.T) {
	path := os.Getenv("BLKMQ_ORACLE_DUMP")
	if path == "" {
		t.Skip("set BLKMQ_ORACLE_DUMP=FILE to dump the comparisons")
	}
	ix := sharedReferenceIndex(t)
	o := ModelOptions{Seed: 1}
	// BLKMQ_ORACLE_SEED: the model's seed (default 1), to see which rows and effect
	// signs a seed alone flips
	if v := os.Getenv("BLKMQ_ORACLE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			t.Fatalf("BLKMQ_ORACLE_SEED %q: allowed: an integer >= 1", v)
		}
		o.Seed = n
	}
	var err error
	if o.Wake, err = dumpWake(os.Getenv("BLKMQ_ORACLE_WAKE")); err != nil {
		t.Fatal(err)
	}
	o.WakeOff = o.Wake == (stack.EmulationOptions{})
	if os.Getenv("BLKMQ_ORACLE_WAKE") != "" && !o.WakeOff && o.Wake.WakeSplit {
		// the net slowdown nets out the comparison's own wake charging
		w := o.Wake
		ix.netWake = &w
	}
	if err := dumpDataCopy(os.Getenv("BLKMQ_ORACLE_DATACOPY"), os.Getenv("BLKMQ_ORACLE_MMSWITCH"), &o.Wake); err != nil {
		t.Fatal(err)
	}
	// BLKMQ_ORACLE_DIOPAGE: "" or off (none), on (stack.DefaultDIOPage) or a
	// native-equivalent duration per page
	switch v := os.Getenv("BLKMQ_ORACLE_DIOPAGE"); v {
	case "", "off":
	case "on":
		o.Wake.DIOPage = stack.DefaultDIOPage
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Millisecond {
			t.Fatalf("BLKMQ_ORACLE_DIOPAGE %q: allowed: off, on or a duration in (0, 1ms]", v)
		}
		o.Wake.DIOPage = sim.Time(d.Nanoseconds())
	}
	// BLKMQ_ORACLE_TLBWS: "" (DefaultWake's), off (none: a constant MMSwitch per
	// process switch, the rule before round 9), on (stack.DefaultTLBWorkingSet) or a
	// native-equivalent duration (stack.EmulationOptions.TLBWorkingSet)
	switch v := os.Getenv("BLKMQ_ORACLE_TLBWS"); v {
	case "":
	case "off":
		o.Wake.TLBWorkingSet = 0
	case "on":
		o.Wake.TLBWorkingSet = stack.DefaultTLBWorkingSet
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Millisecond {
			t.Fatalf("BLKMQ_ORACLE_TLBWS %q: allowed: off, on or a duration in (0, 1ms]", v)
		}
		o.Wake.TLBWorkingSet = sim.Time(d.Nanoseconds())
	}
	// BLKMQ_ORACLE_TLBHOST: "" or 0 (off), 1 (stack.DefaultTLBHostRefill) or a
	// host-time duration (stack.EmulationOptions.TLBHostRefill)
	switch v := os.Getenv("BLKMQ_ORACLE_TLBHOST"); v {
	case "", "0":
	case "1":
		o.Wake.TLBHostRefill = stack.DefaultTLBHostRefill
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Millisecond {
			t.Fatalf("BLKMQ_ORACLE_TLBHOST %q: allowed: 0, 1 or a duration in (0, 1ms]", v)
		}
		o.Wake.TLBHostRefill = sim.Time(d.Nanoseconds())
	}
	// BLKMQ_ORACLE_TICKREFILL: "" or 1 (DefaultWake's), 0 = without
	// stack.EmulationOptions.TickSwitchRefill (the tick's process switches between
	// CPU-bound fio processes, stack/tickrefill.go; the model before round 12)
	switch v := os.Getenv("BLKMQ_ORACLE_TICKREFILL"); v {
	case "", "1":
	case "0":
		o.Wake.TickSwitchRefill = false
	default:
		t.Fatalf("BLKMQ_ORACLE_TICKREFILL %q: allowed: 0 or 1", v)
	}
	// BLKMQ_ORACLE_DRAIN: "" or 1 (DefaultWake's), 0 = without
	// stack.EmulationOptions.DrainSwitch (the switches of fio processes that drain
	// their completions within their turn, stack/tickrefill.go; the model before
	// round 12's tlbhost12)
	switch v := os.Getenv("BLKMQ_ORACLE_DRAIN"); v {
	case "", "1":
	case "0":
		o.Wake.DrainSwitch = false
	default:
		t.Fatalf("BLKMQ_ORACLE_DRAIN %q: allowed: 0 or 1", v)
	}
	// BLKMQ_ORACLE_REFILLGROWS: "" or 1 (DefaultWake's), 0 = without
	// stack.EmulationOptions.TLBRefillGrows (the refill after a tick or drain switch
	// grows with the turn's commands, stack/tlbrefill.go; the model before round 12's
	// refill12)
	switch v := os.Getenv("BLKMQ_ORACLE_REFILLGROWS"); v {
	case "", "1":
	case "0":
		o.Wake.TLBRefillGrows = false
	default:
		t.Fatalf("BLKMQ_ORACLE_REFILLGROWS %q: allowed: 0 or 1", v)
	}
	// BLKMQ_ORACLE_WAKENOPREEMPT: "" or 0 (DefaultWake's: off), 1 = with
	// stack.EmulationOptions.WakeupNoPreempt (a woken reader waits for the running
	// process to sleep; the switch is charged at that sleep, stack/waketurn.go)
	switch v := os.Getenv("BLKMQ_ORACLE_WAKENOPREEMPT"); v {
	case "", "0":
	case "1":
		o.Wake.WakeupNoPreempt = true
	default:
		t.Fatalf("BLKMQ_ORACLE_WAKENOPREEMPT %q: allowed: 0 or 1", v)
	}
	// BLKMQ_ORACLE_REAPPREEMPT: "" or 0 (off), 1 = with
	// stack.SubmitTiming.WakeupPreemptReap (ModelOptions.WakeupPreemptReap)
	switch v := os.Getenv("BLKMQ_ORACLE_REAPPREEMPT"); v {
	case "", "0":
	case "1":
		o.WakeupPreemptReap = true
	default:
		t.Fatalf("BLKMQ_ORACLE_REAPPREEMPT %q: allowed: 0 or 1", v)
	}
	// BLKMQ_ORACLE_DRYTURN: "" or 0 (off), 1 = with stack.EmulationOptions.DryTurn
	// (needs BLKMQ_ORACLE_WAKENOPREEMPT=1: a reader's turn also ends when it would
	// have no completion ready, stack/waketurn.go)
	switch v := os.Getenv("BLKMQ_ORACLE_DRYTURN"); v {
	case "", "0":
	case "1":
		o.Wake.DryTurn = true
	default:
		t.Fatalf("BLKMQ_ORACLE_DRYTURN %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_TTWU"); v {
	case "", "0":
	case "1":
		o.KblockdTTWU = true
	default:
		t.Fatalf("BLKMQ_ORACLE_TTWU %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_PREEMPT"); v {
	case "", "1":
	case "0":
		o.IRQPreemptOff = true
	default:
		t.Fatalf("BLKMQ_ORACLE_PREEMPT %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_IOSCHED"); v {
	case "", "0":
	case "1":
		o.GetTagIOScheduleReturn = true
	default:
		t.Fatalf("BLKMQ_ORACLE_IOSCHED %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_POW"); v {
	case "", "1":
	case "0":
		o.NoProcessOneWork = true
	default:
		t.Fatalf("BLKMQ_ORACLE_POW %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_KEEPCPU"); v {
	case "", "1":
	case "0":
		o.IOWQWorkerYields = true
	default:
		t.Fatalf("BLKMQ_ORACLE_KEEPCPU %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_WRITEPLUG"); v {
	case "", "1":
	case "0":
		o.NoBlkdevWriteIterPlug = true
	default:
		t.Fatalf("BLKMQ_ORACLE_WRITEPLUG %q: allowed: 0 or 1", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_PLACE_ENTITY"); v {
	case "", "1":
	case "0":
		o.NoPlaceEntityCredit = true
	default:
		t.Fatalf("BLKMQ_ORACLE_PLACE_ENTITY %q: allowed: 0 or 1", v)
	}
	// BLKMQ_ORACLE_DD_MIN_SHALLOW: "" or one (39823b47bbd4: min_shallow_depth 1), async
	// (dispatch.Options.DeadlineMinShallowAsyncDepth)
	switch v := os.Getenv("BLKMQ_ORACLE_DD_MIN_SHALLOW"); v {
	case "", "one":
	case "async":
		o.DeadlineMinShallowAsyncDepth = true
	default:
		t.Fatalf("BLKMQ_ORACLE_DD_MIN_SHALLOW %q: allowed: one or async", v)
	}
	switch v := os.Getenv("BLKMQ_ORACLE_DD_NEXT_RQ"); v {
	case "", "keep":
	case "clear":
		o.DeadlineMoveClearsNextRq = true
	default:
		t.Fatalf("BLKMQ_ORACLE_DD_NEXT_RQ %q: allowed: keep or clear", v)
	}
	// BLKMQ_ORACLE_CYCLE: "" or 1 (the driver's calibrated per-cycle latency
	// outside clat, Index.CycleOverheadWith: the default), 0 (none: the comparison
	// before round 10) or a duration
	switch v := os.Getenv("BLKMQ_ORACLE_CYCLE"); v {
	case "", "1":
	case "0":
		o.NoCycleOverhead = true
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 10*time.Millisecond {
			t.Fatalf("BLKMQ_ORACLE_CYCLE %q: allowed: 0, 1 or a duration in (0, 10ms]", v)
		}
		o.ReapSubmitDelay = d
	}
	for _, sw := range []struct {
		env string
		on  *bool
	}{{"BLKMQ_ORACLE_TICK", &o.CheckPreemptTick}, {"BLKMQ_ORACLE_BALANCE", &o.RebalanceDomains}, {"BLKMQ_ORACLE_FORKIDLEST", &o.ForkIdlestGroup}, {"BLKMQ_ORACLE_NOHZKICK", &o.NohzKickNrRunning}, {"BLKMQ_ORACLE_KWTASKS", &o.KworkerTasks}, {"BLKMQ_ORACLE_WORKERBALANCE", &o.WorkerIdleBalance}, {"BLKMQ_ORACLE_IOWQSYSCALL", &o.IOWQSubmitWorkSyscall}, {"BLKMQ_ORACLE_RUNQWAIT", &o.GetTagRunQueueWait}, {"BLKMQ_ORACLE_FIOPARENT", &o.FioParent}, {"BLKMQ_ORACLE_SERIALWAKE", &o.RunHwQueuesSerialWake}} {
		switch v := os.Getenv(sw.env); v {
		case "", "0":
		case "1":
			*sw.on = true
		default:
			t.Fatalf("%s %q: allowed: 0 or 1", sw.env, v)
		}
	}
	// BLKMQ_ORACLE_HOSTCORES=1: ModelOptions.HostCores from the set's harness string
	switch v := os.Getenv("BLKMQ_ORACLE_HOSTCORES"); v {
	case "", "0":
	case "1":
		if o.HostCores = ix.HostCores(); o.HostCores == 0 {
			t.Fatalf("BLKMQ_ORACLE_HOSTCORES: the harness string names no host cores")
		}
	default:
		t.Fatalf("BLKMQ_ORACLE_HOSTCORES %q: allowed: 0 or 1", v)
	}
	var out struct {
		Cases   []*Comparison       `json:"cases"`
		Effects []*EffectComparison `json:"effects"`
	}
	// BLKMQ_ORACLE_DUMP_CASES (a regular expression over case names) narrows the
	// dump to those cases and the effects between two of them, for sweeps
	only := regexp.MustCompile(os.Getenv("BLKMQ_ORACLE_DUMP_CASES"))
	for i := range ix.Cases {
		if !only.MatchString(ix.Cases[i].Name) {
			continue
		}
		cmp, _, err := ix.cachedCompare(&ix.Cases[i], o)
		if err != nil {
			t.Fatal(err)
		}
		out.Cases = append(out.Cases, cmp)
	}
	for i := range ix.Effects {
		if e := &ix.Effects[i]; !only.MatchString(e.A) || !only.MatchString(e.B) {
			continue
		}
		ec, err := ix.CompareEffect(&ix.Effects[i], o)
		if err != nil {
			t.Fatal(err)
		}
		out.Effects = append(out.Effects, ec)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dumpWake reads $BLKMQ_ORACLE_WAKE for TestDumpReference: "" (DefaultWake), off
// (the round-4 model), split (EmulationOptions.WakeSplit alone), issue (IssueAtReturn
// alone), on (both, without ReadEventsAfterWork: DefaultWake before round 9), or a
// native switch cost such as 1500ns (DefaultWake with it).
func dumpWake(s string) (stack.EmulationOptions, error) {
	switch s {
	case "":
		return DefaultWake, nil
	case "off":
		return stack.EmulationOptions{}, nil
	case "split":
		return stack.EmulationOptions{WakeSplit: true}, nil
	case "issue":
		return stack.EmulationOptions{IssueAtReturn: true}, nil
	case "on":
		return stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > time.Millisecond {
		return stack.EmulationOptions{}, fmt.Errorf("BLKMQ_ORACLE_WAKE %q: allowed: off, split, issue, on, or a duration in [0, 1ms]", s)
	}
	o := DefaultWake
	o.Switch = sim.Time(d.Nanoseconds())
	return o, nil
}

// dumpDataCopy reads $BLKMQ_ORACLE_DATACOPY ("" or off: none, the default; on:
// stack.DefaultDataCopy and DefaultDataCopyCmd; or "PERKIB,PERCMD" native-equivalent
// durations such as 20ns,300ns) and $BLKMQ_ORACLE_MMSWITCH ("" the default, off = NoMMSwitch, or a
// duration) into o, for sweeps of TestDumpReference.
func dumpDataCopy(dc, mm string, o *stack.EmulationOptions) error {
	dur := func(s, what string) (sim.Time, error) {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > time.Millisecond {
			return 0, fmt.Errorf("%s %q: allowed: off or a duration in (0, 1ms]", what, s)
		}
		return sim.Time(d.Nanoseconds()), nil
	}
	switch dc {
	case "", "off":
	case "on":
		o.DataCopy, o.DataCopyCmd = stack.DefaultDataCopy, stack.DefaultDataCopyCmd
	default:
		k, c, ok := strings.Cut(dc, ",")
		if !ok {
			return fmt.Errorf("BLKMQ_ORACLE_DATACOPY %q: allowed: off, on or PERKIB,PERCMD (durations)", dc)
		}
		var err error
		if o.DataCopy, err = dur(k, "BLKMQ_ORACLE_DATACOPY per KiB"); err != nil {
			return err
		}
		if o.DataCopyCmd, err = dur(c, "BLKMQ_ORACLE_DATACOPY per command"); err != nil {
			return err
		}
	}
	switch mm {
	case "":
	case "off":
		o.NoMMSwitch = true
	default:
		var err error
		if o.MMSwitch, err = dur(mm, "BLKMQ_ORACLE_MMSWITCH"); err != nil {
			return err
		}
	}
	return nil
}

// findRow returns the comparison row named key.
func findRow(rows []Row, key string) (Row, bool) {
	for _, r := range rows {
		if r.Key == key {
			return r, true
		}
	}
	return Row{}, false
}
