//go:build race

package bench

// raceDetector is true in a -race build.
const raceDetector = true
