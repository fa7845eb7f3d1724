// Package blkmq is the root of a library that models the Linux block layer's tag
// allocation and dispatch: sbitmap and sbitmap_queue (lib/sbitmap.c), blk_mq_tags
// (block/blk-mq-tag.c), SCSI budgets (drivers/scsi/scsi_lib.c), blk-mq software and
// hardware queues and schedulers (block/blk-mq.c, block/blk-mq-sched.c,
// block/mq-deadline.c).
//
// The models live in sub-packages (sbitmap, sim, device, tagset, budget, dispatch,
// stack, fio, bench). This root package only carries the published figures that the
// benchmarks must reproduce (testdata/claims.json) and the source job files the
// scenarios run, so that the command-line tool works wherever it is installed.
package blkmq

import _ "embed"

// ClaimsJSON is the content of testdata/claims.json: the published figures of the
// five source documents, each with its tolerance, in the schema read by
// bench.LoadClaims. It holds expectations only; no model code reads it as an output.
//
//go:embed testdata/claims.json
var ClaimsJSON []byte

// Storvsc000Job is testdata/fio/000_storvsc.fio: the fio job file of source 000
// (storvsc "Hardware queues share blk_mq_tags"), copied verbatim from the mail, as the
// storvsc scenario runs it.
//
//go:embed testdata/fio/000_storvsc.fio
var Storvsc000Job string
