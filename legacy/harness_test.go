package legacy

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// holdDev accepts every command and keeps it until the test completes it.
type holdDev struct {
	eng  *sim.Engine
	cmds []*device.Command
}

func (d *holdDev) Submit(c *device.Command) device.Status {
	c.Submitted = d.eng.Now()
	d.cmds = append(d.cmds, c)
	return device.Accepted
}
func (d *holdDev) Name() string  { return "hold" }
func (d *holdDev) InFlight() int { return len(d.cmds) }

// complete finishes the i-th held command and runs the engine until idle.
func (d *holdDev) complete(i int) {
	c := d.cmds[i]
	d.cmds = append(d.cmds[:i], d.cmds[i+1:]...)
	c.Done.Complete(c, d.eng.Now())
	d.eng.Run()
}

type nopEnd struct{ n int }

func (e *nopEnd) EndIO(*Bio, sim.Time) { e.n++ }

func newTestQueue(cfg Config) (*Queue, *holdDev, *sim.Engine) {
	eng := sim.NewEngine()
	d := &holdDev{eng: eng}
	q, err := New(eng, d, cfg)
	if err != nil {
		panic(err)
	}
	return q, d, eng
}

func bio(op device.Op, sync bool, off, n int64, end BioEndIO) *Bio {
	return &Bio{Op: op, Sync: sync, Offset: off, Length: n, Segments: int((n + 4095) / 4096), End: end}
}

type cmdView struct {
	Op     device.Op
	Sync   bool
	Offset int64
	Length int64
	Tag    int
}

func (d *holdDev) view() []cmdView {
	var out []cmdView
	for _, c := range d.cmds {
		rq := c.Priv.(*Request)
		out = append(out, cmdView{c.Op, c.Sync, c.Offset, c.Length, rq.tag})
	}
	return out
}
