package fio_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// TestIncludeBytesInAll: the job file and its includes, each counted every time
// it is read, are capped at MaxJobFileBytes together. 200 includes of one 15 MB
// file each read, split and kept the file: 29 s and 4.3 GB of RSS, growing with the
// include count.
func TestIncludeBytesInAll(t *testing.T) {
	big := ";" + strings.Repeat("x", fio.MaxJobFileBytes/4) + "\nbs=8k\n" // a quarter of the cap
	reads := 0
	cfg := &fio.ParseConfig{ReadFile: func(p string) ([]byte, error) {
		reads++
		return []byte(big), nil
	}}
	for _, tt := range []struct {
		name      string
		includes  int
		wantErr   string // "" = parses
		wantReads int
	}{
		{"three quarters", 3, "", 3},
		{"past the cap on the fourth", 4, "fio: j.fio:5: include=big.inc: the job file and its includes pass 16777216 bytes in all (each include counted every time it is read)", 4},
		// after the cap no include is read at all
		{"thousands", 5000, "the job file and its includes pass 16777216 bytes in all", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reads = 0
			job := "[j]\n" + strings.Repeat("include big.inc\n", tt.includes)
			_, err := cfg.Parse(strings.NewReader(job), "j.fio")
			got := ""
			if err != nil {
				got = strings.SplitN(err.Error(), "\n", 2)[0]
			}
			if tt.wantErr == "" && got != "" || tt.wantErr != "" && !strings.Contains(got, tt.wantErr) {
				t.Errorf("error %q, want %q", got, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantReads, reads); diff != "" {
				t.Errorf("include reads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseMemoryBounded: a job file just under MaxJobFileBytes that fails (each
// line an unknown option), or that is all newlines, is parsed with bounded
// allocation (64, 16 and 88 MiB here). With MaxOptions at 1 << 20, the lines split
// into a slice and the file read without knowing its size, a
// 14 MB file of unknown options allocated 458 MB and peaked at 345 MB of RSS.
func TestParseMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 14 MB files")
	}
	var unknown strings.Builder
	unknown.WriteString("[a]\nrw=randread\n")
	for i := 0; unknown.Len() < 14<<20; i++ {
		fmt.Fprintf(&unknown, "xq%d=1\n", i)
	}
	for _, tt := range []struct {
		name, text string
		wantErr    bool
	}{
		{"unknown options", unknown.String(), true},
		{"newlines", "[a]\nrw=randread\n" + strings.Repeat("\n", 16<<20-32), false},
		{"valid options past MaxOptions", "[a]\nrw=randread\n" + strings.Repeat("bs=4k\n", 2_000_000), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := fio.Parse(strings.NewReader(tt.text), "m.fio")
			runtime.ReadMemStats(&m1)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			// the file once as read (a Builder grows to about twice it), the
			// options kept (MaxOptions × ~150 B, and their slices' growth)
			t.Logf("allocated %d MiB", (m1.TotalAlloc-m0.TotalAlloc)>>20)
			if mb := (m1.TotalAlloc - m0.TotalAlloc) >> 20; mb > 120 {
				t.Errorf("parse allocated %d MiB, want at most 120", mb)
			}
		})
	}
}
