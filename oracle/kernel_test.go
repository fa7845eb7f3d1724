package oracle

import (
	"context"
	"errors"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestKernelReference reruns the kernel side of every reference case (opt-in:
// BLKMQ_ORACLE=1; about 15–20 s per case under TCG) and checks the fresh figures
// against the committed ones (IOPS and mean clat within 10 %: run-to-run noise is
// 1–3 %). With BLKMQ_ORACLE_UPDATE=1 it rewrites the committed results instead.
// BLKMQ_ORACLE_CASE=RE runs the cases whose whole name matches the regular
// expression RE; with BLKMQ_ORACLE_UPDATE=1, BLKMQ_ORACLE_RUNS=N runs each case N
// times and saves run 2..N as repeats (Index.Reruns). As root the VM runs at SCHED_FIFO priority
// 10 (see Harness.RTPriority), as the committed results were measured. It skips when the harness is absent.
func TestKernelReference(t *testing.T) {
	if os.Getenv("BLKMQ_ORACLE") != "1" {
		t.Skip("set BLKMQ_ORACLE=1 to boot the kernel oracle (slow)")
	}
	ix := loadReferenceIndex(t)
	// the guest must run the kernel the references were measured on: a guest
	// built from stale apt lists (6.1.0-48 against 6.1.0-57) is a failure, not a
	// skip, and is never recorded
	h := &Harness{Kernel: ix.Release()}
	if os.Geteuid() == 0 {
		h.RTPriority = 10
	}
	if testing.Verbose() {
		h.Log = os.Stderr
	}
	if err := h.Available(); errors.Is(err, ErrWrongGuest) {
		t.Fatal(err)
	} else if err != nil {
		t.Skipf("kernel oracle unavailable: %v", err)
	}
	update := os.Getenv("BLKMQ_ORACLE_UPDATE") == "1"
	only, err := regexp.Compile("^(?:" + os.Getenv("BLKMQ_ORACLE_CASE") + ")$")
	if err != nil {
		t.Fatalf("BLKMQ_ORACLE_CASE: %v", err)
	}
	runs := 1
	if s := os.Getenv("BLKMQ_ORACLE_RUNS"); s != "" {
		if runs, err = strconv.Atoi(s); err != nil || runs < 1 || runs > 9 {
			t.Fatalf("BLKMQ_ORACLE_RUNS=%s: allowed: an integer in [1, 9]", s)
		}
	}
	for i := range ix.Cases {
		c := &ix.Cases[i]
		if os.Getenv("BLKMQ_ORACLE_CASE") != "" && !only.MatchString(c.Name) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			if update {
				for run := 1; run <= runs; run++ {
					k, err := h.Run(context.Background(), c, ix.JobPath(c))
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("run %d wall %v", run, k.Wall)
					if err := ix.SaveReferenceRun(c, k, run); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			k, err := h.Run(context.Background(), c, ix.JobPath(c))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("wall %v", k.Wall)
			fj, facts, err := ix.Reference(c)
			if err != nil {
				t.Fatal(err)
			}
			old, err := KernelFigures(fj, facts)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := KernelFigures(k.Fio, k.Facts)
			if err != nil {
				t.Fatal(err)
			}
			cmp := Compare(c.Name, old, fresh, nil)
			worst := Row{}
			for _, r := range cmp.Rows {
				if r.Tol > 0 && r.Metric != "merge_fraction" && math.Abs(r.RelErr) > math.Abs(worst.RelErr) {
					worst = r
				}
				if r.Tol > 0 && r.Metric != "merge_fraction" && !(math.Abs(r.RelErr) <= 0.10) {
					t.Errorf("%s: committed %.4g, now %.4g (%+.1f%%): kernel result not reproducible within 10%%",
						r.Key, r.Kernel, r.Model, 100*r.RelErr)
				}
			}
			t.Logf("largest change from the committed figures: %s %+.1f%%", worst.Key, 100*worst.RelErr)
		})
	}
}

func loadReferenceIndex(t *testing.T) *Index {
	t.Helper()
	ix, err := LoadIndex(referenceIndexPath())
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// referenceIndexPath is the index the reference tests read and write:
// testdata/kernel/configs.json, or BLKMQ_ORACLE_INDEX (a path relative to this
// package's directory, e.g. ../testdata/kernel/hosts/2026-12-03/configs.json) to record,
// dump or refresh the known misses of a host-transfer set.
func referenceIndexPath() string {
	if p := os.Getenv("BLKMQ_ORACLE_INDEX"); p != "" {
		return p
	}
	return "../testdata/kernel/configs.json"
}
