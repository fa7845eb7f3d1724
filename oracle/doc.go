// Package oracle validates the blkmq model against the real Linux kernel.
//
// A Case is one fio job file plus one device description in module-parameter style
// ("scsi_debug delay=1 max_queue=64 submit_queues=2", "null_blk irqmode=2
// completion_nsec=2000000") and sysfs-style settings ("device/queue_depth=15",
// "queue/nr_requests=56", "queue/scheduler=none"). The same Case drives both sides:
//
//   - the kernel side (Harness.Run): a stock Debian kernel booted under QEMU (TCG) from
//     an initramfs built by scripts/build-guest.sh into a cache directory; the guest
//     loads the module with those parameters, writes the settings under
//     /sys/block/DISK/, runs fio and reports fio's JSON plus block-layer facts
//     (/sys/block/DISK/stat deltas, sampled inflight, debugfs tag depths);
//   - the model side (RunModel): the same description resolved by package setup for
//     the guest's kernel era (6.1) and CPU count, run by stack.Run.
//
// Both sides are reduced to Figures (per-job IOPS, mean and p99 completion latency,
// device commands/s, mean command size and merge fraction), and Compare lines them up
// with relative errors. testdata/kernel holds a committed reference set (configs.json,
// the job files, trimmed fio JSON and facts per configuration), so the model side can
// be checked against the kernel in CI without a VM.
//
// The kernel side is only trustworthy when the device, not the emulated CPU, is the
// bottleneck: keep device latencies at milliseconds (scsi_debug delay is in jiffies,
// 4 ms at HZ=250; ndelay in ns; null_blk completion_nsec with irqmode=2).
package oracle
