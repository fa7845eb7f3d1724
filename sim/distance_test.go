package sim

import "testing"

// TestDistanceMatchesDefinition checks Distance against its definition from Core, Node
// and Socket on several layouts, for every pair of CPUs.
func TestDistanceMatchesDefinition(t *testing.T) {
	ref := func(t Topology, a, b int) Distance {
		switch {
		case a == b:
			return DistSelf
		case t.Core(a) == t.Core(b):
			return DistSMT
		case t.Node(a) == t.Node(b):
			return DistNode
		case t.Socket(a) == t.Socket(b):
			return DistSocket
		}
		return DistRemote
	}
	for _, tp := range []Topology{
		{Sockets: 1, CoresPerSocket: 16, ThreadsPerCore: 1},
		{Sockets: 1, CoresPerSocket: 8, ThreadsPerCore: 2},
		{Sockets: 1, CoresPerSocket: 8, ThreadsPerCore: 1, NodesPerSocket: 1},
		{Sockets: 2, CoresPerSocket: 26, ThreadsPerCore: 2},
		{Sockets: 2, CoresPerSocket: 12, ThreadsPerCore: 2, NodesPerSocket: 2},
		{Sockets: 4, CoresPerSocket: 3, ThreadsPerCore: 1, NodesPerSocket: 3},
		{Sockets: 1, CoresPerSocket: 6, ThreadsPerCore: 4, NodesPerSocket: 2},
		{Sockets: 64, CoresPerSocket: 16, ThreadsPerCore: 1},
	} {
		for a := range tp.NrCPUs() {
			for b := range tp.NrCPUs() {
				if got, want := tp.Distance(a, b), ref(tp, a, b); got != want {
					t.Fatalf("%+v: Distance(%d, %d) = %v, want %v", tp, a, b, got, want)
				}
			}
		}
	}
}
