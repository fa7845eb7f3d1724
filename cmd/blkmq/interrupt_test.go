package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// interruptHelperEnv makes the test binary act as the blkmq command with real
// stdout and stderr (TestInterruptHelper).
const interruptHelperEnv = "BLKMQ_INTERRUPT_HELPER_ARGS"

// TestInterruptHelper is not a test: run as a subprocess by the signal tests, it
// executes blkmq with the arguments in $BLKMQ_INTERRUPT_HELPER_ARGS (separated by
// newlines) on the process's own stdout and stderr, as main does.
func TestInterruptHelper(t *testing.T) {
	a := os.Getenv(interruptHelperEnv)
	if a == "" {
		t.Skip("helper process only")
	}
	root := newRootCmd()
	root.SetArgs(strings.Split(a, "\n"))
	os.Exit(report(os.Stderr, root.Execute()))
}

// startInterrupted starts blkmq with args in a subprocess, reads its stderr until a
// line containing marker appears (a pipe read: no sleep), sends SIGINT, and
// returns its stdout, the whole stderr and its exit status.
func startInterrupted(t *testing.T, marker string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptHelper$")
	cmd.Env = append(os.Environ(), interruptHelperEnv+"="+strings.Join(args, "\n"))
	var out bytes.Buffer
	cmd.Stdout = &out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	sc := bufio.NewScanner(errPipe)
	sent := false
	for sc.Scan() {
		errText.WriteString(sc.Text() + "\n")
		if !sent && strings.Contains(sc.Text(), marker) {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
	}
	_, _ = io.Copy(io.Discard, errPipe)
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	if !sent {
		t.Fatalf("no %q line on stderr before the process exited (%d):\n%s", marker, code, errText.String())
	}
	return out.String(), errText.String(), code
}

// TestRunSIGINT: Ctrl-C during a long run ends it at the model time reached and
// prints the results so far, as fio does: "fio: terminating on signal 2", the
// normal report with runtime = the time run, exit status 128 (fio's exit_value).
func TestRunSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	job := writeJob(t, dir, "long", "[long]\nioengine=libaio\ndirect=1\nrw=randread\niodepth=4\ntime_based\nruntime=1000\n")
	stdout, stderr, code := startInterrupted(t, "blkmq: progress:", "run", job, "--eta", "always", "--output-format", "json",
		"--max-events", "none", "--device", "null_blk irqmode=2 completion_nsec=100000")
	if code != interruptStatus {
		t.Errorf("exit status %d, want %d (fio's after a signal)\nstderr:\n%s", code, interruptStatus, stderr)
	}
	if !strings.Contains(stderr, "fio: terminating on signal 2") {
		t.Errorf("stderr lacks fio's message:\n%s", stderr)
	}
	var o fio.Output
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatalf("stdout is not fio JSON: %v\n%s", err, stdout)
	}
	j := o.Jobs[0]
	if j.JobRuntime <= 0 || j.JobRuntime >= 1000_000 {
		t.Errorf("job_runtime %d ms, want the time run before the signal, in (0, 1000000)", j.JobRuntime)
	}
	if j.Read.TotalIOs == 0 || j.Read.IOPS <= 0 {
		t.Errorf("no I/O in the results so far: total_ios %d, iops %g", j.Read.TotalIOs, j.Read.IOPS)
	}
	// about 4 in flight / 100 µs = 40 k IOPS: the window is the time run, not 1000 s
	if j.Read.IOPS < 20000 || j.Read.IOPS > 45000 {
		t.Errorf("iops %g over the interrupted window, want about 40000 (runtime = elapsed)", j.Read.IOPS)
	}
}

// TestSweepSIGINT: an interrupted sweep writes the points it finished to the CSV
// and says how many it skipped; exit status 128.
func TestSweepSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	job := writeJob(t, dir, "j", "[j]\nioengine=libaio\ndirect=1\nrw=randread\niodepth=16\ntime_based\nruntime=5s\n")
	csvPath := filepath.Join(dir, "out.csv")
	_, stderr, code := startInterrupted(t, "blkmq: progress: point 1 of", "sweep", job, "--eta", "always", "--parallel", "1",
		"--vary", "queue/nr_requests=1..64:1", "--csv", csvPath, "--device", "null_blk irqmode=2 completion_nsec=50000")
	if code != interruptStatus {
		t.Errorf("exit status %d, want %d\nstderr:\n%s", code, interruptStatus, stderr)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatalf("no CSV after the signal: %v\nstderr:\n%s", err, stderr)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	points := len(rows) - 1
	t.Logf("%d points finished before the signal", points)
	if points < 1 || points >= 64 {
		t.Fatalf("CSV has %d points, want the finished ones: at least 1, fewer than 64", points)
	}
	if !strings.Contains(stderr, "skipped") || !strings.Contains(stderr, "of 64 points finished") {
		t.Errorf("stderr does not say how many points were skipped:\n%s", stderr)
	}
	for i, r := range rows[1:] {
		if want := []string{"1", "2", "3", "4"}; i < len(want) && r[0] != want[i] {
			t.Errorf("CSV row %d is point %s, want %s (the finished points, in order)", i+1, r[0], want[i])
		}
	}
}

// catchInterruptForTest starts catchInterrupt with its messages in a buffer and
// exitNow replaced by a send on codes (buffered, one exit); both are undone when the
// test ends.
func catchInterruptForTest(t *testing.T) (*interrupt, *syncBuffer, chan int) {
	t.Helper()
	codes := make(chan int, 1)
	old := exitNow
	exitNow = func(c int) { codes <- c }
	msgs := &syncBuffer{}
	in := catchInterrupt(msgs)
	t.Cleanup(func() {
		in.Stop()
		exitNow = old
	})
	return in, msgs, codes
}

// TestSecondSignalExitsAtOnce: the first SIGINT closes C (the run ends and
// reports); a second one exits at once with status 130, without waiting.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	in, msgs, codes := catchInterruptForTest(t)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-in.C()
	if in.Signal() != 2 {
		t.Errorf("Signal() = %d, want 2", in.Signal())
	}
	time.Sleep(duplicateSignalWindow) // a second press, not a duplicate delivery
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if c := <-codes; c != secondSignalStatus {
		t.Errorf("second signal exit status %d, want %d", c, secondSignalStatus)
	}
	if s := msgs.String(); !strings.Contains(s, "fio: terminating on signal 2") || !strings.Contains(s, "again") {
		t.Errorf("messages:\n%s", s)
	}
}

// syncBuffer is a bytes.Buffer safe for the signal goroutine's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClaimsSIGINT: claims interrupted after its first scenario run prints the
// table of what it has (the runs not started as errors) and exits 128.
func TestClaimsSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	stdout, stderr, code := startInterrupted(t, "blkmq: progress: 1 of", "claims", "--only", "001/", "--parallel", "1", "--eta", "always")
	if code != interruptStatus {
		t.Errorf("exit status %d, want %d\nstderr:\n%s", code, interruptStatus, stderr)
	}
	if !strings.Contains(stdout, "CLAIM") || !strings.Contains(stdout, "context canceled") {
		t.Errorf("stdout lacks the table with the runs not done:\n%s", stdout)
	}
	if !strings.Contains(stderr, "claims interrupted by signal 2") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestRunReplicasSIGINT: Ctrl-C during `run --replicas 3` (two at a time) ends the
// running replicas at the model time reached, starts no further one, and prints
// replica 1's results so far with the spread over the finished replicas (none
// here) and which were interrupted or not started; exit status 128, as plain run.
func TestRunReplicasSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	t.Setenv("GOMAXPROCS", "2")
	dir := t.TempDir()
	job := writeJob(t, dir, "long", "[long]\nioengine=libaio\ndirect=1\nrw=randread\niodepth=4\ntime_based\nruntime=1000\n")
	stdout, stderr, code := startInterrupted(t, "blkmq: progress:", "run", job, "--replicas", "3", "--eta", "always", "--output-format", "json",
		"--max-events", "none", "--device", "null_blk irqmode=2 completion_nsec=100000")
	if code != interruptStatus {
		t.Errorf("exit status %d, want %d (fio's after a signal)\nstderr:\n%s", code, interruptStatus, stderr)
	}
	if !strings.Contains(stderr, "fio: terminating on signal 2") || !strings.Contains(stderr, "0 of 3 replicas finished") {
		t.Errorf("stderr lacks fio's message or the replica tally:\n%s", stderr)
	}
	var o struct {
		fio.Output
		Blkmq ReplicaSummary `json:"blkmq"`
	}
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatalf("stdout is not fio JSON: %v\n%s", err, stdout)
	}
	j := o.Jobs[0]
	if j.JobRuntime <= 0 || j.JobRuntime >= 1000_000 || j.Read.TotalIOs == 0 {
		t.Errorf("replica 1: job_runtime %d ms, total_ios %d: want the results up to the signal", j.JobRuntime, j.Read.TotalIOs)
	}
	if len(o.DiskUtil) != 1 {
		t.Errorf("disk_util has %d entries, want replica 1's one", len(o.DiskUtil))
	}
	want := ReplicaSummary{Replicas: 0, JitterSeeds: []uint64{}, Jobs: []JobSpread{}, Requested: 3,
		Interrupted: []uint64{1, 2}, NotStarted: []uint64{3}}
	if diff := cmp.Diff(want, o.Blkmq); diff != "" {
		t.Errorf("blkmq summary (-want +got):\n%s", diff)
	}
}
