package oracle

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// refKernel is the committed index's kernel field.
const refKernel = "6.1.0-57-amd64 (Debian 12 linux-image-amd64, 6.1.192-3)"

// TestBuildGuestDefaultIsReferenceKernel: build-guest.sh with no argument builds
// the kernel of the committed references. It used to build what
// linux-image-amd64 depended on in the host's apt lists, and stale lists gave
// 6.1.0-48-amd64 against references of 6.1.0-57-amd64 without a word.
func TestBuildGuestDefaultIsReferenceKernel(t *testing.T) {
	script, err := scripts.ReadFile("scripts/build-guest.sh")
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(script)
		if m == nil {
			t.Fatalf("build-guest.sh has no %s= line", name)
		}
		return string(m[1])
	}
	ix := loadReferenceIndex(t)
	for _, tt := range []struct{ name, got, want string }{
		{"default-release/GuestKernel", field("default_rel"), GuestKernel},
		{"default-release/index", field("default_rel"), ix.Release()},
		{"default-version/index", field("default_ver"), indexDebianVersion(ix.Kernel)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want || tt.got == "" {
				t.Errorf("build-guest.sh %q, want %q", tt.got, tt.want)
			}
		})
	}
	if strings.Contains(string(script), "apt-cache depends linux-image-amd64") {
		t.Error("build-guest.sh still takes its default from linux-image-amd64's dependency")
	}
}

func TestDebianVersions(t *testing.T) {
	tests := []struct{ name, in, index, proc string }{
		{"index", refKernel, "6.1.192-3", ""},
		{"index-bare", "6.1.0-57-amd64", "", ""},
		{"proc", "Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)", "", "6.1.192-3"},
		{"proc-old", "Linux version 6.1.0-48-amd64 (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.172-1 (2026-05-01)", "", "6.1.172-1"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name != "proc" && tt.name != "proc-old" {
				if got := indexDebianVersion(tt.in); got != tt.index {
					t.Errorf("indexDebianVersion = %q, want %q", got, tt.index)
				}
			}
			if got := procDebianVersion(tt.in); got != tt.proc {
				t.Errorf("procDebianVersion = %q, want %q", got, tt.proc)
			}
		})
	}
}

// fakeGuest fills a cache directory as build-guest.sh would, with release rel
// (no release file when rel is "-").
func fakeGuest(t *testing.T, rel string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"kernel", "initrd.cpio"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rel != "-" {
		if err := os.WriteFile(filepath.Join(dir, "release"), []byte(rel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHarnessRefusesWrongGuest: a guest built for another release than the
// references' is refused by Available (so by validate and TestKernelReference)
// naming both releases and the rebuild command.
func TestHarnessRefusesWrongGuest(t *testing.T) {
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Skip("qemu-system-x86_64 not installed: Available stops at ErrNoQEMU first")
	}
	tests := []struct {
		name    string
		release string
		kernel  string
		want    error
		text    string
	}{
		{"stale-apt-6.1.0-48", "6.1.0-48-amd64", "", ErrWrongGuest, "the guest runs kernel 6.1.0-48-amd64, the references were measured on 6.1.0-57-amd64"},
		{"rebuild-command", "6.1.0-48-amd64", "", ErrWrongGuest, "oracle/scripts/build-guest.sh 6.1.0-57-amd64"},
		{"no-release-file", "-", "", ErrNoGuest, "release missing"},
		{"empty-release-file", "", "", ErrNoGuest, "is not a kernel release"},
		{"garbage-release-file", "6.1.0-57-amd64 extra", "", ErrNoGuest, "is not a kernel release"},
		{"reference-kernel", GuestKernel, "", nil, ""},
		{"other-index-kernel", "6.1.0-48-amd64", "6.1.0-48-amd64", nil, ""},
		{"other-index-refuses-57", GuestKernel, "6.1.0-48-amd64", ErrWrongGuest, "the references were measured on 6.1.0-48-amd64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Harness{Cache: fakeGuest(t, tt.release), Kernel: tt.kernel}
			err := h.Available()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Available: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("Available: %v, want %v with %q", err, tt.want, tt.text)
			}
		})
	}
}

// TestSaveReferenceRunWrongKernel: a kernel run on another release or Debian build
// than the index's is never written beside its references.
func TestSaveReferenceRunWrongKernel(t *testing.T) {
	const v57 = "Linux version 6.1.0-57-amd64 (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"
	tests := []struct {
		name  string
		facts *Facts
		want  string // "" = saved
	}{
		{"same-kernel", &Facts{Kernel: GuestKernel, Version: v57}, ""},
		{"same-kernel-no-version", &Facts{Kernel: GuestKernel}, ""},
		{"stale-apt-6.1.0-48", &Facts{Kernel: "6.1.0-48-amd64"}, `the kernel run was on "6.1.0-48-amd64", the index's results are from 6.1.0-57-amd64`},
		{"other-debian-build", &Facts{Kernel: GuestKernel, Version: strings.Replace(v57, "6.1.192-3 (", "6.1.192-1 (", 1)}, "Debian's 6.1.192-1 build of 6.1.0-57-amd64, the index's results are from 6.1.192-3"},
		{"no-facts", nil, "no facts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := &Index{Kernel: refKernel, dir: t.TempDir()}
			c := &Case{Name: "x"}
			err := ix.SaveReferenceRun(c, &KernelRun{Fio: &FioJSON{}, Facts: tt.facts}, 1)
			_, statErr := os.Stat(ix.resultPath(c, "facts"))
			if tt.want == "" {
				if err != nil || statErr != nil {
					t.Fatalf("SaveReferenceRun: %v (facts file: %v)", err, statErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("SaveReferenceRun: %v, want an error with %q", err, tt.want)
			}
			if tt.facts != nil && !errors.Is(err, ErrWrongGuest) {
				t.Errorf("error does not wrap ErrWrongGuest: %v", err)
			}
			if statErr == nil {
				t.Error("the refused run was written")
			}
		})
	}
}

// TestReferenceWrongKernel: a committed result of another kernel than the index's
// is refused when read, for the reference and for a repeat.
func TestReferenceWrongKernel(t *testing.T) {
	tests := []struct {
		name, file, facts, want string
	}{
		{"reference-6.1.0-48", "x.facts.json", `{"kernel": "6.1.0-48-amd64"}`, `recorded on kernel "6.1.0-48-amd64", the index's results are from 6.1.0-57-amd64`},
		{"repeat-6.1.0-48", "x.run2.facts.json", `{"kernel": "6.1.0-48-amd64"}`, `recorded on kernel "6.1.0-48-amd64"`},
		{"reference-other-build", "x.facts.json", `{"kernel": "6.1.0-57-amd64", "version": "Linux version 6.1.0-57-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-1 (2026-11-01)"}`, "recorded on Debian's 6.1.192-1 build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			res := filepath.Join(dir, "results")
			if err := os.MkdirAll(res, 0o755); err != nil {
				t.Fatal(err)
			}
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(res, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			good := `{"kernel": "6.1.0-57-amd64"}`
			write("x.fio.json", `{"jobs": [{"jobname": "a"}]}`)
			write("x.facts.json", good)
			if strings.Contains(tt.file, "run2") {
				write("x.run2.fio.json", `{"jobs": [{"jobname": "a"}]}`)
			}
			write(tt.file, tt.facts)
			ix := &Index{Kernel: refKernel, dir: dir}
			c := &Case{Name: "x"}
			_, _, err := ix.Reference(c)
			if err == nil {
				_, _, err = ix.Reruns(c)
			}
			if !errors.Is(err, ErrWrongGuest) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want ErrWrongGuest with %q", err, tt.want)
			}
		})
	}
}

// TestCommittedResultsOneKernel: every committed result (reference and repeats)
// was measured on the index's kernel, GuestKernel.
func TestCommittedResultsOneKernel(t *testing.T) {
	ix := loadReferenceIndex(t)
	if ix.Release() != GuestKernel {
		t.Fatalf("index kernel %q, GuestKernel %q", ix.Kernel, GuestKernel)
	}
	for i := range ix.Cases {
		c := &ix.Cases[i]
		if _, _, err := ix.Reference(c); errors.Is(err, os.ErrNotExist) {
			continue // a hold-out not run yet
		} else if err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if _, _, err := ix.Reruns(c); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
