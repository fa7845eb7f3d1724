package dispatch_test

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/scsi"
)

// The internal tests of package dispatch drive the block layer through the SCSI
// mid-layer driver; package scsi imports dispatch, so only this external test file may
// import it and hand it to them.
var (
	testHosts = map[*dispatch.Host]*scsi.Host{}
	testLUNs  = map[*dispatch.Queue]*scsi.Device{}
)

func init() {
	dispatch.SCSIForTest = func(h *dispatch.Host, dev device.Device, qd int, lc dispatch.LUNConfig) (*dispatch.Queue, error) {
		sh := testHosts[h]
		if sh == nil {
			var err error
			if sh, err = scsi.NewHost(h, scsi.CompleteOnHctxIRQ); err != nil {
				return nil, err
			}
			testHosts[h] = sh
		}
		d, err := sh.AddDevice(scsi.DeviceConfig{Device: dev, QueueDepth: qd, Queue: lc})
		if err != nil {
			return nil, err
		}
		testLUNs[d.Queue()] = d
		return d.Queue(), nil
	}
	dispatch.DeviceBusyForTest = func(q *dispatch.Queue) int { return testLUNs[q].DeviceBusy() }
}
