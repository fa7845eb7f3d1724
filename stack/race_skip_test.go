package stack_test

import "testing"

// skipUnderRace skips a long single-goroutine simulation under the race detector:
// the model runs in one goroutine, so -race finds nothing there that the concurrent
// packages' tests do not cover, and it costs CI minutes (these tests run in full in
// the plain `go test ./...`).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("single-goroutine simulation: runs without -race in go test ./...")
	}
}
