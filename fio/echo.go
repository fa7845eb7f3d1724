package fio

import (
	"fmt"
	"unicode/utf8"
)

// maxEcho is the most bytes of a value as written that an error message repeats.
const maxEcho = 64

// clipEcho returns s for an error message: whole up to maxEcho bytes, else its first
// maxEcho bytes (cut at a UTF-8 boundary) and "… (N bytes)", so that a megabyte of
// bad input gives a one-line error.
func clipEcho(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
