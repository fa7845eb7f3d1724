package fio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// DiskUtil is one disk's entry of fio's disk utilization report (diskutil.c): the
// change of the disk's /sys/block/NAME/stat counters over the run, read and write
// apart. It is the top-level "disk_util" array of the JSON output (keys and order as
// fio 3.33 writes them, stat.c json_disk_util) and the "Disk stats (read/write):"
// block of the normal output.
type DiskUtil struct {
	// Name is the disk's kernel name without /dev/ (sdb, nullb0, nvme0n1).
	Name string `json:"name"`
	// ReadIOs and WriteIOs are the requests completed (not fio's I/Os: a split
	// I/O is several requests, merged bios are one).
	ReadIOs  uint64 `json:"read_ios"`
	WriteIOs uint64 `json:"write_ios"`
	// ReadSectors and WriteSectors are 512-byte sectors completed.
	ReadSectors  uint64 `json:"read_sectors"`
	WriteSectors uint64 `json:"write_sectors"`
	// ReadMerges and WriteMerges are bios merged into requests (and requests
	// merged into others).
	ReadMerges  uint64 `json:"read_merges"`
	WriteMerges uint64 `json:"write_merges"`
	// ReadTicks and WriteTicks are the requests' summed time from allocation to
	// completion, ms; InQueue is their sum (time_in_queue), ms.
	ReadTicks  uint64 `json:"read_ticks"`
	WriteTicks uint64 `json:"write_ticks"`
	InQueue    uint64 `json:"in_queue"`
	// Util is io_ticks over the elapsed time, in percent, at most 100.
	Util float64 `json:"util"`
}

// DiskCounters are a disk's counters as the kernel keeps them (index 0 read, 1
// write), the input of NewDiskUtil.
type DiskCounters struct {
	IOs, Merges, Sectors [2]uint64
	// Ticks are per-direction request times and IOTicks the disk's io_ticks.
	Ticks   [2]time.Duration
	IOTicks time.Duration
}

// NewDiskUtil returns fio's entry for a disk named name (a leading /dev/ is
// dropped) whose counters changed by c over elapsed: ticks in whole ms as
// /sys/block/NAME/stat shows them (time_in_queue is the ms of the summed ticks),
// util = 100 × io_ticks / elapsed, capped at 100 as fio caps it (diskutil.c
// print_disk_util). elapsed <= 0 gives util 0.
func NewDiskUtil(name string, c DiskCounters, elapsed time.Duration) DiskUtil {
	d := DiskUtil{Name: strings.TrimPrefix(name, "/dev/"),
		ReadIOs: c.IOs[0], WriteIOs: c.IOs[1], ReadSectors: c.Sectors[0], WriteSectors: c.Sectors[1],
		ReadMerges: c.Merges[0], WriteMerges: c.Merges[1],
		ReadTicks: uint64(c.Ticks[0].Milliseconds()), WriteTicks: uint64(c.Ticks[1].Milliseconds()),
		InQueue: uint64((c.Ticks[0] + c.Ticks[1]).Milliseconds())}
	if elapsed > 0 {
		d.Util = min(100*float64(c.IOTicks)/float64(elapsed), 100)
	}
	return d
}

// diskUtilJSON returns the entries as Output.DiskUtil's raw messages.
func diskUtilJSON(ds []DiskUtil) []json.RawMessage {
	var out []json.RawMessage
	for _, d := range ds {
		b, err := json.Marshal(d)
		if err == nil {
			out = append(out, b)
		}
	}
	return out
}

// writeDiskUtilText writes fio's "Disk stats (read/write):" block (stat.c
// show_disk_util, diskutil.c print_disk_util).
func writeDiskUtilText(w *bufio.Writer, ds []DiskUtil) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDisk stats (read/write):\n")
	for _, d := range ds {
		fmt.Fprintf(w, "  %s: ios=%d/%d, sectors=%d/%d, merge=%d/%d, ticks=%d/%d, in_queue=%d, util=%3.2f%%\n",
			d.Name, d.ReadIOs, d.WriteIOs, d.ReadSectors, d.WriteSectors, d.ReadMerges, d.WriteMerges,
			d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
	}
}
