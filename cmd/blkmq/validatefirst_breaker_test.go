package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/blkmq/blkmq/oracle"
)

// TestValidateNoGuestBeforeModel: with no guest built, validate said so only after
// running the whole job on the model (testdata/fio/003_scsi_debug.fio: its 60 s of
// zero-delay scsi_debug, about a minute here, then "guest not built"). The guest's
// files are now checked before the model run (which still comes before any VM run),
// so a 30 s job is refused at once.
func TestValidateNoGuestBeforeModel(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "long.fio")
	if err := os.WriteFile(job, []byte("[j]\nfilename=${DEV}\nrw=randread\nbs=4k\ndirect=1\nioengine=libaio\niodepth=32\nruntime=30s\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := oracle.ErrNoGuest
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		want = oracle.ErrNoQEMU
	}
	start := time.Now()
	_, err := run("validate", job, "--device", "null_blk", "--cache", filepath.Join(dir, "nocache"))
	if el := time.Since(start); exitCode(err) != 2 || !errors.Is(err, want) || el > 5*time.Second {
		t.Fatalf("err %v (exit %d) after %v, want exit 2 wrapping %v at once", err, exitCode(err), el.Round(time.Millisecond), want)
	}
}
