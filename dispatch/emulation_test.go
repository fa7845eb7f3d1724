package dispatch

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestEmulatedScalesEveryCost: every CPU time of the table, nested ones included, is
// multiplied, except the part of a line transfer beyond an owned line's access, which
// is the host's coherence traffic under MTTCG and is kept; counts and switches are
// kept. A field added to CPUCosts later is caught here (reflection over the struct),
// so the slowdown cannot silently miss a cost.
func TestEmulatedScalesEveryCost(t *testing.T) {
	base := DefaultCPUCosts()
	got, err := base.Emulated(3)
	if err != nil {
		t.Fatal(err)
	}
	// moved lines: the owned access ×3, the move itself unchanged
	want := map[string]int64{
		"LineRemote":      3*int64(base.LineLocal) + int64(base.LineRemote-base.LineLocal),
		"Transfer.SMT":    3*int64(base.Transfer.Self) + int64(base.Transfer.SMT-base.Transfer.Self),
		"Transfer.Node":   3*int64(base.Transfer.Self) + int64(base.Transfer.Node-base.Transfer.Self),
		"Transfer.Socket": 3*int64(base.Transfer.Self) + int64(base.Transfer.Socket-base.Transfer.Self),
		"Transfer.Remote": 3*int64(base.Transfer.Self) + int64(base.Transfer.Remote-base.Transfer.Self),
	}
	var walk func(prefix string, b, g reflect.Value)
	walk = func(prefix string, b, g reflect.Value) {
		for i := range b.NumField() {
			name := prefix + b.Type().Field(i).Name
			bf, gf := b.Field(i), g.Field(i)
			switch {
			case bf.Type() == reflect.TypeFor[sim.Time]():
				w, ok := want[name]
				if !ok {
					w = 3 * bf.Int()
				}
				if gf.Int() != w {
					t.Errorf("%s = %d, want %d (native %d)", name, gf.Int(), w, bf.Int())
				}
			case bf.Kind() == reflect.Struct:
				walk(name+".", bf, gf)
			default:
				if !reflect.DeepEqual(bf.Interface(), gf.Interface()) {
					t.Errorf("%s = %v, want it unchanged (%v)", name, gf.Interface(), bf.Interface())
				}
			}
		}
	}
	walk("", reflect.ValueOf(base), reflect.ValueOf(got))
	if z, _ := (CPUCosts{}).Emulated(2); z.Submit != 2*base.Submit {
		t.Errorf("zero table: Submit %v, want twice the default %v", z.Submit, base.Submit)
	}
	flat := base
	flat.Transfer = sim.TransferCosts{}
	f, _ := flat.Emulated(2)
	if wr := 2*base.LineLocal + base.LineRemote - base.LineLocal; f.Transfer.Remote != wr || f.Transfer.Self != 2*base.LineLocal {
		t.Errorf("flat transfer costs: %+v, want Self %v, the others %v", f.Transfer, 2*base.LineLocal, wr)
	}
}

func TestEmulatedRange(t *testing.T) {
	for _, f := range []float64{0, 0.5, MaxEmulationSlowdown + 1} {
		if _, err := DefaultCPUCosts().Emulated(f); err == nil || !strings.Contains(err.Error(), "out of range [1, 1000]") {
			t.Errorf("Emulated(%v): error %v, want out of range", f, err)
		}
	}
	c, err := DefaultCPUCosts().Emulated(MaxEmulationSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	if err := (CPUModel{Costs: c}).validate(); err != nil {
		t.Errorf("the largest slowdown gives an invalid table: %v", err)
	}
}
