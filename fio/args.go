package fio

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// argsFile is the File of a ParseError from ParseArgs.
const argsFile = "<args>"

// ParseArgs reads fio's command-line job form and returns the same specs as
// the equivalent job file would (see [Parse]). args may start with the
// program name ("fio" or a path ending in /fio), which is skipped.
//
// As fio does (init.c, parse_cmd_line): every --key=value (or bare --key for
// a boolean) before the first --name belongs to the global section;
// --name=NAME starts a job named NAME and the options after it belong to that
// job. A --name=global starts a global section. Errors are [*ParseError]
// with File "<args>" and Line the 1-based index of the argument in args;
// an argument that is not an option (a job file name) is an error.
func ParseArgs(args []string) ([]Spec, error) {
	var c ParseConfig
	return c.ParseArgs(args)
}

// ParseArgs is [ParseArgs] with c's environment (${VAR}, $ncpus, ...).
func (c *ParseConfig) ParseArgs(args []string) ([]Spec, error) {
	if len(args) > 0 && (args[0] == "fio" || path.Base(args[0]) == "fio") {
		args = args[1:]
	}
	secs := []section{{name: "global", global: true, file: argsFile, line: 1}}
	for i, a := range args {
		n := i + 1
		if !strings.HasPrefix(a, "-") {
			return nil, &ParseError{File: argsFile, Line: n, Err: errors.New("job file arguments are not supported; use ParseFile, or give options as --key=value")}
		}
		if strings.HasPrefix(a, "---") {
			// getopt_long_only takes "-" or "--"; a third dash is part of the name
			return nil, &ParseError{File: argsFile, Line: n, Err: fmt.Errorf("unrecognized option %q: give -key=value or --key=value", clipEcho(a))}
		}
		key, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if key == "" {
			return nil, &ParseError{File: argsFile, Line: n, Err: fmt.Errorf("missing option name in %q", a)}
		}
		if key == "name" {
			if value == "" {
				return nil, &ParseError{File: argsFile, Line: n, Key: key, Err: errors.New("missing value")}
			}
			if len(secs) == MaxSections {
				return nil, &ParseError{File: argsFile, Line: n, Err: fmt.Errorf("more than %d sections", MaxSections)}
			}
			secs = append(secs, section{name: value, global: strings.HasPrefix(value, "global"), file: argsFile, line: n})
			continue
		}
		s := &secs[len(secs)-1]
		s.opts = append(s.opts, rawOption{text: strings.TrimLeft(a, "-"), file: argsFile, line: n})
	}
	return c.build(secs, argsFile, &errList{})
}

// SplitCommandLine splits a shell command line into words the way a POSIX
// shell would for the simple cases fio command lines use: blanks separate
// words; single quotes keep text literally; double quotes keep text with
// backslash escapes; a backslash outside quotes escapes the next character;
// backslash-newline continues the line. No variable or command substitution.
// It returns an error for an unterminated quote.
func SplitCommandLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord = true
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("fio: command line: unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j, err := readDoubleQuoted(s, i+1, &cur)
			if err != nil {
				return nil, err
			}
			i = j
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// readDoubleQuoted copies a double-quoted string starting at s[i] into b and
// returns the index of the closing quote.
func readDoubleQuoted(s string, i int, b *strings.Builder) (int, error) {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return 0, errors.New("fio: command line: unterminated double quote")
}
