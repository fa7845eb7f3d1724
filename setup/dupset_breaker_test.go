package setup

import (
	"strings"
	"testing"
)

// TestSetKeyTwiceInOneLayer: a key given twice with different values in one layer
// (--set K=a --set K=b, or twice in a config file's set array) is refused naming the
// key and both values; the last one used to win without a word. The same value
// twice is accepted (nothing is lost), and a later layer still overrides an earlier
// one (the flags over a config file). tags= is host/host_tagset's other spelling.
func TestSetKeyTwiceInOneLayer(t *testing.T) {
	flags := func(set ...string) Layer { return Layer{Name: "flags", Desc: Description{Set: set}} }
	for _, tt := range []struct {
		name   string
		layers []Layer
		err    string
		want   string // queue/nr_requests's value when no error
	}{
		{"flags twice", []Layer{flags("queue/nr_requests=32", "queue/nr_requests=64")}, "setup: flags: queue/nr_requests given twice in the same place (32, then 64); give it once", ""},
		{"flags twice spaced", []Layer{flags("queue/nr_requests=32", " queue/nr_requests = 64")}, "queue/nr_requests given twice in the same place (32, then 64)", ""},
		{"flags twice same value", []Layer{flags("queue/nr_requests=32", "queue/nr_requests=32")}, "", "32"},
		{"tags and host_tagset", []Layer{flags("tags=shared", "host/host_tagset=0")}, "host/host_tagset given twice in the same place (tags=shared, then 0)", ""},
		{"file then flags", []Layer{{Name: "config m.toml", Desc: Description{Set: []string{"queue/nr_requests=32"}}}, flags("queue/nr_requests=64")}, "", "64"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ResolveLayers(tt.layers...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range r.Settings {
				if st.Key == "queue/nr_requests" && st.Value != tt.want {
					t.Errorf("queue/nr_requests = %s, want %s", st.Value, tt.want)
				}
			}
		})
	}
	l, err := ParseConfig([]byte("set = [\n  \"queue/nr_requests=32\",\n  \"queue/nr_requests=64\",\n]\n"), "m.toml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveLayers(l); err == nil || !strings.Contains(err.Error(), "config m.toml:3: queue/nr_requests given twice in the same place (32 at line 2, then 64)") {
		t.Errorf("config file set twice: error %v", err)
	}
}
