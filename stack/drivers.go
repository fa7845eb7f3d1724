package stack

import (
	"fmt"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/nvme"
	"github.com/blkmq/blkmq/scsi"
)

// assemble builds each host's tag set (sharing the machine's CPUs) and driver, and
// one request queue per LUN on its host: a blk-mq queue of the host's driver, or on a
// Legacy host the single-queue path of package legacy (stack/legacy.go), whose
// dispatch host serves only for the CPUs.
func (r *runner) assemble() error {
	cfg := &r.cfg
	hosts := make([]*dispatch.Host, cfg.nrHosts())
	scsiHosts := make([]*scsi.Host, cfg.nrHosts())
	for i := range hosts {
		var err error
		if i == 0 {
			hosts[i], err = dispatch.NewHost(r.eng, cfg.hostConfig(0))
		} else {
			hosts[i], err = dispatch.NewHostOn(r.eng, cfg.hostConfig(i), hosts[0])
		}
		if err != nil {
			return fmt.Errorf("stack: %w", err)
		}
		if h := cfg.hostAt(i); h.Driver == DriverSCSI && !h.Legacy {
			if scsiHosts[i], err = scsi.NewHost(hosts[i], h.Completion); err != nil {
				return fmt.Errorf("stack: %w", err)
			}
			if err = scsiHosts[i].SetChannelCPUs(h.ChannelCPUs); err != nil {
				return fmt.Errorf("stack: host %d: %w", i, err)
			}
			scsiHosts[i].SetCopiesData(h.CopiesData)
		}
	}
	r.host, r.hosts = hosts[0], hosts
	if cfg.Placement.KworkerTasks {
		for _, h := range hosts {
			h.TrackKworkers() // nrRunning reads KworkerBusy
		}
	}
	if cfg.CPU.Costs.MMSwitch > 0 {
		for _, h := range hosts {
			h.SetOtherTasks(r.otherTasks) // stack/mmswitch.go
		}
	}
	for i, l := range cfg.LUNs {
		dev, err := l.Device(r.eng)
		if err != nil {
			return fmt.Errorf("stack: LUNs[%d].Device: %w", i, err)
		}
		h := cfg.hostAt(l.Host)
		if h.Legacy {
			ll, err := newLegacyLUN(hosts[l.Host], dev, cfg.legacyConfig(l, hosts[l.Host]))
			if err != nil {
				return fmt.Errorf("stack: LUNs[%d]: %w", i, err)
			}
			r.queues = append(r.queues, ll)
			r.hasBudgetMap = append(r.hasBudgetMap, false)
			continue
		}
		lc := dispatch.LUNConfig{NrRequests: l.NrRequests, Elevator: l.Scheduler, MaxSectorsKB: l.MaxSectorsKB, Limits: l.Limits}
		var q *dispatch.Queue
		budgetMap := false
		switch h.Driver {
		case DriverNVMe:
			ns, err := nvme.NewNamespace(hosts[l.Host], dev, lc)
			if err != nil {
				return fmt.Errorf("stack: LUNs[%d]: %w", i, err)
			}
			q = ns.Queue()
		case DriverNullBlk:
			d, err := nullblk.New(hosts[l.Host], nullblk.Config{Device: dev, IRQMode: h.NullBlk.IRQMode, Queue: lc})
			if err != nil {
				return fmt.Errorf("stack: LUNs[%d]: %w", i, err)
			}
			q = d.Queue()
		default:
			qd := l.QueueDepth
			if qd == 0 {
				qd = h.DefaultQueueDepth()
			}
			d, err := scsiHosts[l.Host].AddDevice(scsi.DeviceConfig{Device: dev, QueueDepth: qd, Queue: lc})
			if err != nil {
				return fmt.Errorf("stack: LUNs[%d]: %w", i, err)
			}
			q, budgetMap = d.Queue(), d.HasBudgetMap()
			r.noteSCSIDevice(i, d) // device/queue_depth writes (stack/sysfs.go)
		}
		if h.Driver != DriverSCSI {
			if err := cfg.Setup.scan(q, cfg.NrCPUs); err != nil {
				return err
			}
		}
		r.queues = append(r.queues, q)
		r.hasBudgetMap = append(r.hasBudgetMap, budgetMap)
	}
	// SCSI: the host scan allocates every LUN's device and queue first; sd_probe
	// (asynchronous) reads the disks afterwards, when the host's tag set is shared
	for i, l := range cfg.LUNs {
		if h := cfg.hostAt(l.Host); h.Driver == DriverSCSI && !h.Legacy {
			if err := cfg.Setup.scan(r.queues[i].(*dispatch.Queue), cfg.NrCPUs); err != nil {
				return err
			}
		}
	}
	return nil
}
