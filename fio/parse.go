package fio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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

// rawOption is one key[=value] as written, with where it was written.
type rawOption struct {
	key, value string
	file       string
	line       int
}

// section is one [name] block (or one --name= group of arguments).
type section struct {
	name   string
	global bool
	file   string
	line   int
	opts   []rawOption
}

// ParseFile reads the fio job file at path and returns its job instances;
// see [Parse]. Errors name the path.
func ParseFile(path string) ([]Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fio: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads an fio job file from r and returns one Spec per job instance,
// in file order, numjobs clones consecutively. name is used in errors.
//
// The format is fio's (init.c, parse_jobs_ini): [section] headers; key=value
// or bare key options; lines starting with '#' or ';' are comments. A
// [global] section sets defaults for the jobs after it; a later [global]
// section adds to them for the jobs after it only. Errors are [*ParseError]:
// unknown option, bad or out-of-range value, option outside any section,
// malformed header, no job section, more than [MaxJobs] instances, a job file
// larger than [MaxJobFileBytes].
func Parse(r io.Reader, name string) ([]Spec, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJobFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fio: %s: %w", name, err)
	}
	if len(data) > MaxJobFileBytes {
		return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf("job file larger than %d bytes", MaxJobFileBytes)}
	}
	secs, err := lexINI(string(data), name)
	if err != nil {
		return nil, err
	}
	return build(secs, name)
}

// lexINI splits a job file into sections of raw options.
func lexINI(text, file string) ([]section, error) {
	var secs []section
	text = strings.TrimPrefix(text, "\ufeff") // a UTF-8 byte order mark
	for i, line := range strings.Split(text, "\n") {
		lineNo := i + 1
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			if line[len(line)-1] != ']' {
				return nil, &ParseError{File: file, Line: lineNo, Err: fmt.Errorf("malformed section header %q; want [name]", line)}
			}
			name := strings.TrimSpace(line[1 : len(line)-1])
			if name == "" {
				return nil, &ParseError{File: file, Line: lineNo, Err: errors.New("empty section name")}
			}
			secs = append(secs, section{name: name, global: name == "global", file: file, line: lineNo})
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "" {
			return nil, &ParseError{File: file, Line: lineNo, Err: fmt.Errorf("missing option name in %q", line)}
		}
		if len(secs) == 0 {
			return nil, &ParseError{File: file, Line: lineNo, Key: key, Value: value, Err: errors.New("option outside any section; start the file with [global] or [jobname]")}
		}
		s := &secs[len(secs)-1]
		s.opts = append(s.opts, rawOption{key: key, value: value, file: file, line: lineNo})
	}
	return secs, nil
}

// build turns sections into job instances: global inheritance, numjobs
// expansion, group ids. As in fio, each job starts from a copy of the
// global state as it stands after the [global] sections above it (so each
// option is parsed once, however many jobs inherit it), then applies its own
// options.
func build(secs []section, file string) ([]Spec, error) {
	global := newJobBuilder(section{name: "global", file: file})
	var specs []Spec
	groupID, prevGroupJobs := 0, 0
	for _, sec := range secs {
		if sec.global {
			if err := global.applyOptions(sec.opts, sec.name); err != nil {
				return nil, err
			}
			continue
		}
		s, err := buildJob(sec, global)
		if err != nil {
			return nil, err
		}
		if len(specs)+s.NumJobs > MaxJobs {
			return nil, &ParseError{File: sec.file, Line: sec.line, Section: sec.name,
				Err: fmt.Errorf("%d job instances exceed the limit of %d", len(specs)+s.NumJobs, MaxJobs)}
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
			specs = append(specs, c) // clones share the read-only slices
			prevGroupJobs++
		}
	}
	if len(specs) == 0 {
		return nil, &ParseError{File: file, Line: 1, Err: errors.New("no job sections; add a [jobname] section after [global]")}
	}
	return specs, nil
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}

// buildJob starts from a copy of the global state, applies the section's
// own options, then the cross-field checks and fixups.
func buildJob(sec section, global *jobBuilder) (Spec, error) {
	j := global.clone()
	j.spec.Name, j.spec.File, j.spec.Line = sec.name, sec.file, sec.line
	if err := j.applyOptions(sec.opts, sec.name); err != nil {
		return Spec{}, err
	}
	if err := j.check(sec); err != nil {
		return Spec{}, err
	}
	j.spec.fixup()
	j.spec.Target = target(&j.spec)
	return j.spec, nil
}

func newJobBuilder(sec section) *jobBuilder {
	j := &jobBuilder{spec: rawDefaults(sec.name), kbBase: 1024, where: map[string]rawOption{}}
	j.spec.File, j.spec.Line = sec.file, sec.line
	return j
}

// clone returns a deep copy of j.
func (j *jobBuilder) clone() *jobBuilder {
	c := &jobBuilder{spec: j.spec, kbBase: j.kbBase, where: make(map[string]rawOption, len(j.where))}
	c.spec.CPUsAllowed = cloneSlice(j.spec.CPUsAllowed)
	c.spec.PercentileList = cloneSlice(j.spec.PercentileList)
	c.spec.Ignored = cloneSlice(j.spec.Ignored)
	c.spec.Options = cloneSlice(j.spec.Options)
	for k, v := range j.where {
		c.where[k] = v
	}
	return c
}

// applyOptions sets every option of one section in order. The section's
// kb_base is applied first, as fio gives it priority over the size options
// it affects.
func (j *jobBuilder) applyOptions(all []rawOption, secName string) error {
	for _, o := range all {
		if o.key == "kb_base" && (o.value == "1000" || o.value == "1024") {
			j.kbBase = 1000
			if o.value == "1024" {
				j.kbBase = 1024
			}
		}
	}
	for _, o := range all {
		d, ok := options[o.key]
		if !ok {
			return optErr(o, secName, errors.New("unknown option"))
		}
		if err := d.set(j, o.value); err != nil {
			return optErr(o, secName, err)
		}
		j.where[d.name] = o
		j.spec.Options = append(j.spec.Options, Option{Key: o.key, Value: o.value, Global: secName == "global"})
	}
	return nil
}

func optErr(o rawOption, sec string, err error) error {
	return &ParseError{File: o.file, Line: o.line, Section: sec, Key: o.key, Value: o.value, Err: err}
}

// check performs the checks that involve more than one option.
func (j *jobBuilder) check(sec section) error {
	s := &j.spec
	at := func(key string, err error) error {
		if o, ok := j.where[key]; ok {
			return optErr(o, sec.name, err)
		}
		return &ParseError{File: sec.file, Line: sec.line, Section: sec.name, Key: key, Err: err}
	}
	if s.Size != 0 && s.Size < s.BlockSize {
		// init.c, fixup_options: "size too small".
		return at("size", fmt.Errorf("smaller than bs %d", s.BlockSize))
	}
	if s.TimeBased && s.Runtime == 0 {
		return at("time_based", errors.New("needs runtime > 0"))
	}
	return nil
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
