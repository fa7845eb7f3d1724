package main

import (
	"reflect"
	"testing"
)

// TestStoppedLines: a numjobs=64 job interrupted (timeout, Ctrl-C) printed 64
// "job a.N stopped early" lines, one per clone, all alike. Consecutive clones of one
// job with the same reason are now one line naming the range; different reasons, or
// different jobs, keep their own lines.
func TestStoppedLines(t *testing.T) {
	in := []stoppedJob{
		{"a", 0, "interrupted at model time 1ms"}, {"a", 1, "interrupted at model time 1ms"}, {"a", 2, "interrupted at model time 1ms"},
		{"b", 0, "interrupted at model time 1ms"},
		{"c", 0, "x"}, {"c", 1, "y"},
	}
	want := []string{
		"jobs a.0-a.2 stopped early: interrupted at model time 1ms",
		"job b.0 stopped early: interrupted at model time 1ms",
		"job c.0 stopped early: x",
		"job c.1 stopped early: y",
	}
	if got := stoppedLines(in); !reflect.DeepEqual(got, want) {
		t.Errorf("stoppedLines =\n%q\nwant\n%q", got, want)
	}
}
