// Package setup turns a machine described the way storage engineers describe it —
// module parameters for the driver and disk, sysfs-style settings, a kernel
// release — into a stack.Config, and says where every value came from.
//
//	d := setup.Description{
//		Kernel:  "5.17",
//		CPUs:    16,
//		Devices: []string{"scsi_debug delay=0 max_queue=192 submit_queues=16"},
//		Set:     []string{"queue/nr_requests=56", "device/queue_depth=15"},
//	}
//	r, err := d.Resolve() // r.Config is a stack.Config; r.Explain() lists sources
//
// # Devices (--device "KIND key=value ...")
//
// Driver kinds are their own SCSI host (or blk-mq driver) and set host/ keys:
//
//   - scsi_debug (drivers/scsi/scsi_debug.c): delay (jiffies at system/hz, default
//     1 = 4 ms at HZ=250; 0 = immediate), ndelay (ns, overrides delay), random (1:
//     each command's delay uniform in [0, delay), device.NullParams.RandomDelay), max_queue
//     (can_queue, [1, 192]), host_max_queue (can_queue and host-wide tags, as the
//     driver sets host_tagset), submit_queues (nr_hw_queues, capped at the CPUs),
//     max_luns and num_tgts (LUNs /dev/sda, /dev/sdb, ...), add_host (1 only),
//     dev_size_mb (default 8) and virtual_gb (GiB): the size a job without size=
//     covers (Resolved.SizeJobs); cmd_per_lun is 192, so queue_depth = min(192,
//     can_queue); opt_blks × sector_size (default 512 KiB) is queue/max_sectors_kb
//     (sd's optimal transfer length). The other modinfo parameters (no_rwlock, dif, ...) are accepted
//     and change nothing the model simulates (it holds no data).
//
//   - null_blk (drivers/block/null_blk, queue_mode=2 only): completion_nsec (used
//     only with irqmode=2, as the driver does; irqmode 0/1 complete at once),
//     hw_queue_depth (tag set depth), submit_queues, shared_tag_bitmap (host-wide
//     tags), shared_tags with nr_devices (LUNs /dev/nullb0, ...), no_sched, mbps,
//     poll_queues (default 1: poll hctxs, not simulated since they get no normal
//     I/O, but counted by the default-scheduler rule, so the default is none),
//     max_sectors (queue/max_sectors_kb = max_sectors/2, at most 1280; default 127,
//     BLK_SAFE_MAX_SECTORS), gb (size, default 250 GiB). null_blk has no SCSI budget; the model's LUN queue_depth is
//     hw_queue_depth, which caps a device at hw_queue_depth commands in flight even
//     with several hctxs (the kernel allows that many per hctx): without
//     shared_tag_bitmap and with submit_queues > 1 the model under-counts what the
//     kernel keeps in flight; --explain notes it on device/queue_depth (lifting it
//     needs a LUN without budget in stack).
//
//   - nvme (drivers/nvme/host/pci.c, package nvme): io_queue_depth (module
//     parameter, default 1024) and the controller's mqes (CAP.MQES, default 1023)
//     give can_queue = min(io_queue_depth, mqes+1) − 1; one I/O queue per CPU unless
//     max_queues (the controller's grant) is lower; write_queues and poll_queues 0
//     only; mdts (0 = none) bounds max_hw_sectors; namespaces (LUNs /dev/nvme0n1,
//     …); capacity_gb (default an assumed 1000) and the ssd kind's media
//     parameters. No budget; completions on the queue's interrupt CPU.
//
// Several driver kinds may be given together (one host each, with the same kernel,
// CPUs and --set keys; each kind once, as a module loads once); SCSI disks are then
// named in --device order across scsi_debug and the disk kinds (multidev.go).
//
// Each driver sets its request-size limits as 6.1 does (limits.go):
// queue/max_sectors_kb, queue/max_hw_sectors_kb, queue/max_segments,
// queue/max_segment_size. An I/O larger than they allow is split into several
// requests (dispatch/split.go); max_sectors_kb above max_hw_sectors_kb is an error,
// as queue_max_sectors_store's EINVAL. A job on a block device whose region runs past
// the device's capacity (dev_size_mb/virtual_gb, gb, capacity_*) is an error
// (Resolved.CheckFit).
//
// Disk kinds sit behind a host (--host, default in parentheses), one LUN each:
//
//   - cloud (storvsc): the throttled disk of seed 000 (device.AzureP30Params):
//     iops, iops_burst, iops_unit_kb, mbps (10^6 B/s), burst_mb, latency_us,
//     max_outstanding, capacity_gib (1024).
//   - ssd (generic): device.ExampleSSDParams: parallel_units, controller_us, read_us,
//     write_us, chunk_kb, internal_mbps, link_mbps, max_queue, capacity_gb
//     (default an assumed 1000, as nvme's: a job without size= covers the whole
//     device, as fio's does).
//   - hdd (generic): model=cheetah-15k7 (default) or cheetah-15k3, then rpm,
//     capacity_gb, track_seek_us, avg_seek_us, full_seek_us, write_seek_extra_us,
//     outer_mbps, inner_mbps, zones, overhead_us, write_cache, cache_mb,
//     interface_mbps, tcq, aging_ms, max_queue.
//
// Hosts (--host "KIND key=value ..."): storvsc (storvsc_max_hw_queues,
// storvsc_vcpus_per_sub_channel, ...: nr_hw_queues = the CPUs, can_queue = 256 per
// VMBus channel — an assumption, the kernel derives it from the ring size —
// cmd_per_lun 2048; max_transfer_kb, the host's max_transfer_bytes, assumed 512,
// gives max_hw_sectors_kb and max_segments) and generic (can_queue, nr_hw_queues,
// cmd_per_lun, host_tagset; defaults 256, 1, 64, 0 — assumptions; max_sectors,
// sg_tablesize, max_segment_size: SCSI_DEFAULT_MAX_SECTORS, SG_ALL (assumed),
// BLK_MAX_SEGMENT_SIZE). Disks behind either get sd's max_sectors = min(max_hw_sectors,
// BLK_DEF_MAX_SECTORS).
//
// An unknown kind or parameter is an error naming it and listing the allowed ones.
//
// # Settings (--set key=value)
//
// system/nr_cpus (default 4, fixed so results do not depend on the machine
// computing them), system/hz (250), host/can_queue, host/nr_hw_queues,
// host/cmd_per_lun, host/host_tagset, tags (per-hctx | shared: host/host_tagset),
// device/queue_depth, queue/nr_requests, queue/scheduler (none | mq-deadline),
// queue/max_sectors_kb, kernel, and every era switch below. Keys lists them with
// their ranges. Precedence, lowest first: default, era (kernel), host, device,
// then --set entries in order (a --config file's before the command line's).
//
// # Kernel eras (--kernel MAJOR.MINOR, [4.15, 6.19])
//
// A release selects every era switch at once (dispatch.Kernel, plus the sbitmap
// wake-up era the stack derives); each may then be overridden with --set. A release
// as uname -r or a git tag writes it (5.17.3, v5.17, 6.1.0-57-amd64) counts as its
// MAJOR.MINOR, and --explain notes what was given. Releases
// before 4.15 have no SCSI budget and are not modelled by the blk-mq stack (the
// legacy package models the single-queue path). Value before → value since:
//
//	switch                          before            since  from then on
//	era/sw_queue_dequeue            one-by-one        4.19   by-dispatch-busy
//	era/host_busy_check             1                 5.5    0 (can_queue only via tag depth)
//	era/no_budget_rerun             1                 5.8    0 (delayed re-run on budget contention)
//	era/scsi_restart                every-completion  5.10   counter (sdev->restarts)
//	era/no_sched_batch              1                 5.10   0 (elevator dispatch in batches)
//	era/run_all_hctxs_with_sq_sched 1                 5.12   0 (run only the local hctx)
//	era/device_busy_counter         1                 5.13   0 (budget map sbitmap)
//	era/default_elevator            single-queue      5.13   single-queue-or-shared-tags
//	era/deadline_clear_next_rq      1                 5.14   0 (each direction keeps its sort position)
//	era/max_plug_requests           16                5.16   32
//	era/no_plug_request_cache       1                 5.16   0 (batched tags cached in the plug)
//	sbitmap/wake_scheme             countdown         6.2    global
//	sbitmap/wake_batch_recalc       5.17 (min 4)      6.2    6.2 (min 1)
//	era/map_queues                  modulo            6.3    group-evenly
//	era/no_tag_wait_barrier         1                 6.8    0 (CVE-2024-26671 fix)
//	era/dev_resource                if-blocked in every era (if-busy, if-other-budget: case R16)
//	era/budget_map_skip             0 in every era (2025 proposal of seed 003)
//
// So 4.15 has every "before" value; 5.10 adds the restarts counter, elevator
// batching and budget re-runs; 5.17 and 6.1 also have the budget map, local-hctx
// runs, mq-deadline by default with shared tags and 32-request plugs, but still the
// countdown wake-up, modulo CPU mapping and the tag-wait race; 6.8 and later are
// the current kernel. The sbitmap rows cannot be set separately: the stack derives
// them from the release (and uses the 5.17 formula for every release before 6.2).
//
// # Config files
//
// A --config TOML file holds a Description (kernel, cpus, host, devices, set);
// LoadConfig reads it and EncodeTOML writes one.
package setup
