package stack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// The fio corpus (testdata/fio-corpus/*.fio) holds job files written the way
// people write them, each with the effect fio gives it stated in comment lines
// ";! CHECK ARGS" (fio reads them as comments). TestFioCorpus parses every file
// as fio would (environment from ";! env K=V" lines, $ncpus = 4), runs it on
// a 4-CPU machine with one null device of 100 µs latency (CPU costs off) and
// checks each line:
//
//	error SUBSTRING         the parse fails and the error contains SUBSTRING
//	errors N                the parse reports N errors at once
//	warn OPTION             OPTION is reported as accepted but not modelled
//	nowarn                  no option is reported
//	field JOB FIELD VALUE   fio.Spec field of instance JOB ("name" or "name.i")
//	iops JOB DIR WANT TOL%  IOPS of JOB's direction (read/write) within TOL
//	bw JOB DIR WANT TOL%    bandwidth in bytes/s
//	ios JOB DIR N           exact I/O count
//	bytes JOB DIR N         exact bytes
//	meanbs JOB DIR WANT TOL%
//	same JOB1 JOB2 DIR TOL% equal IOPS
//	below JOB1 JOB2 DIR F   IOPS of JOB1 at most F × JOB2's
//	end MIN MAX             the run ends in [MIN, MAX] seconds
//	group JOB N             GroupID
//	stopped JOB             the job stopped early with a reason
//	cpu JOB N               the job's thread ran on CPU N
//	alone JOB DIR TOL%      JOB's IOPS equal its IOPS when its section runs alone
//	entries N               fio's report has N job entries (group_reporting)
//	mix JOB PCT TOL%        the read share of JOB's I/Os in percent
const corpusDir = "../testdata/fio-corpus"

var checkRE = regexp.MustCompile(`^;!\s*(\w+)\s*(.*)$`)

type corpusFile struct {
	path   string
	text   string
	checks [][]string
	env    map[string]string
}

func loadCorpus(t *testing.T) []corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.fio"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cf := corpusFile{path: p, text: string(data), env: map[string]string{}}
		for _, l := range strings.Split(cf.text, "\n") {
			m := checkRE.FindStringSubmatch(strings.TrimSpace(l))
			if m == nil {
				continue
			}
			args := append([]string{m[1]}, strings.Fields(m[2])...)
			if m[1] == "env" {
				k, v, _ := strings.Cut(m[2], "=")
				cf.env[strings.TrimSpace(k)] = strings.TrimSpace(v)
				continue
			}
			if m[1] == "error" {
				args = []string{"error", strings.TrimSpace(m[2])}
			}
			cf.checks = append(cf.checks, args)
		}
		out = append(out, cf)
	}
	return out
}

func (cf *corpusFile) parse(sections ...string) ([]fio.Spec, error) {
	c := fio.ParseConfig{NCPUs: 4, MBMemory: 8192, Sections: sections,
		LookupEnv: func(k string) (string, bool) { v, ok := cf.env[k]; return v, ok }}
	return c.ParseFile(cf.path)
}

func TestFioCorpus(t *testing.T) {
	files := loadCorpus(t)
	if len(files) < 60 {
		t.Errorf("corpus has %d job files, want at least 60", len(files))
	}
	for _, cf := range files {
		t.Run(strings.TrimSuffix(filepath.Base(cf.path), ".fio"), func(t *testing.T) {
			t.Parallel()
			if len(cf.checks) == 0 {
				t.Fatalf("%s: no ;! checks", cf.path)
			}
			specs, perr := cf.parse()
			var res *stack.Result
			run := func() *stack.Result {
				if res == nil {
					if perr != nil {
						t.Fatalf("parse: %v", perr)
					}
					r, err := stack.Run(semConfig(100*sim.Microsecond), specs)
					if err != nil {
						t.Fatalf("run: %v", err)
					}
					res = r
				}
				return res
			}
			for _, c := range cf.checks {
				if err := corpusCheck(t, &cf, c, specs, perr, run); err != nil {
					t.Errorf("%s: ;! %s: %v", filepath.Base(cf.path), strings.Join(c, " "), err)
				}
			}
		})
	}
}

func findJob(res *stack.Result, name string) (*stack.JobResult, error) {
	for i := range res.Jobs {
		j := &res.Jobs[i]
		if j.Spec.Instance() == name || j.Spec.Name == name && j.Spec.Index == 0 {
			return j, nil
		}
	}
	return nil, fmt.Errorf("no job %q", name)
}

func findSpec(specs []fio.Spec, name string) (*fio.Spec, error) {
	for i := range specs {
		s := &specs[i]
		if s.Instance() == name || s.Name == name && s.Index == 0 {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no job %q", name)
}

func dirOf(s string) (fio.Dir, error) {
	switch s {
	case "read":
		return fio.DirRead, nil
	case "write":
		return fio.DirWrite, nil
	}
	return 0, fmt.Errorf("direction %q", s)
}

func pct(s string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	return v / 100
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return v
}

func corpusCheck(t *testing.T, cf *corpusFile, c []string, specs []fio.Spec, perr error, run func() *stack.Result) error {
	need := func(n int) {
		if len(c) != n+1 {
			t.Fatalf("check %q: want %d arguments", strings.Join(c, " "), n)
		}
	}
	dirStats := func(job, dir string) (*fio.DirStats, error) {
		j, err := findJob(run(), job)
		if err != nil {
			return nil, err
		}
		d, err := dirOf(dir)
		if err != nil {
			return nil, err
		}
		return &j.Fio.Dirs[d], nil
	}
	approx := func(what string, got, want, tol float64) error {
		if !within(got, want, tol) {
			return fmt.Errorf("%s %.4g, want %.4g ± %.1f %%", what, got, want, tol*100)
		}
		return nil
	}
	switch c[0] {
	case "error":
		if perr == nil {
			return fmt.Errorf("parse succeeded")
		}
		if !strings.Contains(perr.Error(), c[1]) {
			return fmt.Errorf("error %q", perr)
		}
	case "errors":
		need(1)
		if perr == nil {
			return fmt.Errorf("parse succeeded")
		}
		if n := len(strings.Split(perr.Error(), "\n")); n != int(num(c[1])) {
			return fmt.Errorf("%d errors: %v", n, perr)
		}
	case "warn":
		need(1)
		if perr != nil {
			return perr
		}
		for _, w := range fio.Warnings(specs) {
			if strings.Contains(w, ": "+c[1]+"=") || strings.Contains(w, ": "+c[1]+":") {
				return nil
			}
		}
		return fmt.Errorf("no warning for %s in %q", c[1], fio.Warnings(specs))
	case "nowarn":
		if ws := fio.Warnings(specs); len(ws) > 0 {
			return fmt.Errorf("warnings %q", ws)
		}
	case "field":
		if len(c) < 4 {
			t.Fatalf("check %q: want JOB FIELD VALUE", strings.Join(c, " "))
		}
		c = append(c[:3:3], strings.Join(c[3:], " "))
		if perr != nil {
			return perr
		}
		s, err := findSpec(specs, c[1])
		if err != nil {
			return err
		}
		f := reflect.ValueOf(*s).FieldByName(c[2])
		if !f.IsValid() {
			t.Fatalf("no Spec field %s", c[2])
		}
		if got := fmt.Sprint(f.Interface()); got != c[3] {
			return fmt.Errorf("%s = %s", c[2], got)
		}
	case "iops", "bw", "meanbs":
		need(4)
		d, err := dirStats(c[1], c[2])
		if err != nil {
			return err
		}
		got := d.IOPS
		if c[0] == "bw" {
			got = d.BW
		} else if c[0] == "meanbs" {
			got = float64(d.IOBytes) / float64(max(d.TotalIOs, 1))
		}
		return approx(c[0], got, num(c[3]), pct(c[4]))
	case "ios", "bytes":
		need(3)
		d, err := dirStats(c[1], c[2])
		if err != nil {
			return err
		}
		got := d.TotalIOs
		if c[0] == "bytes" {
			got = d.IOBytes
		}
		if got != int64(num(c[3])) {
			return fmt.Errorf("%s = %d", c[0], got)
		}
	case "same", "below":
		need(4)
		a, err := dirStats(c[1], c[3])
		if err != nil {
			return err
		}
		b, err := dirStats(c[2], c[3])
		if err != nil {
			return err
		}
		if c[0] == "same" {
			return approx("IOPS", a.IOPS, b.IOPS, pct(c[4]))
		}
		if a.IOPS > num(c[4])*b.IOPS {
			return fmt.Errorf("IOPS %.0f > %s × %.0f", a.IOPS, c[4], b.IOPS)
		}
	case "end":
		need(2)
		e := run().End.Seconds()
		if e < num(c[1]) || e > num(c[2]) {
			return fmt.Errorf("run ended at %.3f s", e)
		}
	case "group", "cpu":
		need(2)
		j, err := findJob(run(), c[1])
		if err != nil {
			return err
		}
		got := j.Spec.GroupID
		if c[0] == "cpu" {
			got = j.CPU
		}
		if got != int(num(c[2])) {
			return fmt.Errorf("%s = %d", c[0], got)
		}
	case "stopped":
		need(1)
		j, err := findJob(run(), c[1])
		if err != nil {
			return err
		}
		if j.Stopped == "" {
			return fmt.Errorf("not stopped early")
		}
	case "mix":
		need(3)
		r, err := dirStats(c[1], "read")
		if err != nil {
			return err
		}
		w, _ := dirStats(c[1], "write")
		return approx("read share %", 100*float64(r.TotalIOs)/float64(max(r.TotalIOs+w.TotalIOs, 1)), num(c[2]), pct(c[3]))
	case "entries":
		need(1)
		r := run()
		rs := make([]*fio.Result, len(r.Jobs))
		for i := range r.Jobs {
			rs[i] = r.Jobs[i].Fio
		}
		if n := len(fio.NewReport(rs).Jobs); n != int(num(c[1])) {
			return fmt.Errorf("%d entries", n)
		}
	case "alone":
		need(3)
		d, err := dirStats(c[1], c[2])
		if err != nil {
			return err
		}
		all, err := cf.parse()
		if err != nil {
			return err
		}
		var one []fio.Spec
		for _, s := range all {
			if s.Name == c[1] {
				s.Stonewall, s.WaitFor = false, ""
				one = append(one, s)
			}
		}
		r, err := stack.Run(semConfig(100*sim.Microsecond), one)
		if err != nil {
			return err
		}
		dir, _ := dirOf(c[2])
		return approx("IOPS vs alone", d.IOPS, r.Jobs[0].Fio.Dirs[dir].IOPS, pct(c[3]))
	case "device", "set", "cpus", "resolveerror", "lun", "setting", "commands", "fioios", "disk", "diskmatches", "util":
		// a dev-*.fio file: run on the machine it describes by setup's TestDeviceCorpus
	default:
		t.Fatalf("unknown check %q", c[0])
	}
	return nil
}

// TestFioCorpusCoversOptions: every option the parser accepts appears in some
// corpus file that checks it: a modelled option with an effect check, an
// option accepted but not modelled with a warn check, an ignored one in a file
// that checks it changes nothing, a rejected one with an error check.
func TestFioCorpusCoversOptions(t *testing.T) {
	files := loadCorpus(t)
	used := map[string]bool{}
	warned := map[string]bool{}
	optRE := regexp.MustCompile(`(?m)^\s*([a-z_0-9-]+)\s*(=|$|;|#)`)
	for _, cf := range files {
		for _, m := range optRE.FindAllStringSubmatch(cf.text, -1) {
			used[m[1]] = true
		}
		for _, c := range cf.checks {
			if c[0] == "warn" {
				warned[c[1]] = true
			}
		}
	}
	var missing []string
	for name, class := range fio.OptionNames() {
		switch {
		case class == fio.OptUnmodelled && !warned[name]:
			missing = append(missing, name+" (needs a warn check)")
		case !used[name]:
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d options not in the corpus: %s", len(missing), strings.Join(missing, ", "))
	}
}
