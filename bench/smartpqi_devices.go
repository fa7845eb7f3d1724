package bench

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// SmartpqiDevice builds the model of one disk of seed 001 from its HPE model number.
// The source gives only the model numbers; the figures are recalled from the drives'
// (or their OEM twins') data sheets and are not verified — each is an assumption:
//
//   - EG0900FBLSK, EG0900FDJYR, EG0900FBVFQ (900 GB), EG0300FCVBF (300 GB): 2.5" 10K rpm
//     SAS HDDs. Average seek 3.8 ms read (+0.4 ms write), track-to-track 0.3 ms, full
//     stroke 7.6 ms; sustained media rate 200 MB/s outer to 110 MB/s inner; 6 Gb/s
//     interface (600 MB/s) for the FBLSK/FBVFQ, 12 Gb/s (1200 MB/s) for FDJYR/FCVBF.
//   - EH0300FBQDD: 2.5" 15K rpm 300 GB SAS HDD: seek 2.9 ms, media 200 → 140 MB/s, 6 Gb/s.
//   - MM0500FBFVQ (SAS) and MM0500GBKAK (SATA): 2.5" 7.2K rpm 500 GB midline HDDs:
//     seek 8.5 ms, media 115 → 60 MB/s, 6 Gb/s.
//   - Every HDD: command overhead 50 µs, 16 zones, write cache enabled with 16 MiB of
//     dirty data (the disks are exposed in HBA mode, which leaves the drive's cache
//     setting alone; assumption), tagged queueing with reordering and a 250 ms aging
//     limit, queue 128 commands.
//   - MO0200FBRWB: 200 GB 12 Gb/s SAS mixed-use SSD: 5 µs per command in the controller
//     (~200 K IOPS), sequential write 500 MB/s, 30 µs write latency per chunk.
//   - VO006400JWZJT (6.4 TB), VO015360JWZJN (15.36 TB): 12 Gb/s SAS read-intensive SSDs
//     (Samsung PM1643 class): 2.5 µs per command (~400 K IOPS), sequential write
//     1.75 GB/s inside, one 12 Gb/s port (1.1 GB/s effective), 20 µs write latency.
//   - Every SSD: 16 parallel units, 128 KiB chunks, queue 256 commands.
//
// The files are written from the start of each disk (outer zone). It returns an error
// for an unknown model.
func SmartpqiDevice(eng *sim.Engine, model string) (device.Device, error) {
	hdd := func(rpm int, capGB float64, seekMs, outer, inner, iface float64) (device.Device, error) {
		avg := sim.Time(seekMs * 1e6)
		return device.NewHDD(eng, device.HDDParams{Name: model, RPM: rpm, CapacityBytes: int64(capGB * 1e9),
			TrackToTrackSeek: 300 * sim.Microsecond, AverageSeek: avg, FullStrokeSeek: 2 * avg,
			WriteSeekExtra: 400 * sim.Microsecond, OuterBytesPerSec: outer, InnerBytesPerSec: inner, Zones: 16,
			CommandOverhead: 50 * sim.Microsecond, WriteCache: true, WriteCacheBytes: 16 << 20,
			InterfaceBytesPerSec: iface, QueuedReordering: true, AgingLimit: 250 * sim.Millisecond, MaxQueue: 128})
	}
	ssd := func(ctrl, lat sim.Time, internal, link float64) (device.Device, error) {
		return device.NewSSD(eng, device.SSDParams{Name: model, ParallelUnits: 16, ControllerOverhead: ctrl,
			ReadLatency: lat, WriteLatency: lat, ChunkBytes: 128 << 10, InternalBytesPerSec: internal,
			LinkBytesPerSec: link, MaxQueue: 256})
	}
	switch model {
	case "EG0900FBLSK", "EG0900FBVFQ":
		return hdd(10000, 900, 3.8, 200e6, 110e6, 600e6)
	case "EG0900FDJYR":
		return hdd(10000, 900, 3.8, 200e6, 110e6, 1200e6)
	case "EG0300FCVBF":
		return hdd(10000, 300, 3.8, 200e6, 110e6, 1200e6)
	case "EH0300FBQDD":
		return hdd(15000, 300, 2.9, 200e6, 140e6, 600e6)
	case "MM0500FBFVQ", "MM0500GBKAK":
		return hdd(7200, 500, 8.5, 115e6, 60e6, 600e6)
	case "MO0200FBRWB":
		return ssd(5*sim.Microsecond, 30*sim.Microsecond, 500e6, 1.1e9)
	case "VO006400JWZJT", "VO015360JWZJN":
		return ssd(2500*sim.Nanosecond, 20*sim.Microsecond, 1.75e9, 1.1e9)
	}
	return nil, fmt.Errorf("bench: smartpqi: unknown disk model %q", model)
}
