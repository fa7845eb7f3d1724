package device_test

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// TestNilEngine: every constructor refuses a nil engine, naming the model. NewNull
// (and the others with valid parameters) returned a model without error that
// panicked at its first Submit.
func TestNilEngine(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(*sim.Engine) error
		want string
	}{
		{"null", func(e *sim.Engine) error { _, err := device.NewNull(e, device.ScsiDebugParams()); return err }, `device: null "scsi_debug": nil *sim.Engine`},
		{"hdd", func(e *sim.Engine) error { _, err := device.NewHDD(e, device.Cheetah15K7Params()); return err }, `device: hdd "cheetah-15k7": nil *sim.Engine`},
		{"ssd", func(e *sim.Engine) error { _, err := device.NewSSD(e, device.ExampleSSDParams()); return err }, "nil *sim.Engine"},
		{"throttled", func(e *sim.Engine) error { _, err := device.NewThrottled(e, device.AzureP30Params()); return err }, "nil *sim.Engine"},
		{"host", func(e *sim.Engine) error {
			_, err := device.NewHost(e, device.HostParams{Name: "hba", CanQueue: 4})
			return err
		}, `device: host "hba": nil *sim.Engine`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.make(sim.NewEngine()); err != nil {
				t.Fatalf("with an engine: %v", err)
			}
			got := ""
			if err := tt.make(nil); err != nil {
				got = err.Error()
			}
			if tt.want[0] != 'd' {
				if len(got) > len(tt.want) {
					got = got[len(got)-len(tt.want):]
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nil engine (-want +got):\n%s", diff)
			}
		})
	}
}
