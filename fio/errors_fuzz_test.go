package fio_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// FuzzParseErrors: every rejection of a job file is a *fio.ParseError that names the
// file and a line that exists in it (1 for file-level problems), and, when it is about
// one option, the option as written on that line. Seeds: the FuzzParse corpus shapes.
func FuzzParseErrors(f *testing.F) {
	for _, s := range []string{"[j]\niodepth=0\n", "[j]\nbs=1000\n", "x=1\n", "[global]\n", "[j\n", "[]\n",
		"[j]\nrw=randomread\n", "[j]\nnumjobs=4096\n[k]\n", "[j]\n=3\n", "[j]\nsize=1k\nbs=4k\n", "\ufeff[j]\ncpus_allowed=5-2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, job string) {
		_, err := fio.Parse(strings.NewReader(job), "fuzz.fio")
		if err == nil {
			return
		}
		var pe *fio.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error is not a *fio.ParseError: %T %v", err, err)
		}
		lines := strings.Count(job, "\n") + 1
		if pe.File != "fuzz.fio" || pe.Line < 1 || pe.Line > lines {
			t.Fatalf("error names %s:%d; the file has %d lines: %v", pe.File, pe.Line, lines, err)
		}
		if pe.Err == nil || pe.Err.Error() == "" {
			t.Fatalf("error without a reason: %v", err)
		}
		if pe.Key != "" {
			line := strings.Split(job, "\n")[pe.Line-1]
			if !strings.Contains(line, pe.Key) {
				t.Fatalf("error names option %q, not on line %d %q", pe.Key, pe.Line, line)
			}
		}
		if !strings.HasPrefix(err.Error(), "fio: fuzz.fio:") {
			t.Fatalf("error does not start with the file: %q", err)
		}
	})
}
