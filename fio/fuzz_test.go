package fio_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// FuzzParse checks that Parse never panics or hangs, and that whatever it
// accepts passes Validate and survives a second parse of the same text.
// Seeds: the source job files plus fio/testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "fio", "*.fio"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, job string) {
		specs, err := fio.Parse(strings.NewReader(job), "fuzz.fio")
		if err != nil {
			if specs != nil {
				t.Fatalf("specs and error both returned: %v", err)
			}
			return
		}
		if len(specs) == 0 || len(specs) > fio.MaxJobs {
			t.Fatalf("%d specs", len(specs))
		}
		for i := range specs {
			if err := specs[i].Validate(); err != nil {
				t.Fatalf("accepted spec fails Validate: %v", err)
			}
		}
		again, err := fio.Parse(strings.NewReader(job), "fuzz.fio")
		if err != nil || len(again) != len(specs) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

// FuzzParseArgs checks that the command-line path (SplitCommandLine, then
// ParseArgs) never panics and that accepted specs pass Validate.
func FuzzParseArgs(f *testing.F) {
	f.Add(seed003)
	f.Add(`fio --name=a --bs=4k --numjobs=2 --name=b 'quoted arg' "x\"y"`)
	f.Fuzz(func(t *testing.T, line string) {
		args, err := fio.SplitCommandLine(line)
		if err != nil {
			return
		}
		specs, err := fio.ParseArgs(args)
		if err != nil {
			return
		}
		for i := range specs {
			if err := specs[i].Validate(); err != nil {
				t.Fatalf("accepted spec fails Validate: %v", err)
			}
		}
	})
}
