package setup

import (
	"strings"
	"testing"
)

// TestHostWithDefaultDevice: --host without --device runs on the default device,
// null_blk, which is its own host. The error said only "null_blk is its own host",
// naming a device the user never gave, and for a host kind that does not exist
// (--host bogus, --host nvme) it never said so. It now says null_blk is the default
// device, which device kinds go behind a --host, and that an unknown kind is unknown,
// with the allowed ones.
func TestHostWithDefaultDevice(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    Description
		want []string
	}{
		{"storvsc-default-device", Description{Host: "storvsc"},
			[]string{`--host "storvsc": null_blk, the default device, is its own host`, "a --host takes --device cloud, hdd or ssd"}},
		{"unknown-default-device", Description{Host: "bogus"},
			[]string{`--host "bogus": unknown host kind "bogus"; allowed: generic, storvsc`, "null_blk, the default device, is its own host"}},
		{"unknown-explicit-driver", Description{Host: "nvme", Devices: []string{"scsi_debug"}},
			[]string{`--host "nvme": unknown host kind "nvme"; allowed: generic, storvsc`, "scsi_debug is its own host"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.d.Resolve()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
