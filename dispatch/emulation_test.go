package dispatch

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestEmulatedScalesEveryCost: every CPU time of the table, nested ones included, is
// multiplied; counts and switches are kept. A field added to CPUCosts later is caught
// here (reflection over the struct), so the slowdown cannot silently miss a cost.
func TestEmulatedScalesEveryCost(t *testing.T) {
	base := DefaultCPUCosts()
	got, err := base.Emulated(3)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, b, g reflect.Value)
	walk = func(prefix string, b, g reflect.Value) {
		for i := range b.NumField() {
			name := prefix + b.Type().Field(i).Name
			bf, gf := b.Field(i), g.Field(i)
			switch {
			case bf.Type() == reflect.TypeFor[sim.Time]():
				if gf.Int() != 3*bf.Int() {
					t.Errorf("%s = %d, want 3 × %d", name, gf.Int(), bf.Int())
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
	if f, _ := flat.Emulated(2); f.Transfer.Remote != 2*base.LineRemote || f.Transfer.Self != 2*base.LineLocal {
		t.Errorf("flat transfer costs: %+v, want 2 × the line costs", f.Transfer)
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
