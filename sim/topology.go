package sim

import "fmt"

// Distance is how far apart two CPUs are in the cache hierarchy, nearest first.
type Distance int

const (
	// DistSelf: the same CPU (the line is in its own L1/L2).
	DistSelf Distance = iota
	// DistSMT: another hardware thread of the same core (shared L1/L2).
	DistSMT
	// DistNode: another core of the same NUMA node (the line moves through the shared
	// last-level cache).
	DistNode
	// DistSocket: another NUMA node of the same socket (sub-NUMA clustering).
	DistSocket
	// DistRemote: a core on another socket (the line crosses the socket interconnect).
	DistRemote
)

// String returns the distance's name.
func (d Distance) String() string {
	switch d {
	case DistSelf:
		return "self"
	case DistSMT:
		return "smt"
	case DistNode:
		return "node"
	case DistSocket:
		return "socket"
	case DistRemote:
		return "remote"
	}
	return fmt.Sprintf("Distance(%d)", int(d))
}

// TransferCosts are the latencies (ns) of moving a cache line that another CPU holds
// modified to the requesting CPU, by distance: the cost of a load or an atomic
// read-modify-write on a line another CPU wrote last. Self is the cost when the
// requesting CPU already owns the line (an L1 hit plus the locked instruction).
type TransferCosts struct {
	Self, SMT, Node, Socket, Remote Time
}

// At returns the cost at distance d.
func (c TransferCosts) At(d Distance) Time {
	switch d {
	case DistSelf:
		return c.Self
	case DistSMT:
		return c.SMT
	case DistNode:
		return c.Node
	case DistSocket:
		return c.Socket
	}
	return c.Remote
}

// Topology is a machine's CPU layout: sockets of cores of hardware threads, each socket
// split into NUMA nodes, and the cost of moving a line by distance. CPU ids follow the
// x86 Linux enumeration: ids 0 … Sockets×CoresPerSocket−1 are the first thread of each
// core, socket by socket; the next block is every core's second thread, and so on (as
// lscpu shows "NUMA node0 CPU(s): 0-25,52-77" on a 2×26-core SMT-2 machine).
type Topology struct {
	Sockets, CoresPerSocket, ThreadsPerCore int
	// NodesPerSocket is the number of NUMA nodes per socket (sub-NUMA clustering); 0
	// means 1. It must divide CoresPerSocket.
	NodesPerSocket int
	Costs          TransferCosts
}

// Validate returns an error naming a field out of range.
func (t Topology) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Sockets", t.Sockets}, {"CoresPerSocket", t.CoresPerSocket}, {"ThreadsPerCore", t.ThreadsPerCore}} {
		if f.v < 1 || f.v > 4096 {
			return fmt.Errorf("sim: topology %s %d out of range [1, 4096]", f.name, f.v)
		}
	}
	if n := t.nodes(); n < 1 || n > t.CoresPerSocket || t.CoresPerSocket%n != 0 {
		return fmt.Errorf("sim: topology NodesPerSocket %d must divide CoresPerSocket %d", t.NodesPerSocket, t.CoresPerSocket)
	}
	c := t.Costs
	for _, v := range []Time{c.Self, c.SMT, c.Node, c.Socket, c.Remote} {
		if v < 0 || v > Millisecond {
			return fmt.Errorf("sim: topology transfer cost %v out of range [0, 1ms]", v)
		}
	}
	return nil
}

func (t Topology) nodes() int {
	if t.NodesPerSocket == 0 {
		return 1
	}
	return t.NodesPerSocket
}

// NrCPUs returns the number of hardware threads.
func (t Topology) NrCPUs() int { return t.Sockets * t.CoresPerSocket * t.ThreadsPerCore }

// Core returns the physical core (0 … Sockets×CoresPerSocket−1) of cpu.
func (t Topology) Core(cpu int) int { return cpu % (t.Sockets * t.CoresPerSocket) }

// Socket returns cpu's socket.
func (t Topology) Socket(cpu int) int { return t.Core(cpu) / t.CoresPerSocket }

// Node returns cpu's NUMA node (socket-major).
func (t Topology) Node(cpu int) int {
	per := t.CoresPerSocket / t.nodes()
	return t.Core(cpu) / per
}

// Distance returns how far apart CPUs a and b are.
func (t Topology) Distance(a, b int) Distance { return t.distance(a, b) }

// distance is Distance through a pointer: the contention model calls it on the path of
// every modelled atomic operation, where the value receiver's copy of the Topology
// (twelve words) cost as much as the arithmetic.
func (t *Topology) distance(a, b int) Distance {
	if a == b {
		return DistSelf
	}
	// Core, then Node, then Socket of both CPUs, with each core computed once.
	n := t.Sockets * t.CoresPerSocket
	ca, cb := a, b
	if ca >= n || cb >= n {
		ca, cb = ca%n, cb%n
	}
	if ca == cb {
		return DistSMT
	}
	if t.Sockets == 1 && t.NodesPerSocket <= 1 {
		return DistNode // one node: every other core shares it
	}
	if per := t.CoresPerSocket / t.nodes(); ca/per == cb/per {
		return DistNode
	}
	if ca/t.CoresPerSocket == cb/t.CoresPerSocket {
		return DistSocket
	}
	return DistRemote
}

// Transfer returns the cost (ns) for cpu to, to obtain a line that cpu from holds
// modified; from < 0 (nobody holds it) costs Self.
func (t Topology) Transfer(from, to int) Time { return t.transfer(from, to) }

// Flat returns a one-socket topology of n single-thread cores where a remote line costs
// remote and an owned one local (the model of SharedLine).
func Flat(n int, local, remote Time) Topology {
	return Topology{Sockets: 1, CoresPerSocket: max(n, 1), ThreadsPerCore: 1,
		Costs: TransferCosts{Self: local, SMT: remote, Node: remote, Socket: remote, Remote: remote}}
}
