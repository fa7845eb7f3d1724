package fio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Limits of one parse (a job file with its includes, or a command line).
const (
	// MaxSections caps the sections of one job file, [global] ones included.
	MaxSections = 2 * MaxJobs
	// MaxOptions caps the options of one job file (all sections together):
	// 131072, 32 per job at MaxJobs jobs. It bounds the parse's memory (about
	// 150 bytes per option kept); it was 1 << 20, where a 14 MB file of unknown
	// options made the parse peak at about 340 MB.
	MaxOptions = 1 << 17
	// MaxIncludeDepth caps nested include directives.
	MaxIncludeDepth = 8
	// MaxErrors is the most errors one parse reports; more are counted.
	MaxErrors = 50
	// optLenMax is fio's OPT_LEN_MAX (parse.h): the longest option, as read
	// from a job file line and after ${VAR} expansion.
	optLenMax = 8192
	// maxSectionName is fio's limit on a section name (init.c: "[%255[^\n]]").
	maxSectionName = 255
)

// ParseConfig holds what a parse takes from its surroundings: the
// environment for ${VAR}, fio's built-in keywords, include files and the
// --section selection. The zero value uses the process environment, this
// machine's CPU count and memory, a 4 KiB page and the file system.
type ParseConfig struct {
	// LookupEnv resolves ${VAR} (options.c fio_option_dup_subs: an unset
	// variable expands to nothing); nil = os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// NCPUs is $ncpus (fio: CPUs configured); 0 = runtime.NumCPU(). A caller
	// modelling a machine passes its CPU count.
	NCPUs int
	// MBMemory is $mb_memory (fio: physical memory in MiB); 0 = this
	// machine's (/proc/meminfo), an error where it cannot be read.
	MBMemory int64
	// PageSize is $pagesize in bytes; 0 = 4096.
	PageSize int
	// ReadFile reads an include file (path as resolved); nil = os.ReadFile
	// limited to MaxJobFileBytes.
	ReadFile func(string) ([]byte, error)
	// Sections, when not empty, keeps only the job sections named here
	// (fio --section; [global] sections always apply). A name that matches
	// no section is an error.
	Sections []string
}

func (c *ParseConfig) lookupEnv(k string) (string, bool) {
	if c != nil && c.LookupEnv != nil {
		return c.LookupEnv(k)
	}
	return os.LookupEnv(k)
}

func (c *ParseConfig) readFile(p string) ([]byte, error) {
	if c.ReadFile != nil {
		return c.ReadFile(p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, MaxJobFileBytes+1)); err != nil {
		return nil, err
	}
	if b.Len() > MaxJobFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxJobFileBytes)
	}
	return b.Bytes(), nil
}

// keywords returns fio's built-in $keywords and their values, in fio's
// order (options.c fio_keywords).
func (c *ParseConfig) keywords() ([3][2]string, error) {
	ps := c.PageSize
	if ps == 0 {
		ps = 4096
	}
	n := c.NCPUs
	if n == 0 {
		n = runtime.NumCPU()
	}
	mb := c.MBMemory
	var err error
	if mb == 0 {
		mb, err = hostMBMemory()
	}
	return [3][2]string{{"$pagesize", strconv.Itoa(ps)}, {"$mb_memory", strconv.FormatInt(mb, 10)},
		{"$ncpus", strconv.Itoa(n)}}, err
}

// hostMBMemory reads MemTotal from /proc/meminfo, in MiB.
func hostMBMemory() (int64, error) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, errors.New("$mb_memory: this machine's memory is unknown (no /proc/meminfo)")
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb / 1024, nil
			}
		}
	}
	return 0, errors.New("$mb_memory: no MemTotal in /proc/meminfo")
}

// errList collects the errors of one parse, up to MaxErrors.
type errList struct {
	errs    []error
	dropped int
}

func (l *errList) add(err error) {
	if len(l.errs) < MaxErrors {
		l.errs = append(l.errs, err)
	} else {
		l.dropped++
	}
}

// full reports whether the list holds MaxErrors errors: a later one is only counted.
func (l *errList) full() bool { return len(l.errs) >= MaxErrors }

func (l *errList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	if l.dropped > 0 {
		l.errs = append(l.errs, fmt.Errorf("fio: %d more errors not shown", l.dropped))
	}
	return errors.Join(l.errs...)
}

// stripComment removes what fio's strip_blank_end removes from a line (parse.c):
// everything from the first ';' and then from the first '#', wherever they are
// (so "runtime=1 ; one second" is runtime=1 and a filename cannot contain either
// character), then trailing blanks and control characters.
func stripComment(line string) string {
	if i := strings.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	return strings.TrimRightFunc(line, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// lexer splits job files into sections of raw options.
type lexer struct {
	cfg   *ParseConfig
	secs  []section
	errs  *errList
	nOpts int
	// bytes counts the text read so far, the job file and every include
	// (each time it is included): at most MaxJobFileBytes in all, so that
	// many includes of one large file cannot take unbounded time and memory.
	bytes int
	// chain is the files being read, outermost first, while an include is
	// read: an include of one of them is a cycle.
	chain []string
}

// lex reads one job file's text. file names it in errors (and resolves
// includes relative to it).
func (lx *lexer) lex(text, file string) {
	text = strings.TrimPrefix(text, "\ufeff") // a UTF-8 byte order mark
	for lineNo, line := range lines(text) {
		line = stripComment(strings.TrimLeft(line, " \t\r\v\f"))
		if line == "" {
			continue
		}
		if line[0] == '[' {
			lx.header(line, file, lineNo)
			continue
		}
		if len(lx.secs) == 0 {
			key, value, _ := strings.Cut(line, "=")
			lx.errs.add(&ParseError{File: file, Line: lineNo, Key: strings.TrimSpace(key), Value: strings.TrimSpace(value),
				Err: errors.New("option outside any section; start the file with [global] or [jobname]")})
			continue
		}
		lx.option(line, file, lineNo, 0)
	}
}

func (lx *lexer) header(line, file string, lineNo int) {
	if line[len(line)-1] != ']' {
		lx.errs.add(&ParseError{File: file, Line: lineNo, Err: fmt.Errorf("malformed section header %q; want [name]", line)})
		lx.secs = append(lx.secs, section{name: "?", bad: true, file: file, line: lineNo})
		return
	}
	name := strings.TrimSpace(line[1 : len(line)-1])
	switch {
	case name == "":
		lx.errs.add(&ParseError{File: file, Line: lineNo, Err: errors.New("empty section name")})
	case len(name) > maxSectionName:
		lx.errs.add(&ParseError{File: file, Line: lineNo, Err: fmt.Errorf("section name of %d bytes longer than fio's %d", len(name), maxSectionName)})
		name = ""
	case len(lx.secs) == MaxSections:
		lx.errs.add(&ParseError{File: file, Line: lineNo, Err: fmt.Errorf("more than %d sections", MaxSections)})
	}
	if name == "" || len(lx.secs) >= MaxSections {
		if len(lx.secs) < MaxSections {
			lx.secs = append(lx.secs, section{name: "?", bad: true, file: file, line: lineNo})
		}
		return
	}
	// init.c: a section whose name starts with "global" is a global section.
	lx.secs = append(lx.secs, section{name: name, global: strings.HasPrefix(name, "global"), file: file, line: lineNo})
}

// option adds one option line to the current section, handling include.
func (lx *lexer) option(line, file string, lineNo, depth int) {
	if len(lx.secs) > MaxSections {
		return
	}
	s := &lx.secs[len(lx.secs)-1]
	if rest, ok := strings.CutPrefix(line, "include"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		lx.include(strings.TrimSpace(rest), file, lineNo, depth)
		return
	}
	if lx.nOpts++; lx.nOpts > MaxOptions {
		if lx.nOpts == MaxOptions+1 {
			lx.errs.add(&ParseError{File: file, Line: lineNo, Err: fmt.Errorf("more than %d options", MaxOptions)})
		}
		return
	}
	s.opts = append(s.opts, rawOption{text: line, file: file, line: lineNo})
}

// include reads an included file's options into the current section
// (init.c: a path that does not exist is taken relative to the including
// file's directory; included files may not start sections).
func (lx *lexer) include(name, file string, lineNo, depth int) {
	perr := func(err error) {
		lx.errs.add(&ParseError{File: file, Line: lineNo, Key: "include", Value: name, Err: err})
	}
	if name == "" {
		perr(errors.New("missing file name"))
		return
	}
	if depth >= MaxIncludeDepth {
		perr(fmt.Errorf("includes nested deeper than %d", MaxIncludeDepth))
		return
	}
	p := name
	if _, err := os.Stat(p); err != nil && !filepath.IsAbs(p) && lx.cfg.ReadFile == nil {
		p = filepath.Join(filepath.Dir(file), name)
	}
	if depth == 0 {
		lx.chain = append(lx.chain[:0], filepath.Clean(file))
	}
	for k, f := range lx.chain {
		if f == filepath.Clean(p) {
			perr(fmt.Errorf("include cycle: %s includes %s again", strings.Join(lx.chain[k:], " -> "), p))
			return
		}
	}
	if lx.bytes >= MaxJobFileBytes {
		perr(fmt.Errorf("the job file and its includes pass %d bytes in all (each include counted every time it is read)", MaxJobFileBytes))
		return
	}
	data, err := lx.cfg.readFile(p)
	if err != nil {
		perr(err)
		return
	}
	if lx.bytes += len(data); lx.bytes > MaxJobFileBytes {
		perr(fmt.Errorf("the job file and its includes pass %d bytes in all (each include counted every time it is read)", MaxJobFileBytes))
		return
	}
	lx.chain = append(lx.chain, filepath.Clean(p))
	defer func() { lx.chain = lx.chain[:len(lx.chain)-1] }()
	for lineNo, l := range lines(strings.TrimPrefix(string(data), "\ufeff")) {
		l = stripComment(strings.TrimLeft(l, " \t\r\v\f"))
		if l == "" {
			continue
		}
		if l[0] == '[' {
			lx.errs.add(&ParseError{File: p, Line: lineNo, Err: errors.New("no new sections in included files (fio's rule)")})
			continue
		}
		lx.option(l, p, lineNo, depth+1)
	}
}

// lines yields text's lines split at '\n' with their 1-based numbers, without
// building a slice of them (a file of 16 MiB newlines is 16 M lines).
func lines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for n := 1; ; n++ {
			i := strings.IndexByte(text, '\n')
			if i < 0 {
				yield(n, text)
				return
			}
			if !yield(n, text[:i]) {
				return
			}
			text = text[i+1:]
		}
	}
}

// unsetNote adds to err, the error of an option written as text, which of its
// ${VAR}s are not set in the environment: fio_option_dup_subs expands them to
// nothing, so "rw=${FIO_RW}" is "rw=" there too, and the bare error would not say
// why the value is empty.
func (c *ParseConfig) unsetNote(text string, err error) error {
	var unset []string
	for rest := text; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		end := strings.IndexByte(rest[i+2:], '}')
		if end <= 0 {
			break
		}
		name := rest[i+2 : i+2+end]
		if _, ok := c.lookupEnv(name); !ok && !slices.Contains(unset, name) {
			unset = append(unset, name)
		}
		rest = rest[i+2+end:]
	}
	if len(unset) == 0 {
		return err
	}
	return fmt.Errorf("%w (${%s} not set in the environment: fio substitutes an empty string)", err, strings.Join(unset, "}, ${"))
}

// expand applies fio's substitutions to one option as written
// (options.c dup_and_sub_options): ${VAR} from the environment (unset =
// empty), then the keywords $pagesize, $mb_memory, $ncpus; a value in which a
// keyword was replaced and that contains + - * / is computed as bc would
// (integer arithmetic).
func expand(text string, cfg *ParseConfig, kbBase int) (string, error) {
	if len(text) > optLenMax {
		return "", fmt.Errorf("option of %d bytes is longer than fio's OPT_LEN_MAX (%d bytes; fio reads a job file line into a buffer of that size)", len(text), optLenMax)
	}
	if strings.Contains(text, "${") {
		var b strings.Builder
		for i := 0; i < len(text); i++ {
			if text[i] == '$' && i+1 < len(text) && text[i+1] == '{' {
				if end := strings.IndexByte(text[i+2:], '}'); end > 0 {
					name := text[i+2 : i+2+end]
					v, _ := cfg.lookupEnv(name)
					if b.Len()+len(v) > optLenMax {
						// fio_option_dup_subs expands into OPT_LEN_MAX bytes and
						// drops a value that does not fit; refused here, which also
						// bounds the memory of many ${VAR}s of a long variable
						return "", fmt.Errorf("${%s} expands the option past fio's OPT_LEN_MAX (%d bytes)", clipEcho(name), optLenMax)
					}
					b.WriteString(v)
					i += 2 + end
					continue
				}
			}
			b.WriteByte(text[i])
		}
		text = b.String()
	}
	if !strings.Contains(text, "$") {
		return text, nil
	}
	kws, kwErr := cfg.keywords()
	replaced := false
	for _, kw := range kws {
		if strings.Contains(text, kw[0]) {
			if kw[0] == "$mb_memory" && kwErr != nil {
				return "", kwErr
			}
			text = strings.ReplaceAll(text, kw[0], kw[1])
			replaced = true
		}
	}
	if replaced && strings.ContainsAny(text, "+-*/") && !strings.Contains(text, "'") {
		if key, value, ok := strings.Cut(text, "="); ok {
			if v, err := evalExpr(value, kbBase); err == nil {
				return key + "=" + strconv.FormatInt(v, 10), nil
			}
		}
	}
	return text, nil
}
