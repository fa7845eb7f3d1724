package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoadConfigReadsAtMostTheCap: LoadConfig stops reading one byte past
// MaxConfigBytes. It read the whole file first (os.ReadFile): a 64 MB config
// took its size in memory before "larger than" was reported, and --config
// /dev/zero never returned.
func TestLoadConfigReadsAtMostTheCap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("#\n", size/2)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sparse := func(name string, size int64) string { // reads as NUL bytes, writes nothing
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tooBig := "larger than 1048576 bytes"
	for _, tt := range []struct {
		name, path, want string // want "" = loads
	}{
		{"at the cap", write("cap.toml", MaxConfigBytes), ""},
		{"one past", write("past.toml", MaxConfigBytes+2), tooBig},
		{"64 MB", sparse("big.toml", 64<<20), tooBig},
		{"endless", "/dev/zero", tooBig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := LoadConfig(tt.path)
			runtime.ReadMemStats(&m1)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if mb := (m1.TotalAlloc - m0.TotalAlloc) >> 20; mb > 16 {
				t.Errorf("LoadConfig allocated %d MiB, want at most 16 (the cap is 1 MiB)", mb)
			}
		})
	}
}

// TestConfigCPUsOverflow: a cpus past int64 is refused naming the key and its
// range; the TOML decoder's message ("... is out of range for int64") named neither.
func TestConfigCPUsOverflow(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"past int64", "cpus = 99999999999999999999\n", "setup: config c.toml:1: cpus: 99999999999999999999 is out of range for int64; allowed: an integer in [1, 4096]"},
		{"in int64, past 4096", "cpus = 5000\n", "system/nr_cpus=5000: allowed: an integer in [1, 4096]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseConfig([]byte(tt.text), "c.toml")
			if err == nil {
				_, err = ResolveLayers(l)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
