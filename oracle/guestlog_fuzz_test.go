package oracle

import (
	"os"
	"strings"
	"testing"
)

// FuzzParseGuestLog: any guest result log either parses or is refused with an
// "oracle:" error; never a panic ("kernel" or "disk" without its value indexed
// past the line's fields). Not run by default: go test -fuzz FuzzParseGuestLog
// -fuzztime 60s ./oracle/. Seeds: below.
func FuzzParseGuestLog(f *testing.F) {
	// small synthetic seeds: with the 8-16 KiB committed logs as seeds the fuzzer
	// made no progress (4-6 executions in 45 s); the logs are parsed by the unit
	// tests
	f.Add([]byte("#blkmq-begin modprobe\n#blkmq-end modprobe 0\n#blkmq-begin sysfs\n#blkmq-end sysfs 0\n#blkmq-begin disks\nkernel 6.1.0-57-amd64 cpus 2\ndisk sda scheduler none\n#blkmq-end disks 0\n#blkmq-begin fio\n{\"jobs\":[{\"jobname\":\"a\"}]}\n#blkmq-end fio 0\n#blkmq-done\n"))
	f.Add([]byte("#blkmq-begin disks\nkernel\ndisk\n#blkmq-end disks\n"))
	f.Add([]byte("#blkmq-begin disks\nkernel 6.1.0-57-amd64 cpus 2\ndisk sda\n#blkmq-end disks\n#blkmq-done\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		fj, facts, err := ParseGuestLog(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "oracle:") {
				t.Fatalf("error without the oracle: prefix: %v", err)
			}
			return
		}
		if fj == nil || facts == nil {
			t.Fatal("nil result without an error")
		}
	})
}

// TestParseGuestLogShortLines: a "kernel" or "disk" line without its value in the
// disks block is skipped; it indexed past the line's fields and panicked.
func TestParseGuestLogShortLines(t *testing.T) {
	data, err := os.ReadFile("testdata/guest-result.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, line string }{
		{"kernel-without-release", "kernel"},
		{"disk-without-name", "disk"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Replace(string(data), "\nkernel ", "\n"+tt.line+"\nkernel ", 1)
			if s == string(data) {
				t.Fatal("the log has no kernel line to put the short line before")
			}
			if _, _, err := ParseGuestLog([]byte(s)); err != nil {
				t.Logf("refused: %v", err)
			}
		})
	}
}
