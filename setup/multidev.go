package setup

import (
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/stack"
)

// Several driver kinds in one run: --device null_blk --device nvme --device ssd is
// three hosts (the null_blk tag set, the NVMe controller, and the --host for the disk
// models), each resolved as if it were alone, with the same kernel, CPUs and --set
// keys, then put on one machine. Each driver is a module loaded once, so a driver kind
// may appear once (its own parameters give more LUNs). SCSI disks are named in the
// order their hosts come (--device order): sda, sdb, … across scsi_debug and the disk
// models.

// driverGroups splits the effective device list into one group per driver kind and
// one for the disk models, when it holds a driver kind and something else; nil
// otherwise. at is the index of the layer whose Devices apply.
func driverGroups(layers []Layer) (groups [][]string, at int) {
	at = -1
	for i, l := range layers {
		if len(l.Desc.Devices) > 0 {
			at = i
		}
	}
	if at < 0 || len(layers[at].Desc.Devices) < 2 {
		return nil, at
	}
	devs := layers[at].Desc.Devices
	var models []string
	modelsAt, drivers := -1, 0
	for _, d := range devs {
		f := strings.Fields(d)
		if len(f) > 0 && f[0] == "modprobe" {
			f = f[1:]
		}
		if len(f) > 0 && deviceKinds[f[0]].driver {
			drivers++
			groups = append(groups, []string{d})
			continue
		}
		if modelsAt < 0 {
			modelsAt = len(groups)
			groups = append(groups, nil)
		}
		models = append(models, d)
	}
	if drivers == 0 {
		return nil, at
	}
	if modelsAt >= 0 {
		groups[modelsAt] = models
	}
	return groups, at
}

// groupLines returns the file lines (Layer.DeviceLines) of a group's entries: each
// entry is matched to the first position of l's device list holding it that used
// does not mark yet, which it then marks. nil when l has no lines.
func groupLines(l Layer, g []string, used []bool) []int {
	if len(l.DeviceLines) != len(l.Desc.Devices) {
		return nil
	}
	lines := make([]int, len(g))
	for i, e := range g {
		for j, d := range l.Desc.Devices {
			if !used[j] && d == e {
				used[j], lines[i] = true, l.DeviceLines[j]
				break
			}
		}
	}
	return lines
}

// resolveGroups resolves each group alone and merges them into one machine.
func resolveGroups(layers []Layer, groups [][]string, at int) (*Resolved, error) {
	models := false
	for _, g := range groups {
		models = models || !deviceKinds[groupKind(g)].driver
	}
	for _, l := range layers {
		if l.Desc.Host != "" && !models {
			return nil, fmt.Errorf("setup: %s: --host %q: every --device is a driver with its own host; --host describes the host of cloud, ssd or hdd devices", l.Name, clip(l.Desc.Host))
		}
	}
	seen := map[string]bool{}
	used := make([]bool, len(layers[at].Desc.Devices))
	var out *Resolved
	sdIndex := 0
	for gi, g := range groups {
		kind := groupKind(g)
		driver := deviceKinds[kind].driver
		lines := groupLines(layers[at], g, used)
		if driver && seen[kind] {
			where := layers[at].Name
			if lines != nil {
				where = fmt.Sprintf("%s:%d", where, lines[0])
			}
			return nil, fmt.Errorf("setup: %s: --device %q: %s is one module, loaded once: give it once (more LUNs: scsi_debug max_luns= or num_tgts=, null_blk nr_devices=, nvme namespaces=)", where, clip(g[0]), kind)
		}
		seen[kind] = true
		ls := append([]Layer(nil), layers...)
		for i := range ls {
			ls[i].Desc.Devices = nil
			if driver {
				ls[i].Desc.Host = "" // --host describes the disk models' host
			}
		}
		ls[at].Desc.Devices, ls[at].DeviceLines = g, lines
		r, err := resolveOne(ls)
		if err != nil {
			return nil, err
		}
		for i, n := range r.LUNs {
			if strings.HasPrefix(n, "/dev/sd") {
				r.LUNs[i] = sdName(sdIndex)
				r.Config.LUNs[i].Name = r.LUNs[i]
				sdIndex++
			}
		}
		if gi == 0 {
			out = r
			continue
		}
		base := 1 + len(out.Config.Hosts) // host index of this group's first host
		out.Config.Hosts = append(out.Config.Hosts, r.Config.Host)
		out.Config.Hosts = append(out.Config.Hosts, r.Config.Hosts...)
		for _, l := range r.Config.LUNs {
			l.Host += base
			out.Config.LUNs = append(out.Config.LUNs, l)
		}
		out.LUNs = append(out.LUNs, r.LUNs...)
		out.Capacity = append(out.Capacity, r.Capacity...)
		out.bounded = append(out.bounded, r.bounded...)
		out.capacityNote = append(out.capacityNote, r.capacityNote...)
		for _, w := range r.Warnings {
			out.Warnings = append(out.Warnings, "host "+kind+": "+w)
		}
		for _, st := range r.Settings {
			if strings.HasPrefix(st.Key, "host/") || strings.HasPrefix(st.Key, "queue/") || strings.HasPrefix(st.Key, "device/") ||
				strings.HasPrefix(st.Key, "lun ") || strings.Contains(st.Key, ".") {
				st.Key = kind + ":" + st.Key
				out.Settings = append(out.Settings, st)
			}
		}
	}
	if err := stack.Check(out.Config, nil); err != nil {
		return nil, userError(err)
	}
	return out, nil
}

// groupKind returns the device kind a group's first description names ("" for a blank
// description, which resolves to the single-device path's error).
func groupKind(g []string) string {
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(g[0]), "modprobe "))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
