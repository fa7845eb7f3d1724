package fio

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOptLenMax: an option is at most fio's OPT_LEN_MAX (8192 bytes) as written
// and after ${VAR} expansion. A line of 10 000 references to a 100 kB variable
// (now refused for its own length; 2000 fit under 8192 bytes)
// expanded to 1 GB (2.3 GB of RSS, 9 s), and more such lines without bound; fio
// expands into an 8192-byte buffer.
func TestOptLenMax(t *testing.T) {
	env := map[string]string{"X": strings.Repeat("a", 100_000), "S": "4k"}
	cfg := &ParseConfig{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	for _, tt := range []struct {
		name, line string
		desc       string // the description parsed, when accepted
		err        string // "" = accepted
	}{
		{"at the limit", "description=" + strings.Repeat("d", optLenMax-len("description=")), strings.Repeat("d", optLenMax-len("description=")), ""},
		{"one past", "description=" + strings.Repeat("d", optLenMax-len("description=")+1), "", "option of 8193 bytes is longer than fio's OPT_LEN_MAX (8192 bytes"},
		{"small expansion", "description=${S}${S}", "4k4k", ""},
		{"expansion past", "description=${X}", "", "${X} expands the option past fio's OPT_LEN_MAX (8192 bytes)"},
		{"many expansions", "description=" + strings.Repeat("${X}", 2000), "", "${X} expands the option past fio's OPT_LEN_MAX"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := cfg.Parse(strings.NewReader("[a]\nrw=read\n"+tt.line+"\n"), "l.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %.300v, want %q", err, tt.err)
				}
				if len(err.Error()) > 600 {
					t.Errorf("error of %d bytes: the value should be clipped", len(err.Error()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, o := range specs[0].Options {
				if o.Key == "description" {
					got = o.Value
				}
			}
			if diff := cmp.Diff(tt.desc, got); diff != "" {
				t.Errorf("description (-want +got):\n%s", diff)
			}
		})
	}
}
