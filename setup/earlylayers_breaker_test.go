package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEarlyKeysFollowLayers: kernel and system/nr_cpus given as set entries of a
// config file were applied after every layer's kernel and cpus fields, so
// `set = ["system/nr_cpus=3"]` in the file beat `--cpus 4` on the command line
// (the help says flags override the file). They are now applied with their layer.
// A layer that gives one both ways with different values is refused (the set
// entry used to win without a word).
func TestEarlyKeysFollowLayers(t *testing.T) {
	file := func(set ...string) Layer {
		return Layer{Name: "config m.toml", Desc: Description{Set: set}}
	}
	flags := func(kernel string, cpus int, set ...string) Layer {
		return Layer{Name: "flags", Desc: Description{Kernel: kernel, CPUs: cpus, Set: set}}
	}
	type got struct{ Kernel, CPUs string }
	for _, tt := range []struct {
		name   string
		layers []Layer
		want   got
		err    string
	}{
		{"flag cpus over file set", []Layer{file("system/nr_cpus=3"), flags("", 4)}, got{"current (default)", "4 (flags)"}, ""},
		{"flag kernel over file set", []Layer{file("kernel=5.10"), flags("6.1", 0)}, got{"6.1 (flags)", "4 (default)"}, ""},
		{"file set alone", []Layer{file("kernel=5.10", "system/nr_cpus=3"), flags("", 0)}, got{"5.10 (config m.toml)", "3 (config m.toml)"}, ""},
		{"flag set over file field", []Layer{{Name: "config m.toml", Desc: Description{CPUs: 8}}, flags("", 0, "system/nr_cpus=2")}, got{"current (default)", "2 (flags)"}, ""},
		{"same layer agrees", []Layer{flags("", 4, "system/nr_cpus=4")}, got{"current (default)", "4 (flags)"}, ""},
		{"same layer cpus disagree", []Layer{flags("", 4, "system/nr_cpus=3")}, got{}, "setup: flags: system/nr_cpus=3 disagrees with cpus 4 given in the same place (--cpus or cpus =); give one"},
		{"same layer kernel disagree", []Layer{flags("5.17", 0, "kernel=6.1")}, got{}, `setup: flags: kernel=6.1 disagrees with kernel "5.17" given in the same place (--kernel or kernel =); give one`},
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
			var g got
			for _, st := range r.Settings {
				switch st.Key {
				case "kernel":
					g.Kernel = st.Value + " (" + st.Source + ")"
				case "system/nr_cpus":
					g.CPUs = st.Value + " (" + st.Source + ")"
				}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
