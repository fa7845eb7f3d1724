package fio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A file of many unknown options reports the first MaxErrors (the closest option
// named) and counts the rest without searching every option name for each: 300 k
// unknown lines took about 40 s before the search was skipped past the cap.
func TestUnknownOptionsPastCap(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lines   int
		dropped int
	}{
		{"under the cap", MaxErrors - 1, 0},
		{"at the cap", MaxErrors, 0},
		{"one past", MaxErrors + 1, 1},
		// as many as MaxOptions allows (rw=read is one); it was 300 000
		// lines before MaxOptions went from 1 << 20 to 1 << 17
		{"many", MaxOptions - 1, MaxOptions - 1 - MaxErrors},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("[a]\nrw=read\n")
			for range tt.lines {
				b.WriteString("bss=4k\n")
			}
			start := time.Now()
			_, err := Parse(strings.NewReader(b.String()), "many.fio")
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("parse took %v", d)
			}
			var joined interface{ Unwrap() []error }
			if !errors.As(err, &joined) {
				t.Fatalf("err %v: want a joined error", err)
			}
			errs := joined.Unwrap()
			want := min(tt.lines, MaxErrors)
			if tt.dropped > 0 {
				want++
			}
			if len(errs) != want {
				t.Fatalf("%d errors, want %d", len(errs), want)
			}
			if !strings.Contains(errs[0].Error(), "unknown option; did you mean bs?") {
				t.Errorf("first error %q: want the closest option named", errs[0])
			}
			if tt.dropped > 0 {
				if got, w := errs[len(errs)-1].Error(), fmt.Sprintf("fio: %d more errors not shown", tt.dropped); got != w {
					t.Errorf("last error %q, want %q", got, w)
				}
			}
		})
	}
}
