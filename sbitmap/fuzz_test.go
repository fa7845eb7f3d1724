package sbitmap_test

import (
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
)

// FuzzOps decodes a byte string into a configuration and a sequence of operations
// and checks every result against the plain-set model (see model_test.go). Seeds are
// in testdata/fuzz/FuzzOps.
func FuzzOps(f *testing.F) {
	f.Add([]byte{63, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		depth := 1 + int(data[0])%200
		flags := data[1]
		opt := sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}
		opt.Shift = int(flags%8) - 1
		opt.RoundRobin = flags&0x08 != 0
		opt.Kernel.ShallowWholeBitmap = flags&0x10 != 0
		if flags&0x20 != 0 {
			opt.Kernel.WakeScheme = sbitmap.WakeCountdown
		}
		q, err := sbitmap.NewQueue(depth, opt)
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(q, 2)
		// A waiter keeps ws_active non-zero so wake-ups are exercised too.
		w := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) {}}
		if flags&0x40 != 0 {
			q.PrepareWait(w, int(flags>>7))
		}
		for i := 2; i+1 < len(data); i += 2 {
			op, arg := data[i], int(data[i+1])
			h := int(op>>7) & 1
			switch op % 7 {
			case 0, 1:
				m.get(t, h)
			case 2:
				m.put(t, arg, h)
			case 3:
				m.getShallow(t, h, arg%70, opt.Kernel.ShallowWholeBitmap)
			case 4:
				m.batch(t, h, 1+arg%8)
			case 5:
				m.clearBatch(arg, 1+arg%5)
			case 6:
				m.resize(t, 1+arg%depth)
			}
			m.check(t)
		}
		if flags&0x40 != 0 {
			q.FinishWait(w)
		}
		if q.WsActive() != 0 {
			t.Fatalf("ws_active %d after FinishWait", q.WsActive())
		}
	})
}
