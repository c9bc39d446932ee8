#!/usr/bin/env python3
"""Bodies for tests/e2e/serve_push_bounds.sh.

  bigbatch.py empty FILE   just under 8 MiB of [{},{},...]: valid JSON that
                           would cost ~650 MB parsed
  bigbatch.py valid FILE   a valid batch of about 5.9 MiB: 2000 samples of
                           50 metrics, 5000 events and 5000 marks"""
import sys
import time

kind, path = sys.argv[1], sys.argv[2]
with open(path, "w") as f:
    if kind == "empty":
        n = ((8 << 20) - 1) // 3
        f.write("[" + ",".join(["{}"] * n) + "]")
        sys.exit(0)
    names = ("proc_rss_bytes proc_rss_anon_bytes proc_rss_file_bytes proc_swap_bytes "
             "proc_pss_bytes cg_current_bytes cg_peak_bytes cg_anon_bytes cg_file_bytes "
             "cg_active_file_bytes cg_inactive_file_bytes cg_kernel_bytes cg_slab_bytes "
             "cg_sock_bytes cg_shmem_bytes cg_file_mapped_bytes cg_file_dirty_bytes "
             "host_mem_total_bytes host_mem_available_bytes host_swap_total_bytes "
             "host_swap_free_bytes heap_live_bytes heap_peak_bytes heap_held_bytes "
             "jvm_heap_used_bytes jvm_heap_committed_bytes jvm_eden_used_bytes "
             "jvm_old_used_bytes gc_heap_live_bytes go_heap_alloc_bytes").split()
    now = int(time.time()) * 1000000
    f.write('{"v":1,"run":{"uuid":"big-1","interval_usec":1000000,"started_wall_usec":%d},'
            '"samples":[' % now)
    for i in range(2000):
        vals = ",".join('"%s":%d' % (m, 123456789012 + i + j) for j, m in enumerate(names))
        f.write('%s{"seq":%d,"t_wall_usec":%d,"values":{%s}}' % ("," if i else "", i, now + i, vals))
    f.write('],"events":[')
    for i in range(5000):
        f.write('%s{"i":%d,"t_wall_usec":%d,"t_mono_usec":%d,"kind":"late","pid":1,"value":%d,'
                '"detail":"%s"}' % ("," if i else "", i, now + i, i, i, "d" * 360))
    f.write('],"marks":[')
    for i in range(5000):
        f.write('%s{"i":%d,"t_wall_usec":%d,"t_mono_usec":%d,"text":"%s"}'
                % ("," if i else "", i, now + i, i, "m" * 250))
    f.write("]}")
