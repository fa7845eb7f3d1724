package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/stack"
)

// TestDeviceCorpus runs the device job files of the fio corpus
// (testdata/fio-corpus/dev-*.fio) on the machine their comment lines describe, as
// blkmq run does (Resolve, CheckTargets, SizeJobs, CheckFit, stack.Run with seed 1),
// and checks the effect each states. stack's TestFioCorpus accepts these lines and
// leaves them to this test. Machine lines:
//
//	;! device KIND k=v ...     a --device (repeatable)
//	;! set KEY=VALUE           a --set
//	;! cpus N                  --cpus
//
// Checks:
//
//	;! resolveerror SUBSTRING  resolving or fitting the jobs fails with SUBSTRING
//	;! lun JOB NAME            JOB's I/O goes to the LUN NAME
//	;! setting KEY VALUE       --explain shows KEY = VALUE (its first word)
//	;! commands LUN N          the device behind LUN accepted exactly N commands
//	;! fioios JOB DIR N        fio counted N I/Os of JOB in DIR (read, write)
//	;! disk LUN KEY N          fio's disk_util entry of LUN has KEY (its JSON key) = N
//	;! diskmatches LUN         disk_util ios and sectors equal the device's commands and bytes
//	;! util LUN MIN MAX        disk_util util in [MIN, MAX] percent
func TestDeviceCorpus(t *testing.T) {
	paths, err := filepath.Glob("../testdata/fio-corpus/dev-*.fio")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no dev-*.fio files")
	}
	lineRE := regexp.MustCompile(`^;!\s*(\w+)\s*(.*)$`)
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".fio"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var d Description
			var checks [][]string
			for _, l := range strings.Split(string(data), "\n") {
				m := lineRE.FindStringSubmatch(strings.TrimSpace(l))
				if m == nil {
					continue
				}
				switch m[1] {
				case "device":
					d.Devices = append(d.Devices, strings.TrimSpace(m[2]))
				case "set":
					d.Set = append(d.Set, strings.TrimSpace(m[2]))
				case "cpus":
					d.CPUs, _ = strconv.Atoi(strings.TrimSpace(m[2]))
				case "resolveerror":
					checks = append(checks, []string{m[1], strings.TrimSpace(m[2])})
				default:
					checks = append(checks, append([]string{m[1]}, strings.Fields(m[2])...))
				}
			}
			if len(checks) == 0 {
				t.Fatal("no checks")
			}
			cpus := d.CPUs
			if cpus == 0 {
				cpus = DefaultCPUs
			}
			pc := fio.ParseConfig{NCPUs: cpus, MBMemory: 8192, LookupEnv: func(string) (string, bool) { return "", false }}
			specs, err := pc.ParseFile(p)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			r, rerr := prepare(d, specs)
			var res *stack.Result
			run := func() *stack.Result {
				if rerr != nil {
					t.Fatalf("resolve: %v", rerr)
				}
				if res == nil {
					var err error
					if res, err = stack.Run(r.WithSeed(1, 0), specs); err != nil {
						t.Fatalf("run: %v", err)
					}
				}
				return res
			}
			for _, c := range checks {
				if err := deviceCheck(t, c, r, rerr, specs, run); err != nil {
					t.Errorf(";! %s: %v", strings.Join(c, " "), err)
				}
			}
		})
	}
}

// prepare resolves d and fits the jobs to it, as blkmq run does.
func prepare(d Description, specs []fio.Spec) (*Resolved, error) {
	r, err := d.Resolve()
	if err != nil {
		return nil, err
	}
	if err := r.CheckTargets(specs); err != nil {
		return r, err
	}
	r.SizeJobs(specs)
	return r, r.CheckFit(specs)
}

func lunOf(r *Resolved, name string) (int, error) {
	for i, n := range r.LUNs {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no LUN %q (have %v)", name, r.LUNs)
}

func deviceCheck(t *testing.T, c []string, r *Resolved, rerr error, specs []fio.Spec, run func() *stack.Result) error {
	need := func(n int) {
		if len(c) != n+1 {
			t.Fatalf("check %q: want %d arguments", strings.Join(c, " "), n)
		}
	}
	atoi := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("check %q: %v", strings.Join(c, " "), err)
		}
		return n
	}
	diskOf := func(name string) (fio.DiskUtil, int, error) {
		li, err := lunOf(r, name)
		if err != nil {
			return fio.DiskUtil{}, 0, err
		}
		return run().DiskUtil()[li], li, nil
	}
	switch c[0] {
	case "resolveerror":
		if rerr == nil {
			return fmt.Errorf("no error")
		}
		if !strings.Contains(rerr.Error(), c[1]) {
			return fmt.Errorf("error %q", rerr)
		}
	case "lun":
		need(2)
		if rerr != nil {
			return rerr
		}
		for i := range specs {
			if specs[i].Instance() == c[1] || specs[i].Name == c[1] && specs[i].Index == 0 {
				li := r.lunIndex(specs[i].Target)
				if li < 0 || r.LUNs[li] != c[2] {
					return fmt.Errorf("target %q is LUN %d of %v", specs[i].Target, li, r.LUNs)
				}
				return nil
			}
		}
		return fmt.Errorf("no job %q", c[1])
	case "setting":
		need(2)
		if rerr != nil {
			return rerr
		}
		for _, s := range r.Settings {
			if s.Key == c[1] {
				if v, _, _ := strings.Cut(s.Value, " "); v != c[2] {
					return fmt.Errorf("%s = %s", s.Key, s.Value)
				}
				return nil
			}
		}
		return fmt.Errorf("no setting %s", c[1])
	case "commands":
		need(2)
		li, err := lunOf(r, c[1])
		if err != nil {
			return err
		}
		if got := run().Queues[li].Dispatched; got != uint64(atoi(c[2])) {
			return fmt.Errorf("%d commands", got)
		}
	case "fioios":
		need(3)
		for _, j := range run().Jobs {
			if j.Spec.Instance() == c[1] || j.Spec.Name == c[1] && j.Spec.Index == 0 {
				dir := fio.DirRead
				if c[2] == "write" {
					dir = fio.DirWrite
				}
				if got := j.Fio.Dirs[dir].TotalIOs; got != atoi(c[3]) {
					return fmt.Errorf("%d I/Os", got)
				}
				return nil
			}
		}
		return fmt.Errorf("no job %q", c[1])
	case "disk":
		need(3)
		du, _, err := diskOf(c[1])
		if err != nil {
			return err
		}
		v := reflect.ValueOf(du)
		for i := range v.NumField() {
			if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == c[2] {
				if got := fmt.Sprint(v.Field(i).Interface()); got != c[3] {
					return fmt.Errorf("%s = %s", c[2], got)
				}
				return nil
			}
		}
		t.Fatalf("no disk_util key %q", c[2])
	case "diskmatches":
		need(1)
		du, li, err := diskOf(c[1])
		if err != nil {
			return err
		}
		q := run().Queues[li]
		if du.ReadIOs+du.WriteIOs != q.Dispatched || (du.ReadSectors+du.WriteSectors)*512 != q.DispatchedBytes {
			return fmt.Errorf("disk_util ios %d+%d, sectors %d+%d; device saw %d commands, %d bytes",
				du.ReadIOs, du.WriteIOs, du.ReadSectors, du.WriteSectors, q.Dispatched, q.DispatchedBytes)
		}
	case "util":
		need(3)
		du, _, err := diskOf(c[1])
		if err != nil {
			return err
		}
		if du.Util < float64(atoi(c[2])) || du.Util > float64(atoi(c[3])) {
			return fmt.Errorf("util %.2f", du.Util)
		}
	default:
		t.Fatalf("unknown check %q", c[0])
	}
	return nil
}
