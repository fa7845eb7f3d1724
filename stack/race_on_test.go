//go:build race

package stack_test

// raceDetector is true in a -race build.
const raceDetector = true
