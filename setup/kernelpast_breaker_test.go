package setup

import (
	"strings"
	"testing"
)

// TestKernelPastBackportTable: the 6.1.y backport table was read from Debian's
// 6.1.192-3 changelog. --kernel 6.1.999 was taken as "mainline 6.1 plus 6 modelled
// backports" without a word that nothing is known past 6.1.192; it now warns (the run
// goes on with the table's backports). 6.1.192 itself, and Debian ABI 57 (= 6.1.192),
// do not warn.
func TestKernelPastBackportTable(t *testing.T) {
	for _, tt := range []struct {
		kernel string
		warn   bool
	}{
		{"6.1.999", true},
		{"6.1.193", true},
		{"6.1.192", false},
		{"6.1.0-57-amd64", false},
		{"6.1", false},
	} {
		t.Run(tt.kernel, func(t *testing.T) {
			r, err := (Description{Kernel: tt.kernel}).Resolve()
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, w := range r.Warnings {
				if strings.Contains(w, "past 6.1.192") {
					got = true
				}
			}
			if got != tt.warn {
				t.Errorf("warned %v, want %v: %q", got, tt.warn, r.Warnings)
			}
		})
	}
}
