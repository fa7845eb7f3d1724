// Package echo shortens user-given values that error messages repeat, so that a
// megabyte of bad input still gives a one-line error.
package echo

import (
	"fmt"
	"unicode/utf8"
)

// Max is the most bytes of a value as given that an error message repeats.
const Max = 64

// Clip returns s for an error message: whole up to Max bytes, else its first Max bytes
// (cut at a UTF-8 boundary) followed by "… (N bytes)".
func Clip(s string) string {
	if len(s) <= Max {
		return s
	}
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
