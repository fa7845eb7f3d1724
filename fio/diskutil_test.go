package fio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// jsonKeys returns the keys of a JSON object in their order.
func jsonKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestDiskUtilKeysAsFio: the entry has fio 3.33's keys in fio's order (the sample
// is real fio output).
func TestDiskUtilKeysAsFio(t *testing.T) {
	data, err := os.ReadFile("../testdata/fiojson/fio-3.33-randread-libaio.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample Output
	if err := json.Unmarshal(data, &sample); err != nil {
		t.Fatal(err)
	}
	if len(sample.DiskUtil) == 0 {
		t.Fatal("sample has no disk_util")
	}
	want := jsonKeys(t, sample.DiskUtil[0])
	got := jsonKeys(t, diskUtilJSON([]DiskUtil{{Name: "sdb"}})[0])
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("disk_util keys (-fio +model):\n%s", d)
	}
	// and it reads back into fio's own values
	var back DiskUtil
	if err := json.Unmarshal(sample.DiskUtil[0], &back); err != nil || back.ReadIOs != 1495872 || back.Util != 99.062185 {
		t.Errorf("sample entry read back as %+v (%v)", back, err)
	}
}

func TestNewDiskUtil(t *testing.T) {
	c := DiskCounters{IOs: [2]uint64{8, 2}, Merges: [2]uint64{0, 1}, Sectors: [2]uint64{2048, 16},
		Ticks: [2]time.Duration{1500 * time.Microsecond, 2600 * time.Microsecond}, IOTicks: 500 * time.Millisecond}
	got := NewDiskUtil("/dev/nvme0n1", c, time.Second)
	want := DiskUtil{Name: "nvme0n1", ReadIOs: 8, WriteIOs: 2, ReadSectors: 2048, WriteSectors: 16, WriteMerges: 1,
		ReadTicks: 1, WriteTicks: 2, InQueue: 4, Util: 50}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// io_ticks above the elapsed time (the per-jiffy count) is capped at 100 %
	c.IOTicks = 2 * time.Second
	if u := NewDiskUtil("sda", c, time.Second).Util; u != 100 {
		t.Errorf("util %v, want 100", u)
	}
}

func TestDiskUtilText(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeDiskUtilText(w, []DiskUtil{{Name: "sdb", ReadIOs: 1495872, ReadSectors: 11966976, ReadTicks: 308844, InQueue: 308844, Util: 99.062185}})
	w.Flush()
	want := "\nDisk stats (read/write):\n  sdb: ios=1495872/0, sectors=11966976/0, merge=0/0, ticks=308844/0, in_queue=308844, util=99.06%\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	writeDiskUtilText(w, nil)
	w.Flush()
	if strings.Contains(b.String(), "Disk stats") {
		t.Error("block written without disks")
	}
}
