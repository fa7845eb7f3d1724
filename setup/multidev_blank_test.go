package setup_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/setup"
)

// TestBlankDeviceAmongDrivers: a blank --device next to a driver kind is refused with
// a setup error, not a panic (FuzzResolve found the index out of range).
func TestBlankDeviceAmongDrivers(t *testing.T) {
	for _, devs := range [][]string{
		{"scsi_debug delay=0", ""},
		{"", "null_blk irqmode=2"},
		{"scsi_debug delay=0", "   ", "cloud"},
		{"modprobe ", "scsi_debug delay=0"},
	} {
		_, err := setup.Description{Devices: devs}.Resolve()
		if err == nil || !strings.HasPrefix(err.Error(), "setup: ") {
			t.Errorf("Devices %q: error %v, want a setup error", devs, err)
		}
	}
}
