package bench

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/legacy"
	"github.com/blkmq/blkmq/sim"
)

// The legacy column of seed 002 ("DEADLINE", v4.13 with scsi_mod.use_blk_mq=0): one
// request queue with the deadline elevator (package legacy) in front of the same
// SRP002Params target, driven by the same 64 libaio jobs. package stack drives
// only blk-mq queues, so this file has its own small fio libaio submitter with the
// same rules as stack's (sequential or uniform random offsets in a 1 GiB region per
// job, one iocb per io_submit, the reap delay of stack.SubmitTiming's defaults).
//
// CPU: the legacy path pays by the blk-mq columns' table (dispatch.DefaultCPUCosts):
// per bio Submit + BioAlloc on the job's CPU before the submission, and EndBio at its
// completion; per started command HostCheck + Insert + Elevator + Dispatch + QueueRq +
// TagGet + TagPut + Completion, charged with the next completion on the completing
// job's CPU (rq_affinity: completions run on the submitting CPU). The reap waits for
// that work. Not modelled: the queue_lock every legacy step takes (contention across
// the 16 CPUs) and ib_srp's single channel in non-mq mode.
//
// Legacy limits (v4.13): nr_requests 128 per sync/async pool (BLKDEV_MAX_RQ);
// queue_depth and the shared tag map = can_queue = 62 (ib_srp); max_segments 12
// (ib_srp sg_tablesize), one segment per 4 KiB bio; max_sectors 512 KiB; deadline
// with default parameters; io_submit always plugs before v5.1.

// scsiMQLegacyReapMin/Max are stack.SubmitTiming's default reap delays (a task
// wake-up; assumption stated there).
const (
	scsiMQLegacyReapMin = 5 * sim.Microsecond
	scsiMQLegacyReapMax = 30 * sim.Microsecond
	scsiMQRegionBytes   = 1 << 30
)

// RunSCSIMQLegacy runs the legacy DEADLINE column for rw (one of SCSIMQRWs).
func RunSCSIMQLegacy(rw string, seed uint64) (*SCSIMQFigures, error) {
	return runSCSIMQLegacy(rw, seed, nil)
}

func runSCSIMQLegacy(rw string, seed uint64, sc Scale) (*SCSIMQFigures, error) {
	specs, err := SCSIMQJob(rw)
	if err != nil {
		return nil, err
	}
	eng := sim.NewEngine()
	dev, err := device.NewSSD(eng, srp002Scaled(sc))
	if err != nil {
		return nil, err
	}
	q, err := legacy.New(eng, dev, legacy.Config{QueueDepth: SCSIMQCanQueue, MaxSegments: 12})
	if err != nil {
		return nil, err
	}
	r := &legacyRun{eng: eng, q: q, rnd: sim.NewRand(seed ^ 0x5c5122 ^ sc.jitterSeed()<<32), cpus: make([]*sim.CPU, SCSIMQCPUs)}
	for i := range r.cpus {
		r.cpus[i] = sim.NewCPU(i)
	}
	c := scaleCPUPath(dispatch.DefaultCPUCosts(), sc)
	r.submitCost = c.Submit + c.BioAlloc
	r.endBioCost = c.EndBio
	r.perCmdCost = c.HostCheck + c.Insert + c.Elevator + c.Dispatch + c.QueueRq + c.TagGet + c.TagPut + c.Completion
	var end sim.Time
	for i, s := range specs {
		if s.IOEngine != fio.EngineLibaio || s.BlockSize <= 0 {
			return nil, fmt.Errorf("bench: scsi-mq legacy: job %s: want ioengine=libaio and bs > 0", s.Instance())
		}
		j := &legacyJob{r: r, spec: s, cpu: i % SCSIMQCPUs, region: int64(i) * scsiMQRegionBytes}
		j.stopAt = sim.Time(s.Runtime.Nanoseconds())
		end = max(end, j.stopAt)
		j.ios = make([]legacyIO, s.EffectiveIODepth)
		for k := range j.ios {
			j.ios[k].j = j
			j.free = append(j.free, &j.ios[k])
		}
		j.fillEv.j, j.reapEv.j = j, j
		r.jobs = append(r.jobs, j)
		eng.At(0, &j.fillEv)
	}
	eng.RunUntil(end)
	f := &SCSIMQFigures{}
	for _, j := range r.jobs {
		f.IOPS += float64(j.done) / (float64(j.stopAt) / 1e9)
	}
	st := q.Stats()
	if n := st.ReadCmds + st.WriteCmds; n > 0 {
		f.MeanRequestBytes = float64(st.ReadCmdBytes+st.WriteCmdBytes) / float64(n)
	}
	return f, nil
}

// legacyRun is one legacy cell: the queue, the CPUs the jobs run on, the jobs.
type legacyRun struct {
	eng        *sim.Engine
	q          *legacy.Queue
	rnd        *sim.Rand
	cpus       []*sim.CPU
	submitCost sim.Time
	endBioCost sim.Time // per completed bio
	perCmdCost sim.Time // per started command
	cmdsPaid   uint64   // started commands whose cost was charged
	jobs       []*legacyJob
}

// legacyJob is one fio libaio job: iodepth I/Os, one io_submit per I/O.
type legacyJob struct {
	r       *legacyRun
	spec    fio.Spec
	cpu     int
	region  int64
	seqNext int64
	stopAt  sim.Time

	ios      []legacyIO
	free     []*legacyIO
	cq       []*legacyIO
	blocked  *legacyIO // asleep in get_request with this I/O
	fillEv   legacyFill
	reapEv   legacyReap
	fillPend bool
	reapPend bool
	done     uint64 // I/Os completed inside the runtime
}

type legacyIO struct {
	j   *legacyJob
	bio legacy.Bio
}

// EndIO is the aio completion: the event is posted and the job reaps after its
// wake-up delay.
func (u *legacyIO) EndIO(_ *legacy.Bio, now sim.Time) {
	j := u.j
	if now <= j.stopAt {
		j.done++
	}
	j.cq = append(j.cq, u)
	r := j.r
	st := r.q.Stats()
	started := st.ReadCmds + st.WriteCmds
	cost := r.endBioCost + sim.Time(started-r.cmdsPaid)*r.perCmdCost
	r.cmdsPaid = started
	done := r.cpus[j.cpu].Exec(now, cost)
	if !j.reapPend {
		j.reapPend = true
		r.eng.At(done+r.rnd.Uniform(scsiMQLegacyReapMin, scsiMQLegacyReapMax), &j.reapEv)
	}
}

type legacyReap struct{ j *legacyJob }

// Fire reaps every posted completion and refills.
func (e *legacyReap) Fire(now sim.Time) {
	j := e.j
	j.reapPend = false
	j.free = append(j.free, j.cq...)
	clear(j.cq)
	j.cq = j.cq[:0]
	j.fill(now)
}

type legacyFill struct{ j *legacyJob }

// Fire continues the job's submission loop (after its CPU finished earlier work, or
// when a request was freed for the sleeping job).
func (e *legacyFill) Fire(now sim.Time) {
	e.j.fillPend = false
	e.j.fill(now)
}

// fill is fio's submission loop: while an io_u is free and the runtime lasts, one
// io_submit of one iocb (a plugged submission, as io_submit always plugs before
// v5.1), each starting when the job's CPU finished the previous one.
func (j *legacyJob) fill(now sim.Time) {
	r := j.r
	for now < j.stopAt && (j.blocked != nil || len(j.free) > 0) {
		cpu := r.cpus[j.cpu]
		if t := cpu.FreeAt(); t > now {
			if !j.fillPend {
				j.fillPend = true
				r.eng.At(t, &j.fillEv)
			}
			return
		}
		u := j.blocked
		if u == nil {
			u = j.free[len(j.free)-1]
			j.free = j.free[:len(j.free)-1]
			j.prep(u)
		}
		cpu.Exec(now, r.submitCost)
		plug := r.q.StartPlug()
		if r.q.SubmitBio(&u.bio, plug) {
			j.blocked = u
			r.q.WaitRequest(true, &j.fillEv)
			j.fillPend = true
			return
		}
		plug.Finish()
		j.blocked = nil
	}
}

// prep sets the next offset: sequential in the job's region, or uniform random.
func (j *legacyJob) prep(u *legacyIO) {
	s := &j.spec
	op := device.OpRead
	if s.RW.Writes() {
		op = device.OpWrite
	}
	var off int64
	if s.RW.Random() {
		off = j.r.rnd.Int64N(scsiMQRegionBytes/s.BlockSize) * s.BlockSize
	} else {
		if j.seqNext+s.BlockSize > scsiMQRegionBytes {
			j.seqNext = 0
		}
		off = j.seqNext
		j.seqNext += s.BlockSize
	}
	u.bio = legacy.Bio{Op: op, Sync: s.Direct, Offset: j.region + off, Length: s.BlockSize, Segments: 1, End: u}
}
