package oracle

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed scripts/*.sh
var scripts embed.FS

// ErrNoQEMU is returned (wrapped) by Harness.Available when qemu-system-x86_64 is
// not installed.
var ErrNoQEMU = errors.New("qemu-system-x86_64 not found: install it with `apt-get install qemu-system-x86`")

// ErrNoGuest is returned (wrapped) by Harness.Available when the guest kernel and
// initramfs have not been built.
var ErrNoGuest = errors.New("oracle guest not built: run `oracle/scripts/build-guest.sh` (or `blkmq validate --build-guest`); it apt-gets qemu-system-x86, kmod, cpio, fio and downloads linux-image-" + GuestKernel + " and busybox-static")

// ErrWrongGuest is returned (wrapped) by Harness.Available and Harness.Run when the
// built guest's kernel release (the cache's release file, or uname -r in the
// guest) is not the one the harness wants (Harness.Kernel, default GuestKernel,
// the release every committed reference was measured on): the model would run
// GuestKernel's profile against another kernel, and its results would be compared
// with references from another kernel, without a word.
var ErrWrongGuest = errors.New("oracle guest runs another kernel than the references")

// DefaultCache returns the guest's cache directory: $BLKMQ_ORACLE_CACHE, else
// $XDG_CACHE_HOME/blkmq-oracle, else ~/.cache/blkmq-oracle.
func DefaultCache() string {
	if d := os.Getenv("BLKMQ_ORACLE_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "blkmq-oracle")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "blkmq-oracle")
	}
	return filepath.Join(home, ".cache", "blkmq-oracle")
}

// Harness boots the guest and runs one Case in it (scripts/run-guest.sh).
type Harness struct {
	// Cache is the directory build-guest.sh filled; "" = DefaultCache().
	Cache string
	// MemMiB is the guest memory; 0 = 1024.
	MemMiB int
	// Timeout bounds one VM run (wall time); 0 = 300 s.
	Timeout time.Duration
	// Accel is "tcg" (default) or "kvm".
	Accel string
	// Log, when non-nil, receives the scripts' progress messages.
	Log io.Writer
	// RTPriority, when positive, runs the VM at SCHED_FIFO priority RTPriority
	// (needs root): under TCG guest time is host time, so on a busy host other
	// work shows up as device latency (measured here: clat mean +1.1 ms on a 4 ms
	// null_blk at load 6 without it, +0.25 ms with it).
	RTPriority int
	// FioArgs are extra fio command-line arguments in the guest (e.g.
	// "--runtime=5").
	FioArgs string
	// Keep, when non-empty, is a directory that receives the run's raw files
	// (result.log, console.log).
	Keep string
	// Kernel is the guest kernel release (uname -r) the harness must boot;
	// "" = GuestKernel. Available refuses a cache built for another release and Run
	// a guest whose uname -r differs (ErrWrongGuest).
	Kernel string
}

// kernel returns the release the harness must boot.
func (h *Harness) kernel() string {
	if h.Kernel != "" {
		return h.Kernel
	}
	return GuestKernel
}

// Release returns the kernel release of the built guest: the release file that
// build-guest.sh writes into the cache. It returns an error wrapping ErrNoGuest
// when the file is missing or empty.
func (h *Harness) Release() (string, error) {
	f := filepath.Join(h.cache(), "release")
	data, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("oracle: %s missing: %w", f, ErrNoGuest)
	}
	rel := strings.TrimSpace(string(data))
	if rel == "" || strings.ContainsAny(rel, " \t\n") {
		return "", fmt.Errorf("oracle: %s: %q is not a kernel release: %w", f, clipRelease(rel), ErrNoGuest)
	}
	return rel, nil
}

// clipRelease shortens a release string read from a file for an error message.
func clipRelease(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// wrongGuest is the error for a guest that runs release got instead of want.
func (h *Harness) wrongGuest(where, got string) error {
	want := h.kernel()
	return fmt.Errorf("oracle: %s: the guest runs kernel %s, the references were measured on %s: %w; rebuild it with `oracle/scripts/build-guest.sh %s` (or `blkmq validate --build-guest`) into %s, or point BLKMQ_ORACLE_CACHE at a guest of %s",
		where, got, want, ErrWrongGuest, want, h.cache(), want)
}

func (h *Harness) cache() string {
	if h.Cache != "" {
		return h.Cache
	}
	return DefaultCache()
}

// Available reports whether the kernel side can run: QEMU installed and the guest
// built for the wanted release (Harness.Kernel). The errors wrap ErrNoQEMU,
// ErrNoGuest or ErrWrongGuest and name the command that fixes it.
func (h *Harness) Available() error {
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		return fmt.Errorf("oracle: %w", ErrNoQEMU)
	}
	for _, f := range []string{"kernel", "initrd.cpio"} {
		if _, err := os.Stat(filepath.Join(h.cache(), f)); err != nil {
			return fmt.Errorf("oracle: %s missing: %w", filepath.Join(h.cache(), f), ErrNoGuest)
		}
	}
	rel, err := h.Release()
	if err != nil {
		return err
	}
	if rel != h.kernel() {
		return h.wrongGuest(filepath.Join(h.cache(), "release"), rel)
	}
	return nil
}

// WriteScripts writes the embedded harness scripts (build-guest.sh, run-guest.sh,
// guest-init.sh) into dir, executable, and returns dir.
func WriteScripts(dir string) (string, error) {
	entries, err := scripts.ReadDir("scripts")
	if err != nil {
		return "", fmt.Errorf("oracle: %w", err)
	}
	for _, e := range entries {
		data, err := scripts.ReadFile("scripts/" + e.Name())
		if err != nil {
			return "", fmt.Errorf("oracle: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o755); err != nil {
			return "", fmt.Errorf("oracle: %w", err)
		}
	}
	return dir, nil
}

// BuildGuest runs build-guest.sh for the wanted release (Harness.Kernel, default
// GuestKernel; apt-get, downloads; needs root for apt-get install of missing host
// tools) with output to h.Log.
func (h *Harness) BuildGuest(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "blkmq-oracle-scripts")
	if err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	defer os.RemoveAll(dir)
	if _, err := WriteScripts(dir); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "build-guest.sh"), h.kernel())
	cmd.Env = append(os.Environ(), "BLKMQ_ORACLE_CACHE="+h.cache())
	cmd.Stdout, cmd.Stderr = h.logw(), h.logw()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("oracle: build-guest.sh: %w", err)
	}
	return nil
}

func (h *Harness) logw() io.Writer {
	if h.Log != nil {
		return h.Log
	}
	return io.Discard
}

// KernelRun is the kernel side of one Case.
type KernelRun struct {
	// Fio is fio's JSON output, trimmed.
	Fio *FioJSON
	// Facts are the guest's block-layer facts.
	Facts *Facts
	// Wall is the wall time of the VM run.
	Wall time.Duration
}

// Run boots the guest and runs the Case's job (jobPath) in it. It returns an error
// when the harness is unavailable (see Available), the Case is invalid for the
// kernel side, the VM fails or times out, or a guest step fails (the error carries
// the guest's messages).
func (h *Harness) Run(ctx context.Context, c *Case, jobPath string) (*KernelRun, error) {
	if err := h.Available(); err != nil {
		return nil, err
	}
	cpus, err := c.cpus()
	if err != nil {
		return nil, err
	}
	mod, err := c.Modprobe()
	if err != nil {
		return nil, err
	}
	sys, err := c.Sysfs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "blkmq-oracle-run")
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	defer os.RemoveAll(dir)
	if _, err := WriteScripts(dir); err != nil {
		return nil, err
	}
	modFile, sysFile, out := filepath.Join(dir, "modprobe.txt"), filepath.Join(dir, "sysfs.txt"), filepath.Join(dir, "out")
	if err := os.WriteFile(modFile, []byte(mod+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	if err := os.WriteFile(sysFile, []byte(strings.Join(append(sys, ""), "\n")), 0o644); err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	tmo := h.Timeout
	if tmo <= 0 {
		tmo = 300 * time.Second
	}
	mem := h.MemMiB
	if mem <= 0 {
		mem = 1024
	}
	accel := h.Accel
	if accel == "" {
		accel = "tcg"
	}
	args := []string{"-c", strconv.Itoa(cpus), "-m", strconv.Itoa(mem), "-t", strconv.Itoa(int(tmo.Seconds())),
		"-a", accel, "-o", out, modFile, sysFile, jobPath}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "run-guest.sh"), args...)
	cmd.Env = append(os.Environ(), "BLKMQ_ORACLE_CACHE="+h.cache())
	if h.FioArgs != "" {
		cmd.Env = append(cmd.Env, "FIO_ARGS="+h.FioArgs)
	}
	if h.RTPriority > 0 {
		cmd.Env = append(cmd.Env, "BLKMQ_ORACLE_RT="+strconv.Itoa(h.RTPriority))
	}
	var stderr bytes.Buffer
	cmd.Stdout = h.logw()
	cmd.Stderr = io.MultiWriter(&stderr, h.logw())
	t0 := time.Now()
	runErr := cmd.Run()
	wall := time.Since(t0)
	if h.Keep != "" {
		for _, f := range []string{"result.log", "console.log"} {
			if data, err := os.ReadFile(filepath.Join(out, f)); err == nil {
				_ = os.WriteFile(filepath.Join(h.Keep, f), data, 0o644)
			}
		}
	}
	logData, err := os.ReadFile(filepath.Join(out, "result.log"))
	if err != nil {
		return nil, fmt.Errorf("oracle: run-guest.sh: %v: %s", runErr, strings.TrimSpace(stderr.String()))
	}
	fj, facts, perr := ParseGuestLog(logData)
	if perr != nil {
		if runErr != nil {
			return nil, fmt.Errorf("%w (run-guest.sh: %v: %s)", perr, runErr, strings.TrimSpace(stderr.String()))
		}
		return nil, perr
	}
	if facts.Kernel != h.kernel() {
		// the release file and the kernel image can disagree (a cache copied or
		// rebuilt by hand): uname -r in the guest is what ran
		got := facts.Kernel
		if got == "" {
			got = "(unknown: the guest log has no kernel line)"
		}
		return nil, h.wrongGuest("uname -r in the guest", got)
	}
	return &KernelRun{Fio: fj, Facts: facts, Wall: wall}, nil
}
