package fio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// MaxJobFileBytes caps the size of a job file Parse reads.
const MaxJobFileBytes = 16 << 20

// ParseError reports a job file or command line that fio would reject or
// that the model cannot run. Error() reads like
//
//	fio: 000.fio:9: [read_hogs] iodepth=0: out of range [1, 65536]
//
// File is the name given to Parse ("<args>" for ParseArgs), Line the 1-based
// line (the 1-based argument index for ParseArgs), Section the job or
// "global", Key and Value the option as written ("" when the error is not
// about one option).
type ParseError struct {
	File    string
	Line    int
	Section string
	Key     string
	Value   string
	Err     error
}

// Error formats the error as described on [ParseError].
func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fio: %s:%d: ", e.File, e.Line)
	if e.Section != "" {
		fmt.Fprintf(&b, "[%s] ", clipEcho(e.Section))
	}
	if e.Key != "" {
		b.WriteString(clipEcho(e.Key))
		if e.Value != "" {
			b.WriteString("=" + clipEcho(e.Value))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *ParseError) Unwrap() error { return e.Err }

// rawOption is one option line as written (comments stripped), with where it
// was written; key and value are filled after expansion (see expand).
type rawOption struct {
	text       string
	key, value string
	file       string
	line       int
}

// section is one [name] block (or one --name= group of arguments).
type section struct {
	name   string
	global bool
	bad    bool // a malformed header: its options are checked, no job is made
	file   string
	line   int
	opts   []rawOption
}

// ParseFile reads the fio job file at path and returns its job instances;
// see [Parse]. Errors name the path.
func ParseFile(path string) ([]Spec, error) {
	var c ParseConfig
	return c.ParseFile(path)
}

// ParseFile is [ParseFile] with c's environment.
func (c *ParseConfig) ParseFile(path string) ([]Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fio: %w", err)
	}
	defer f.Close()
	return c.Parse(f, path)
}

// Parse reads an fio job file from r and returns one Spec per job instance,
// in file order, numjobs clones consecutively. name is used in errors and to
// resolve relative include files. It is [ParseConfig.Parse] with the zero
// ParseConfig (process environment, this machine's CPUs and memory).
func Parse(r io.Reader, name string) ([]Spec, error) {
	var c ParseConfig
	return c.Parse(r, name)
}

// Parse reads an fio job file the way fio 3.33 does (init.c,
// parse_jobs_ini; options.c, fio_options_parse):
//   - [section] headers; a section whose name starts with "global" sets
//     defaults for the jobs after it (a later one adds to them for the jobs
//     after it only);
//   - key=value or bare key options; a ';' or '#' anywhere in a line starts
//     a comment (fio cuts the line there, so values cannot contain them);
//   - "include FILE" reads FILE's options into the current section (a
//     relative name that does not exist is taken relative to the including
//     file); included files cannot start sections;
//   - ${VAR} expands from the environment (unset = empty); $ncpus,
//     $mb_memory and $pagesize expand to c's values, and a value with one of
//     them and + - * / is computed (fio pipes it through bc); a value in
//     parentheses is integer arithmetic with size suffixes ("(4k*256)"), or
//     time suffixes in a time option ("(2m+30s)");
//   - an option is at most fio's OPT_LEN_MAX (8192 bytes) as written and after
//     ${VAR} expansion; a fractional plain value ("0.2s", "1.5k"), which fio
//     truncates at the '.', is refused naming what fio would use;
//   - numbers are decimal with fio's suffixes, or 0x hex; integer options
//     take suffixes too ("iodepth=1k" is 1024).
//
// Every error of the file is reported, as one error joining
// [*ParseError]s (at most MaxErrors): unknown option, bad or out-of-range
// value, option outside any section, malformed header, no job section, more
// than [MaxJobs] instances, more than MaxSections sections or MaxOptions
// options, a job file larger than [MaxJobFileBytes], or a job file and the
// files it includes (each time it includes one) larger than that together. Options of [global]
// sections are parsed once and shared by the jobs that inherit them, so
// memory grows with the file, not with sections × global options.
func (c *ParseConfig) Parse(r io.Reader, name string) ([]Spec, error) {
	// read into a Builder (its String does not copy the file again), sized
	// up front when the reader knows its size, so growth does not copy it ~5 times
	var data strings.Builder
	if n := readerSize(r); n > 0 {
		data.Grow(int(min(n, MaxJobFileBytes+1)))
	}
	if _, err := io.Copy(&data, io.LimitReader(r, MaxJobFileBytes+1)); err != nil {
		return nil, fmt.Errorf("fio: %s: %w", name, err)
	}
	if data.Len() > MaxJobFileBytes {
		return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf("job file larger than %d bytes", MaxJobFileBytes)}
	}
	errs := &errList{}
	lx := &lexer{cfg: c, errs: errs, bytes: data.Len()}
	lx.lex(data.String(), name)
	return c.build(lx.secs, name, errs)
}

// readerSize is the bytes left in r when r knows them (a strings, bytes or
// file reader), else 0.
func readerSize(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

// build turns sections into job instances: global inheritance, numjobs
// expansion, group ids. As in fio, each job starts from the global state as
// it stands after the [global] sections above it (each option is parsed
// once, however many jobs inherit it; the jobs share the global options
// list), then applies its own options. Errors are collected in errs and
// returned together.
func (c *ParseConfig) build(secs []section, file string, errs *errList) ([]Spec, error) {
	global := newJobBuilder(section{name: "global", file: file}, c)
	var specs []Spec
	groupID, prevGroupJobs := 0, 0
	want := map[string]bool{}
	for _, n := range c.Sections {
		want[n] = false
	}
	for _, sec := range secs {
		if sec.global {
			global.applyOptions(sec.opts, sec.name, errs)
			global.globalOpts = global.spec.Options
			continue
		}
		if len(want) > 0 {
			if _, ok := want[sec.name]; !ok {
				continue
			}
			want[sec.name] = true
		}
		s, ok := buildJob(sec, global, errs)
		if !ok || sec.bad {
			continue
		}
		if len(specs)+s.NumJobs > MaxJobs {
			errs.add(&ParseError{File: sec.file, Line: sec.line, Section: sec.name,
				Err: fmt.Errorf("%d job instances exceed the limit of %d", len(specs)+s.NumJobs, MaxJobs)})
			break
		}
		// init.c, add_job: stonewall or new_group after a non-empty group
		// starts a new group; clones never do.
		if (s.Stonewall || s.NewGroup) && prevGroupJobs > 0 {
			groupID++
			prevGroupJobs = 0
		}
		for i := range s.NumJobs {
			c := s
			c.Index, c.Seq, c.GroupID = i, len(specs), groupID
			if i > 0 {
				c.Stonewall, c.NewGroup = false, false
			}
			c.splitCPUs()
			specs = append(specs, c) // clones share the read-only slices
			prevGroupJobs++
		}
	}
	for _, n := range c.Sections {
		if !want[n] {
			errs.add(&ParseError{File: file, Line: 1, Err: fmt.Errorf("--section %s: no job section of that name", n)})
		}
	}
	checkWaitFor(specs, errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, &ParseError{File: file, Line: 1, Err: errors.New("no job sections; add a [jobname] section after [global]")}
	}
	return specs, nil
}

// checkWaitFor checks that each wait_for= names a job defined before it (fio
// init.c: "waitee ... not found or does not start before").
func checkWaitFor(specs []Spec, errs *errList) {
	seen := map[string]bool{}
	for i := range specs {
		s := &specs[i]
		if s.WaitFor != "" && s.Index == 0 && !seen[s.WaitFor] {
			errs.add(&ParseError{File: s.File, Line: s.Line, Section: s.Name, Key: "wait_for", Value: s.WaitFor,
				Err: errors.New("names no job defined before this one")})
		}
		seen[s.Name] = true
	}
}

// splitCPUs applies cpus_allowed_policy=split: the instance keeps one CPU of
// its cpus_allowed set, the (Seq mod N)-th (backend.c thread_main →
// fio_cpus_split with thread_number - 1).
func (s *Spec) splitCPUs() {
	if s.CPUsAllowedPolicy == "split" && len(s.CPUsAllowed) > 1 {
		s.CPUsAllowed = []int{s.CPUsAllowed[s.Seq%len(s.CPUsAllowed)]}
	}
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}

// buildJob starts from the global state, applies the section's own options,
// then the cross-field checks and fixups. ok is false when an error was
// recorded.
func buildJob(sec section, global *jobBuilder, errs *errList) (Spec, bool) {
	n := len(errs.errs) + errs.dropped
	j := global.clone()
	j.spec.Name, j.spec.File, j.spec.Line = sec.name, sec.file, sec.line
	j.applyOptions(sec.opts, sec.name, errs)
	j.check(sec, errs)
	if len(errs.errs)+errs.dropped != n {
		return Spec{}, false
	}
	j.spec.fixup()
	j.spec.Target = target(&j.spec)
	return j.spec, true
}

func newJobBuilder(sec section, cfg *ParseConfig) *jobBuilder {
	j := &jobBuilder{spec: rawDefaults(sec.name), kbBase: 1024, where: map[string]rawOption{}, cfg: cfg}
	j.spec.File, j.spec.Line = sec.file, sec.line
	return j
}

// clone returns a copy of the global builder j for one job: the job's own
// option list starts empty and its global options share j's list.
func (j *jobBuilder) clone() *jobBuilder {
	c := &jobBuilder{spec: j.spec, kbBase: j.kbBase, where: make(map[string]rawOption, len(j.where)), cfg: j.cfg}
	c.spec.CPUsAllowed = cloneSlice(j.spec.CPUsAllowed)
	c.spec.PercentileList = cloneSlice(j.spec.PercentileList)
	c.spec.Ignored = cloneSlice(j.spec.Ignored)
	c.spec.Unmodelled = cloneSlice(j.spec.Unmodelled)
	c.spec.BSSplit = cloneSlice(j.spec.BSSplit)
	c.spec.GlobalOptions = j.globalOpts[:len(j.globalOpts):len(j.globalOpts)]
	c.spec.Options = nil
	for k, v := range j.where { // one entry per distinct option name: bounded
		c.where[k] = v
	}
	return c
}

// applyOptions sets every option of one section in order, recording each
// bad one in errs and going on. The section's kb_base is applied first, as
// fio gives it priority over the size options it affects.
func (j *jobBuilder) applyOptions(all []rawOption, secName string, errs *errList) {
	for i := range all {
		o := &all[i]
		text, err := expand(o.text, j.cfg, j.kbBase)
		if err != nil {
			text = o.text // the option as written, for the error
		}
		key, value, _ := strings.Cut(text, "=")
		o.key, o.value = strings.TrimSpace(key), strings.TrimSpace(value)
		if err != nil {
			errs.add(optErr(*o, secName, err))
			o.key = "" // reported
			continue
		}
		if o.key == "" {
			errs.add(&ParseError{File: o.file, Line: o.line, Section: secName, Err: fmt.Errorf("missing option name in %q", o.text)})
			continue
		}
		if o.key == "kb_base" && (o.value == "1000" || o.value == "1024") {
			j.kbBase = 1000
			if o.value == "1024" {
				j.kbBase = 1024
			}
		}
	}
	for _, o := range all {
		if o.key == "" {
			continue
		}
		d, ok := options[o.key]
		if !ok {
			if errs.full() {
				// only counted: skip the closest-option search, which costs
				// a scan of every option name per line
				errs.dropped++
				continue
			}
			errs.add(optErr(o, secName, unknownOption(o.key)))
			continue
		}
		j.pending = ""
		if err := checkFioBool(d.name, o.value); err != nil {
			errs.add(optErr(o, secName, err))
			continue
		}
		v, err := fioSplit(d.name, o.value)
		if err == nil {
			err = d.set(j, v)
		}
		if err != nil {
			errs.add(optErr(o, secName, j.cfg.unsetNote(o.text, err)))
			continue
		}
		j.where[d.name] = o
		switch {
		case d.note != "":
			j.note(d.name, o, d.note)
		case j.pending != "":
			j.note(d.name, o, j.pending)
		default:
			j.unnote(d.name)
		}
		j.spec.Options = append(j.spec.Options, Option{Key: o.key, Value: o.value, Global: secName == "global" || strings.HasPrefix(secName, "global")})
	}
}

// note records that option d (as written in o) is accepted but does not
// change what the model simulates, with why (once per option name).
func (j *jobBuilder) note(name string, o rawOption, why string) {
	for i, u := range j.spec.Unmodelled {
		if u.Option == name {
			j.spec.Unmodelled[i] = Unmodelled{Option: name, Value: o.value, File: o.file, Line: o.line, Why: why}
			return
		}
	}
	j.spec.Unmodelled = append(j.spec.Unmodelled, Unmodelled{Option: name, Value: o.value, File: o.file, Line: o.line, Why: why})
}

// unnote drops the note of an option set again to a modelled value.
func (j *jobBuilder) unnote(name string) {
	for i, u := range j.spec.Unmodelled {
		if u.Option == name {
			j.spec.Unmodelled = append(j.spec.Unmodelled[:i:i], j.spec.Unmodelled[i+1:]...)
			return
		}
	}
}

func optErr(o rawOption, sec string, err error) error {
	return &ParseError{File: o.file, Line: o.line, Section: sec, Key: o.key, Value: o.value, Err: err}
}

// check performs the checks that involve more than one option.
func (j *jobBuilder) check(sec section, errs *errList) {
	s := &j.spec
	at := func(key string, err error) {
		if o, ok := j.where[key]; ok {
			errs.add(optErr(o, sec.name, err))
			return
		}
		errs.add(&ParseError{File: sec.file, Line: sec.line, Section: sec.name, Key: key, Err: err})
	}
	if s.Size != 0 && s.Size < s.BlockSize {
		// init.c, fixup_options: "size too small".
		at("size", fmt.Errorf("smaller than bs %d", s.BlockSize))
	}
	if s.TimeBased && s.Runtime == 0 {
		at("time_based", errors.New("needs runtime > 0"))
	}
	if b, over := s.loopedBytesOver(); over {
		key := "size"
		if s.IOSize > 0 {
			key = "io_size"
		}
		at("loops", fmt.Errorf("%s %d bytes × loops %d is over %d bytes (4 EiB, the most a job transfers here); lower loops= or %s=", key, b, s.Loops, int64(maxLoopedBytes), key))
	}
	if s.SteadyState.Set && s.SteadyState.Dur != 0 && s.SteadyState.Dur < 2*time.Second {
		// steadystate.c needs at least two one-second samples; ss_dur=0 (fio's
		// default) disables the detection (SteadyState.Active)
		at("steadystate_duration", errors.New("steadystate= needs ss_dur 0 (detection off, the default) or at least 2 s"))
	}
}

// target picks the device a job drives (see Spec.Target).
func target(s *Spec) string {
	f := firstFilename(s.Filename)
	switch {
	case strings.HasPrefix(f, "/"):
		return f
	case s.Directory != "":
		return s.Directory
	case f != "":
		return f
	}
	return s.Name
}

// firstFilename returns the first of fio's ':'-separated file names ("\:"
// escapes a colon).
func firstFilename(list string) string {
	var b strings.Builder
	for i := 0; i < len(list); i++ {
		switch {
		case list[i] == '\\' && i+1 < len(list) && list[i+1] == ':':
			b.WriteByte(':')
			i++
		case list[i] == ':':
			return b.String()
		default:
			b.WriteByte(list[i])
		}
	}
	return b.String()
}
