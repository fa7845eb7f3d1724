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
//     (/sys/block/DISK/stat deltas, sampled inflight, debugfs tag depths), and the
//     state its setup I/O left before fio (modprobe runs on CPU 0; add_disk's partition
//     scan reads each disk from there, Facts.SetupSeconds, HctxFacts.SetupActiveQueues);
//   - the model side (RunModel): the same description resolved by package setup for
//     the profile of the guest's kernel (6.1.0-57-amd64 = 6.1.192, dispatch.KernelProfile)
//     and CPU count, run by stack.Run, with the guest's setup I/O (Facts.GuestSetup,
//     stack.GuestSetup) when the facts recorded it.
//
// Both sides are reduced to Figures (per-job IOPS, mean and p99 completion latency,
// device commands/s, mean command size and merge fraction), and Compare lines them up
// with relative errors. testdata/kernel holds a committed reference set (configs.json,
// the job files, trimmed fio JSON and facts per configuration), so the model side can
// be checked against the kernel in CI without a VM.
//
// The kernel side is only trustworthy when the device, not the emulated CPU, is the
// bottleneck: keep device latencies at milliseconds (scsi_debug delay is in jiffies,
// 4 ms at HZ=250; ndelay in ns; null_blk completion_nsec with irqmode=2). Even then
// each command costs the guest a few hundred microseconds of emulated CPU; the model
// side adds that as a fixed per-command delay calibrated at queue depth 1
// (CalibrationJob, EmulationOverhead, Index.Overhead). The emulated CPU is also tens of
// times slower than a native one, so a guest CPU that handles a few thousand commands a
// second saturates: the model side multiplies every cost of guest instructions (not the
// host's cross-CPU line moves, dispatch.CPUCosts.Emulated) by the emulation slowdown,
// fio's CPU time per command over the model's, measured on a pinned null_blk reader
// at iodepth 32 that saturates its CPU (SlowdownJob, FioCPUSlowdown, Index.Slowdown;
// EmulationSlowdown's marginal between iodepth 4 and 32 before round 7);
// the overhead is calibrated with the slowdown applied. ModelOptions.Wake
// (stack.EmulationOptions, opt-in) takes the guest code of each task's sleep and
// wake-up out of that overhead and charges it as scaled CPU time where it runs — the
// waker's try_to_wake_up, the context switches on the sleeping and the woken task's
// CPU, the kblockd kworker's — and stamps fio's issue_time at the submitting
// syscall's return; the overhead is then re-derived from the same queue-depth-1 cases
// with it (Index.OverheadWith).
//
// # Scripts (embedded, also usable by hand)
//
//	oracle/scripts/build-guest.sh [RELEASE]   # once: apt-get installs qemu-system-x86,
//	                                          # kmod, cpio, fio; apt-get downloads
//	                                          # linux-image-RELEASE and busybox-static;
//	                                          # writes kernel + initrd.cpio to the cache
//	oracle/scripts/run-guest.sh -o OUT MODPROBE SYSFS JOB.fio
//
// The cache is $BLKMQ_ORACLE_CACHE, else $XDG_CACHE_HOME/blkmq-oracle, else
// ~/.cache/blkmq-oracle; nothing built goes into the repository. run-guest.sh
// exits 2 when QEMU or the guest is missing, 3 when the VM dies or times out, 4/5/6
// when modprobe, a sysfs write or fio fails in the guest. BLKMQ_ORACLE_RT=N runs the
// VM at SCHED_FIFO priority N (root), which the committed results used.
//
// # Tests
//
//	go test ./oracle/                        # model vs committed kernel figures (CI)
//	BLKMQ_ORACLE=1 go test ./oracle/ -run TestKernelReference -timeout 60m
//	                                         # rerun the kernel side (skips without QEMU/guest)
//	BLKMQ_ORACLE=1 BLKMQ_ORACLE_UPDATE=1 ... # rewrite testdata/kernel/results
//	BLKMQ_ORACLE_REFRESH_MISSES=1 go test ./oracle/ -run TestRefreshKnownMisses
//	BLKMQ_ORACLE_DUMP=FILE go test -count=1 ./oracle/ -run TestDumpReference
//	                                         # every comparison and effect as JSON; its
//	                                         # switches (BLKMQ_ORACLE_PREEMPT=0, _DRAIN=0,
//	                                         # _TICKREFILL=0, _SERIALWAKE=1, ...) are in
//	                                         # TestDumpReference's comment
package oracle
