//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGUSR1SaysNoStatusReport: fio prints its running statistics at SIGUSR1 and
// goes on. blkmq ignored the signal without a word; now it says that it does not
// report mid-run, and the signal neither interrupts the run nor counts as a first
// Ctrl-C (a SIGINT after it is still the first signal, not a second one).
func TestSIGUSR1SaysNoStatusReport(t *testing.T) {
	in, msgs, codes := catchInterruptForTest(t)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(msgs.String(), "SIGUSR1") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s := msgs.String(); !strings.Contains(s, "SIGUSR1") || !strings.Contains(s, "does not report mid-run") {
		t.Fatalf("no note at SIGUSR1:\n%s", s)
	}
	select {
	case <-in.C():
		t.Fatal("SIGUSR1 interrupted the run")
	default:
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-in.C()
	select {
	case c := <-codes:
		t.Fatalf("exit %d: SIGINT after SIGUSR1 was taken for a second signal", c)
	case <-time.After(100 * time.Millisecond):
	}
	if in.Signal() != 2 {
		t.Errorf("Signal() = %d, want 2", in.Signal())
	}
}
