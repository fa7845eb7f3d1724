package blkmq

import "embed"

// JobFiles holds testdata/fio: the fio job files of the source documents, as the
// claim scenarios run them (package bench reads them from here, so an installed
// binary runs every scenario from any directory). Paths are "testdata/fio/NAME.fio".
//
//go:embed testdata/fio/*.fio
var JobFiles embed.FS
