// Package echo shortens user-given values that error messages repeat, so that a
// megabyte of bad input still gives a one-line error.
package echo

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Max is the most bytes of a value as given that an error message repeats.
const Max = 64

// Clip returns s for an error message: whole up to Max bytes, else its first Max bytes
// (cut at a UTF-8 boundary) followed by "… (N bytes)". Non-printable runes and bytes
// that are not UTF-8 are written as Go escapes (\x1b, \t, \xff), so that a binary file
// cannot put control sequences on the user's terminal; N counts the bytes as given.
func Clip(s string) string {
	if len(s) <= Max {
		return printable(s)
	}
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", printable(s[:cut]), len(s))
}

// printable returns s with each non-printable rune (unicode.IsPrint, space allowed)
// and each invalid byte escaped as strconv.Quote escapes them; s itself when there is
// none.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unicode.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
