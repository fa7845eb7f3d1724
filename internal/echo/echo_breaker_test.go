package echo

import (
	"strings"
	"testing"
)

// TestClipEscapesControls: an error message repeats a value as given, and a job file
// of random bytes put terminal control sequences (ESC, BEL, NUL, invalid UTF-8) raw on
// the user's terminal. Clip now writes every non-printable rune and every invalid byte
// as a Go escape; printable text, multi-byte letters included, is unchanged.
func TestClipEscapesControls(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"iodepth", "iodepth"},
		{"naïve 4k", "naïve 4k"},
		{"\x1b]0;title\a", `\x1b]0;title\a`},
		{"a\x00b", `a\x00b`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"tab\there", `tab\there`},
	} {
		if got := Clip(tt.in); got != tt.want {
			t.Errorf("Clip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("\x1b", 100)
	if got := Clip(long); !strings.HasPrefix(got, `\x1b`) || !strings.HasSuffix(got, "… (100 bytes)") || strings.ContainsRune(got, 0x1b) {
		t.Errorf("Clip of 100 ESC = %q", got)
	}
}
