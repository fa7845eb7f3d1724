package bench

import "net/url"

// SourceDoc identifies one of the five source documents (../shared/seeds) a scenario
// models. The seeds have their mail addresses removed, Message-IDs included, so a
// document is found by subject on lore (LoreSearch) and, when it was merged, by commit.
type SourceDoc struct {
	File    string `json:"file"`    // seed file name, as Claim.Source
	Subject string `json:"subject"` // mail subject
	Author  string `json:"author"`
	Date    string `json:"date,omitempty"` // as the seed or the commit gives it
	// MessageID is the mail's Message-ID when known ("" when the seed removed it).
	MessageID string `json:"message_id,omitempty"`
	// Commit is the upstream commit that merged the change, when there is one, with
	// where the id was checked.
	Commit string `json:"commit,omitempty"`
	// Note says what the figures are and what is not known about the document.
	Note string `json:"note,omitempty"`
}

// LoreSearch is a lore.kernel.org search for the document's subject (the seeds carry
// no Message-ID, so no direct message URL can be given).
func (d SourceDoc) LoreSearch() string {
	return "https://lore.kernel.org/all/?q=" + url.QueryEscape(`s:"`+d.Subject+`"`)
}

// SourceDocs are the five source documents by seed file name.
var SourceDocs = map[string]SourceDoc{
	"000_3f9e87d917f8ad71.txt": {File: "000_3f9e87d917f8ad71.txt",
		Subject: "[PATCH RFC v1 5/5] scsi: storvsc: Hardware queues share blk_mq_tags",
		Author:  "Melanie Plageman (Microsoft)", Date: "2022 (RFC against v5.17-rc)",
		Note: "RFC; hctx_share_tags was not merged upstream, so there is no commit. Figures are one fio run per policy on a 16-core Azure VM."},
	"001_e5d45b9687b03847.txt": {File: "001_e5d45b9687b03847.txt",
		Subject: "RE: [PATCH] scsi: scsi_host_queue_ready: increase busy count early",
		Author:  "Don Brace (measurements), Martin Wilck, John Garry", Date: "Wed, 3 Feb 2021",
		Commit: "the thread names 6eb045e092ef (host-wide tags in 5.10) as the fix's base; smartpqi's host_tagset came later (not pinned here)",
		Note:   "approximate figures (~380-400K, ~980K, ~640K IOPS) from one HBA setup, 15 disks, 4k sequential writes."},
	"002_ff2e374edb86df80.txt": {File: "002_ff2e374edb86df80.txt",
		Subject: "[PATCH V3 00/14] blk-mq-sched: improve SCSI-MQ performance",
		Author:  "Ming Lei", Date: "Aug 2017 (v4.13-rc6 with block for-next)",
		Commit: "merged (reworked) for v4.15; per-patch ids not pinned here",
		Note:   "IOPS(K) tables over SRP (fio libaio 4k, qd 64, 64 jobs, 16 cores, 2 sockets); target and HCA not named."},
	"003_d725e3b6786add72.txt": {File: "003_d725e3b6786add72.txt",
		Subject: "[PATCH v2 5/5] scsi: core: Improve IOPS in case of host-wide tags",
		Author:  "Bart Van Assche",
		Note:    "one figure (+5% IOPS), scsi_debug delay=0, io_uring, 1 job, qd 192; machine not named."},
	"004_20aada19a4347f8a.txt": {File: "004_20aada19a4347f8a.txt",
		Subject: "[PATCH] block: Reserve only one queue tag for sync IO if only 3 tags are available",
		Author:  "Jan Kara", Date: "Fri, 28 Jun 2013 (queued for 3.11)",
		Commit: "a6b3f7614ca690e49e934c291f707b0c19312194 (checked in a mirror of the kernel history: same subject and text)",
		Note:   "approximate figures (~21 -> ~52 MB/s, 8 -> 12 postmark tps) from a ppc64 machine with an IBM 573E adapter."},
}
