package setup

import (
	"strings"
	"testing"
)

// TestConfigDeviceLine: an error in one entry of a multi-line devices array names
// that entry's line, as an entry of set does; it named the line of "devices = [".
func TestConfigDeviceLine(t *testing.T) {
	for _, tt := range []struct {
		name, toml, want string
	}{
		{"second-entry", "cpus = 2\ndevices = [\n  \"ssd\",\n  \"ssd bogus=1\",\n]\n", "config m.toml:4: --device \"ssd bogus=1\": unknown ssd parameter"},
		{"duplicate-entries", "devices = [\n  \"scsi_debug max_queue=0\",\n  \"scsi_debug max_queue=0\",\n]\n", "config m.toml:2: --device \"scsi_debug max_queue=0\""},
		{"one-line", "# devices: \"null_blk hw_queue_depth=0\"\ndevices = [\"null_blk hw_queue_depth=0\"]\n", "config m.toml:2: --device \"null_blk hw_queue_depth=0\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseConfig([]byte(tt.toml), "m.toml")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ResolveLayers(l)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
