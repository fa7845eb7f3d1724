package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Description is a machine described the way engineers describe it: a kernel
// release, the CPU count, a host and devices in module-parameter style, and
// sysfs-style settings. It is also the layout of a --config TOML file:
//
//	kernel  = "5.17"
//	cpus    = 16
//	host    = "storvsc"
//	devices = ["cloud iops=5000 mbps=200"]
//	set     = ["queue/nr_requests=56", "device/queue_depth=15"]
type Description struct {
	// Kernel is the release "MAJOR.MINOR" in [4.15, 6.19] (uname -r forms such as
	// "6.1.0-57-amd64" count as their MAJOR.MINOR) or "current"; "" = not set.
	Kernel string `toml:"kernel,omitempty"`
	// CPUs is system/nr_cpus, [1, 4096]; 0 = not set (DefaultCPUs). In a --config
	// file the key is absent when not set: "cpus = 0" is an error, as --cpus 0 is;
	// a negative value is an error everywhere.
	CPUs int `toml:"cpus,omitempty,omitzero"`
	// Host is "KIND key=value ..." with KIND storvsc or generic; "" = the device
	// kind's default host (a driver kind such as scsi_debug is its own host).
	Host string `toml:"host,omitempty"`
	// Devices are "KIND key=value ..." descriptions, one LUN each (a driver kind
	// may create several: max_luns, nr_devices). KIND: scsi_debug, null_blk, cloud,
	// ssd, hdd. Empty = DefaultDevice.
	Devices []string `toml:"devices,omitempty"`
	// Set are "key=value" assignments of Keys (e.g. "queue/nr_requests=56"). A key
	// given twice with different values (tags= counts as host/host_tagset) is an
	// error of ResolveLayers naming both; a later Layer overrides an earlier one.
	Set []string `toml:"set,omitempty"`
}

// MaxConfigBytes caps a --config file.
const MaxConfigBytes = 1 << 20

// LoadConfig reads a TOML description from path and returns it as a Layer named
// "config PATH". Errors name the file, the line when known, and the unknown key
// with the allowed ones.
func LoadConfig(path string) (Layer, error) {
	// read at most one byte past the cap: os.ReadFile read a 200 MB file (and
	// /dev/zero without end) before the size was checked
	f, err := os.Open(path)
	if err != nil {
		return Layer{}, fmt.Errorf("setup: config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return Layer{}, fmt.Errorf("setup: config: %w", err)
	}
	if len(data) > MaxConfigBytes {
		return Layer{}, fmt.Errorf("setup: config %s: larger than %d bytes", path, MaxConfigBytes)
	}
	return ParseConfig(data, path)
}

// ParseConfig parses TOML text as LoadConfig does; name is used in errors.
func ParseConfig(data []byte, name string) (Layer, error) {
	var d Description
	md, err := toml.Decode(string(data), &d)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			if k := keyOnLine(data, pe.Position.Line); k == "cpus" && strings.Contains(pe.Message, "out of range") {
				// "99999999999999999999 is out of range for int64" named neither
				// the key nor its range
				return Layer{}, fmt.Errorf("setup: config %s:%d: cpus: %s; allowed: an integer in [1, 4096]", name, pe.Position.Line, pe.Message)
			}
			return Layer{}, fmt.Errorf("setup: config %s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		if te := typeError(data, name); te != nil {
			return Layer{}, te
		}
		return Layer{}, fmt.Errorf("setup: config %s: %v (allowed keys: kernel, cpus, host, devices, set)", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return Layer{}, fmt.Errorf("setup: config %s:%d: unknown key %q; allowed: kernel, cpus, host, devices, set",
			name, lineOf(data, und[0][0]), clip(k))
	}
	// A key given with the value that means "not set" in Description (cpus = 0,
	// kernel = "", host = "", devices = []) would silently mean the default: an error,
	// as --cpus 0 is. Omit the key for the default.
	for _, z := range []struct {
		key     string
		zero    bool
		allowed string
	}{
		{"cpus", d.CPUs == 0, "an integer in [1, 4096]"},
		{"kernel", d.Kernel == "", `MAJOR.MINOR in [4.15, 6.19] or "current"`},
		{"host", d.Host == "", `"KIND key=value ..." (storvsc, generic)`},
		{"devices", len(d.Devices) == 0, `at least one "KIND key=value ..."`},
	} {
		if z.zero && md.IsDefined(z.key) {
			return Layer{}, fmt.Errorf("setup: config %s:%d: %s: allowed: %s; omit the key for the default", name, keyLine(data, z.key), z.key, z.allowed)
		}
	}
	l := Layer{Name: "config " + name, Desc: d, Lines: map[string]int{}, KeyLines: map[string]int{}}
	for _, a := range d.Set {
		l.Lines[a] = lineOf(data, a)
	}
	for _, k := range []string{"kernel", "cpus", "host", "devices"} {
		if md.IsDefined(k) {
			l.KeyLines[k] = keyLine(data, k)
		}
	}
	if len(d.Devices) > 0 {
		l.DeviceLines = entryLines(data, keyLine(data, "devices"), d.Devices)
	}
	return l, nil
}

// entryLines returns the 1-based line of each of the array entries, searched in order
// from the start of line from (the array's key line): each entry is looked for after
// the previous one, so equal entries get their own lines. An entry not found (an
// escape the text spells differently) gets the line of the one before it.
func entryLines(data []byte, from int, entries []string) []int {
	off := 0
	for n := 1; n < from && off < len(data); n++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	lines := make([]int, len(entries))
	line := from
	for i, e := range entries {
		if j := bytes.Index(data[off:], []byte(e)); j >= 0 && e != "" {
			line = bytes.Count(data[:off+j], []byte("\n")) + 1
			off += j + len(e)
		}
		lines[i] = line
	}
	return lines
}

// keyLine returns the 1-based line of the "key = value" line of a top-level key,
// else of the key's first occurrence (lineOf).
func keyLine(data []byte, key string) int {
	for n, l := range strings.Split(string(data), "\n") {
		k, _, ok := strings.Cut(l, "=")
		if ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return n + 1
		}
	}
	return lineOf(data, key)
}

// typeError explains a value of the wrong TOML type (kernel = 5.17, cpus = "4",
// devices = "ssd"), which the decoder reports only as Go types: it names the key and
// its line and shows the accepted spelling. nil when no known key has a wrong type.
// keyOnLine returns the key of a "key = value" line (1-based), or "".
func keyOnLine(data []byte, line int) string {
	for n, l := range strings.Split(string(data), "\n") {
		if n+1 == line {
			k, _, ok := strings.Cut(l, "=")
			if ok {
				return strings.TrimSpace(k)
			}
		}
	}
	return ""
}

func typeError(data []byte, name string) error {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil
	}
	isStrings := func(v any) bool {
		a, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range a {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	}
	for _, k := range []string{"kernel", "cpus", "host", "devices", "set"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		line := lineOf(data, k)
		raw := rawValue(data, line)
		var msg string
		switch k {
		case "kernel", "host":
			if _, ok := v.(string); ok {
				continue
			}
			msg = fmt.Sprintf("a TOML %s, want a string: quote it (%s = %q)", tomlType(v), k, raw)
		case "cpus":
			if _, ok := v.(int64); ok {
				continue
			}
			msg = fmt.Sprintf("a TOML %s, want an integer in [1, 4096] without quotes (cpus = %s)", tomlType(v), strings.Trim(raw, `"'`))
		case "devices", "set":
			if isStrings(v) {
				continue
			}
			ex := `["ssd"]`
			if k == "set" {
				ex = `["queue/nr_requests=56"]`
			}
			if _, ok := v.(string); ok {
				ex = "[" + raw + "]"
			}
			msg = fmt.Sprintf("a TOML %s, want an array of quoted strings (%s = %s)", tomlType(v), k, ex)
		}
		return fmt.Errorf("setup: config %s:%d: %s: %s", name, line, k, msg)
	}
	return nil
}

// tomlType names the TOML type of a decoded value.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return "date/time"
}

// rawValue returns the text after '=' on the 1-based line of data, without a
// trailing comment, trimmed.
func rawValue(data []byte, line int) string {
	ls := strings.Split(string(data), "\n")
	if line < 1 || line > len(ls) {
		return ""
	}
	l := ls[line-1]
	if i := strings.IndexByte(l, '='); i >= 0 {
		l = l[i+1:]
	}
	if i := strings.IndexByte(l, '#'); i >= 0 && !strings.ContainsAny(l[:i], `"'`) {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

// lineOf returns the 1-based line of the first occurrence of s in data (1 if absent).
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// EncodeTOML returns the description as a --config file.
func (d Description) EncodeTOML() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# blkmq machine description (blkmq run --config)\n")
	if err := toml.NewEncoder(&b).Encode(d); err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	return b.Bytes(), nil
}

// String returns the description as command-line flags.
func (d Description) String() string {
	var f []string
	if d.Kernel != "" {
		f = append(f, "--kernel "+d.Kernel)
	}
	if d.CPUs != 0 {
		f = append(f, "--cpus "+strconv.Itoa(d.CPUs))
	}
	if d.Host != "" {
		f = append(f, "--host "+strconv.Quote(d.Host))
	}
	for _, dv := range d.Devices {
		f = append(f, "--device "+strconv.Quote(dv))
	}
	for _, a := range d.Set {
		f = append(f, "--set "+a)
	}
	return strings.Join(f, " ")
}
