package fio_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// A 600 KB job file with 100 000 options in [global] and 4 096 empty job
// sections (issue 19): the jobs share the global options instead of each
// copying them, so the parse allocates about what the file holds, not
// sections × options.
func TestParseSharesGlobals(t *testing.T) {
	var b strings.Builder
	b.WriteString("[global]\n")
	for i := range 100_000 {
		if i%2 == 0 {
			b.WriteString("bs=4k\n")
		} else {
			b.WriteString("size=1m\n")
		}
	}
	for range 4096 {
		b.WriteString("[j]\n")
	}
	text := b.String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	specs, err := fio.Parse(strings.NewReader(text), "big.fio")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 4096 || len(specs[4095].GlobalOptions) != 100_000 {
		t.Fatalf("%d specs, %d global options", len(specs), len(specs[len(specs)-1].GlobalOptions))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("parsing a %d KB file allocated %d MB; want under 200 MB (globals shared)", len(text)>>10, alloc>>20)
	}
}

// Limits: more sections than MaxSections, more options than MaxOptions.
func TestParseLimits(t *testing.T) {
	many := strings.Repeat("[j]\n", fio.MaxSections+1)
	if _, err := fio.Parse(strings.NewReader(many), "s.fio"); err == nil || !strings.Contains(err.Error(), "sections") {
		t.Errorf("%d sections: error %v, want one naming the section limit", fio.MaxSections+1, err)
	}
	opts := "[j]\n" + strings.Repeat("bs=4k\n", fio.MaxOptions+1)
	if _, err := fio.Parse(strings.NewReader(opts), "o.fio"); err == nil || !strings.Contains(err.Error(), "options") {
		t.Errorf("%d options: error %v, want one naming the option limit", fio.MaxOptions+1, err)
	}
}
