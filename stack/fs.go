package stack

import (
	"strings"

	"github.com/blkmq/blkmq/fio"
)

// FSOptions are the behaviours of jobs whose files live on a file system (fio
// directory=, or an absolute filename outside /dev/). The zero value is what v5.17 does
// on XFS. Each field is a policy switch for sensitivity studies, named after the code
// path it models.
type FSOptions struct {
	// BioNowait makes a file-system direct-I/O bio carry REQ_NOWAIT when the submitter
	// asked for IOCB_NOWAIT (io_uring's inline attempt), so that a tag shortage fails the
	// bio with -EAGAIN and io_uring punts the request to io-wq, as it does for a block
	// device file (block/fops.c __blkdev_direct_IO_async sets REQ_NOWAIT from
	// IOCB_NOWAIT). No release does this for file systems: iomap turns IOCB_NOWAIT into
	// IOMAP_NOWAIT for the block mapping only (fs/iomap/direct-io.c __iomap_dio_rw; the
	// bio flags of iomap_dio_bio_iter never include REQ_NOWAIT unless polled), and
	// io_uring's blanket plug->nowait (b63534c41e20, v5.9-rc1) was removed in v5.9-rc7
	// ("io_uring: don't unconditionally set plug->nowait = true"). Default false: the
	// inline submission sleeps in blk_mq_get_tag inside io_uring_enter, in the fio
	// thread, like a libaio submitter.
	BioNowait bool
	// UnwrittenWriteEAGAIN: a NOWAIT direct write that is not a pure overwrite of
	// written blocks fails with -EAGAIN before any bio is built, and io_uring punts it
	// to io-wq, where writes to one regular file are hashed and run one at a time.
	// This is ext4 from v5.8 (fs/ext4/file.c ext4_dio_write_checks: with IOCB_NOWAIT,
	// !ext4_overwrite_io ⇒ -EAGAIN; unwritten extents are not an overwrite) until its
	// 2023 shared-lock rework of unwritten overwrites. fio lays out a write-only job's
	// file with fallocate(mode 0) (fallocate=native, filesetup.c), i.e. unwritten
	// extents, so every write of such a job is punted. XFS writes into unwritten extents
	// without allocating (xfs_direct_write_iomap_begin) and does not punt. Default false
	// (XFS); the source of seed 000 does not name its file system.
	UnwrittenWriteEAGAIN bool
	// NoDIOPlug drops the block plug that iomap holds around each direct I/O
	// (__iomap_dio_rw blk_start_plug/blk_finish_plug): with the plug, a request that
	// finds no budget goes to the tail of hctx->dispatch (blk_mq_plug_issue_direct,
	// bypass insert) instead of the ctx list. Default false (plugged, as the kernel).
	NoDIOPlug bool
}

// fsOptions returns the run's file-system switches (Config.FS).
func (r *runner) fsOptions() FSOptions { return r.cfg.FS }

// onFileSystem reports whether the job's files live on a file system: directory= is
// set, or the first filename is an absolute path outside /dev/. A job with neither
// (fio's file named after the job) is taken to drive the LUN's block device, as the
// model's LUN mapping does.
func onFileSystem(s *fio.Spec) bool {
	if s.Directory != "" {
		return true
	}
	f, _, _ := strings.Cut(s.Filename, ":")
	return strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "/dev/")
}
