//go:build !race

package main

// raceDetector is true in a -race build.
const raceDetector = false
