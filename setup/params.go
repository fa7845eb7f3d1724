package setup

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/sim"
)

// paramDef is one modelled module parameter of a device or host kind.
type paramDef struct {
	name    string
	allowed string
	set     func(v string) error
}

// paramSet is the parameters a kind accepts: modelled ones (in display order) and
// inert ones (real module parameters that change nothing the model simulates, such as
// data integrity or INQUIRY strings). Any other name is an error.
type paramSet struct {
	kind     string
	modelled []paramDef
	inert    []string
}

func (p *paramSet) add(name, allowed string, set func(v string) error) {
	p.modelled = append(p.modelled, paramDef{name, allowed, set})
}

func (p *paramSet) intP(name string, lo, hi int, dst *int) {
	p.add(name, fmt.Sprintf("[%d, %d]", lo, hi), func(v string) error {
		n, err := parseInt(v, lo, hi)
		if err == nil {
			*dst = n
		}
		return err
	})
}

func (p *paramSet) boolP(name string, dst *bool) {
	p.add(name, "0, 1", func(v string) error {
		b, err := parseBool(v)
		if err == nil {
			*dst = b
		}
		return err
	})
}

// floatP accepts a number in [lo, hi] scaled by mult into dst.
func (p *paramSet) floatP(name string, lo, hi, mult float64, dst *float64) {
	p.add(name, fmt.Sprintf("[%g, %g]", lo, hi), func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f >= lo && f <= hi) {
			return errRange{fmt.Sprintf("a number in [%g, %g]", lo, hi)}
		}
		*dst = f * mult
		return nil
	})
}

// timeP accepts a number of unit (e.g. sim.Microsecond) in [lo, hi] into dst (ns).
func (p *paramSet) timeP(name string, lo, hi float64, unit sim.Time, dst *sim.Time) {
	p.add(name, fmt.Sprintf("[%g, %g]", lo, hi), func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f >= lo && f <= hi) {
			return errRange{fmt.Sprintf("a number in [%g, %g]", lo, hi)}
		}
		*dst = sim.Time(math.Round(f * float64(unit)))
		return nil
	})
}

func (p *paramSet) int64P(name string, lo, hi float64, mult float64, dst *int64) {
	p.add(name, fmt.Sprintf("[%g, %g]", lo, hi), func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f >= lo && f <= hi) {
			return errRange{fmt.Sprintf("a number in [%g, %g]", lo, hi)}
		}
		*dst = int64(math.Round(f * mult))
		return nil
	})
}

func (p *paramSet) names() []string {
	var out []string
	for _, d := range p.modelled {
		out = append(out, d.name)
	}
	return out
}

// apply sets the parameters of one description. It returns an error naming the
// description, the parameter and the allowed values or names.
func (p *paramSet) apply(pairs [][2]string, s *state, where, src string) error {
	for _, kv := range pairs {
		name, v := kv[0], kv[1]
		if d := p.find(name); d != nil {
			if err := d.set(v); err != nil {
				return fmt.Errorf("%s: %s parameter %s=%s: %w", where, p.kind, name, clip(v), err)
			}
			s.extra = append(s.extra, Setting{Key: p.kind + "." + name, Value: v, Source: src})
			continue
		}
		if p.isInert(name) {
			s.extra = append(s.extra, Setting{Key: p.kind + "." + name, Value: v, Source: src,
				Note: "accepted; no effect in the model"})
			continue
		}
		return fmt.Errorf("%s: unknown %s parameter %q; allowed: %s", where, p.kind, clip(name), strings.Join(p.names(), ", "))
	}
	return nil
}

func (p *paramSet) find(name string) *paramDef {
	for i := range p.modelled {
		if p.modelled[i].name == name {
			return &p.modelled[i]
		}
	}
	return nil
}

func (p *paramSet) isInert(name string) bool {
	for _, n := range p.inert {
		if n == name {
			return true
		}
	}
	return false
}

// repeatedParams returns a warning for each parameter that pairs give more than
// once: the kernel's parse_args (kernel/params.c) sets each key=value in turn, so
// the last one wins, as it does here; a value given twice is more often a typo
// than meant.
func repeatedParams(kind string, pairs [][2]string, where string) []string {
	var out []string
	seen := map[string][]string{}
	var order []string
	for _, p := range pairs {
		if _, ok := seen[p[0]]; !ok {
			order = append(order, p[0])
		}
		seen[p[0]] = append(seen[p[0]], p[1])
	}
	for _, k := range order {
		if vs := seen[k]; len(vs) > 1 {
			out = append(out, fmt.Sprintf("%s: %s %s given %d times (%s): the last, %s=%s, wins, as the kernel's parse_args sets each in turn",
				where, kind, k, len(vs), strings.Join(vs, ", then "), k, vs[len(vs)-1]))
		}
	}
	return out
}

// splitDescription splits "KIND k=v k=v ..." (an optional leading "modprobe" and
// "KIND." prefixes on the names are accepted) into the kind and its pairs.
func splitDescription(desc, where string) (string, [][2]string, error) {
	f := strings.Fields(desc)
	if len(f) > 0 && f[0] == "modprobe" {
		f = f[1:]
	}
	if len(f) == 0 {
		return "", nil, fmt.Errorf("%s: empty description; want KIND key=value ... (e.g. \"null_blk completion_nsec=200000 irqmode=2\")", where)
	}
	kind := f[0]
	var pairs [][2]string
	for _, a := range f[1:] {
		k, v, ok := strings.Cut(a, "=")
		k = strings.TrimPrefix(k, kind+".")
		if !ok || k == "" {
			return "", nil, fmt.Errorf("%s: %q: want key=value", where, clip(a))
		}
		pairs = append(pairs, [2]string{k, v})
	}
	return kind, pairs, nil
}
