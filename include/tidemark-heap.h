/*
 * The shared-memory region of libtidemark-heap.so: one per process, a file
 * named by its pid in a directory of its user's: TIDEMARK_HEAP_DIR when the
 * environment names one (the recorder passes the one it made), else
 * /dev/shm/tidemark-heap-<euid> (TMH_DIR_FMT), made by the recorder or the
 * shim with mode 0700.
 *
 * Shared by the shim (the only writer) and tidemark (readers).  /dev/shm is
 * world-writable, so anyone may plant a name there, but not inside a
 * directory of mode 0700: both sides open the directory without following
 * a link and take it only when it is a directory owned by the user it is
 * for (the shim: its own euid; a reader also takes root's) that neither
 * group nor others may write; inside it, the
 * shim creates its file with O_EXCL|O_NOFOLLOW, and both sides open the
 * file without following a link or blocking and take it only when it is a
 * regular file of exactly sizeof(struct tmh_region) owned by the
 * directory's owner or root; the shim never maps another's file, the
 * reader reports no figures from one.  A
 * reader maps the file read-only, checks magic, version and size, then:
 *
 *   - counters: sums the `retired` slot and every slot of `slots[]` (each
 *     thread owns one slot and writes it with single-writer 64-bit stores;
 *     a reader never sees a torn value).  A thread that exits adds its slot
 *     into `retired` and zeroes it while `fold_seq` is odd; a reader retries
 *     when fold_seq is odd or changed across its pass.
 *   - peak: `peak_bytes` (see docs/heap.md for its exactness).
 *   - sampled sites: `stacks[]` and their weighted totals, consistent when
 *     `sample_seq` is even and unchanged across the copy.
 *
 * Layout rules: fields are only ever appended (bump TMH_VERSION when the
 * meaning of an existing field changes); every array has a fixed size given
 * in the header so a reader can check it; reserved words are zero.
 */
#ifndef TIDEMARK_HEAP_H
#define TIDEMARK_HEAP_H

#include <stdint.h>

#define TMH_MAGIC      0x50414548444d5454ull /* "TTMDHEAP" little-endian */
#define TMH_VERSION    5
#define TMH_DIR_ENV    "TIDEMARK_HEAP_DIR"
#define TMH_DIR_PREFIX "/dev/shm/tidemark-heap-"
#define TMH_DIR_FMT    TMH_DIR_PREFIX "%u"    /* a user's regions: euid */
#define TMH_PATH_FMT   TMH_DIR_PREFIX "%u/%d" /* euid, pid (the default directory) */
#define TMH_SLOTS      256                    /* per-thread counter slots */
#define TMH_CLASSES    32           /* size classes: class c holds requests in (2^(c+3), 2^(c+4)] */
#define TMH_MAX_DEPTH  48           /* frames kept per sampled stack */
#define TMH_STACKS     4096         /* distinct sampled stacks (entry 0: "stack table full") */
#define TMH_LIVE       65536        /* live sampled allocations (open addressing) */
#define TMH_MAPS_BYTES (256 * 1024) /* /proc/self/maps text written at exit */

/*
 * Counters of one thread (or of the folded past).  X(name, comment).
 * Derived by readers: live bytes = alloc_bytes - freed_bytes (summed over
 * slots; one thread's may be negative when it frees others' blocks), and
 * allocations = the sum of hist[] (one add per allocation, not two).
 */
#define TMH_COUNTER_LIST(X)                                                                        \
	X(alloc_bytes, "cumulative usable bytes allocated")                                        \
	X(freed_bytes, "cumulative usable bytes freed")                                            \
	X(frees, "frees of non-NULL pointers (including realloc's release of the old block)")

struct tmh_slot {
	uint64_t owner; /* 0 free, else the owning thread's tid (diagnostic) */
#define TMH_X_FIELD(n, c) int64_t n;
	TMH_COUNTER_LIST(TMH_X_FIELD)
#undef TMH_X_FIELD
	/* private to the owning thread, not summed; in the first cache line
	 * with the counters, which is all the fast path touches (+ one hist) */
	int64_t mark_bytes;        /* this slot's live bytes (alloc - freed) already in
	                            * region.flushed_bytes */
	int64_t hi_bytes;          /* slow path (peak/flush) when live bytes exceed this */
	int64_t lo_bytes;          /* flush when live bytes fall below this */
	int64_t sample_left_bytes; /* bytes until the next sample */
	uint64_t rng;
	int64_t hist[TMH_CLASSES]; /* allocations by size class of the requested size */
	int64_t reserved[7];
} __attribute__((aligned(64)));

struct tmh_stack {
	uint64_t hash; /* 0: unused */
	uint32_t depth;
	uint32_t reserved0;
	/* weighted (unbiased) estimates, from sampled allocations */
	int64_t alloc_objects_milli; /* estimated objects × 1000 */
	int64_t alloc_bytes;         /* estimated requested bytes */
	int64_t inuse_objects_milli;
	int64_t inuse_bytes;
	int64_t samples;            /* raw count of sampled allocations */
	uint64_t pc[TMH_MAX_DEPTH]; /* return addresses, innermost first */
};

struct tmh_live {
	uint64_t ptr; /* 0 empty, 1 tombstone */
	uint32_t stack;
	uint32_t reserved0;
	int64_t weight_objects_milli; /* estimate of objects ×1000 */
	int64_t weight_bytes;
};

enum tmh_state {
	TMH_RUNNING = 0,
	TMH_EXITED = 1,     /* the process ran its exit handlers; counters are final */
	TMH_SUPERSEDED = 2, /* the process exec'd; a new region replaced this one */
	TMH_DETACHED = 3,   /* attached agent: detached, counters frozen (docs/heap.md "attach") */
};

/* Which allocator answered the statistics request. */
enum tmh_allocator {
	TMH_ALLOC_UNKNOWN = 0,
	TMH_ALLOC_GLIBC = 1,    /* mallinfo2: arena + hblkhd, uordblks + hblkhd */
	TMH_ALLOC_JEMALLOC = 2, /* mallctl stats.resident, stats.allocated after "epoch" */
	TMH_ALLOC_TCMALLOC = 3, /* MallocExtension_GetNumericProperty */
	TMH_ALLOC_MIMALLOC = 4, /* mi_process_info: committed */
};

#define TMH_POLL_BYTES (1 << 20) /* a thread looks for a request every MiB it asks for */

/*
 * What `tidemark heap attach` passes to the agent's tmh_attach_start(), in
 * the target's memory: RECORDER, the pid whose end detaches (0: none, until
 * `heap detach`); INTERVAL_MSEC, how often the agent's thread looks;
 * SAMPLE_KIB, the mean bytes between sampled allocations in KiB (0: no
 * sites), taken at the first attach of the process only (docs/heap.md
 * "Sites after an attach").
 */
struct tmh_attach_args {
	uint32_t size; /* sizeof(struct tmh_attach_args) */
	int32_t recorder_pid;
	uint32_t interval_msec;
	uint32_t sample_kib;
};

/* tmh_attach_start()'s answers (negative: nothing was changed). */
enum tmh_attach_rc {
	TMH_ATTACH_OK = 0,
	TMH_ATTACH_BAD_ARGS = -1,
	TMH_ATTACH_ALREADY = -2,   /* attached now */
	TMH_ATTACH_NO_MALLOC = -3, /* the program's malloc not found */
	TMH_ATTACH_NO_THREAD = -4, /* the watching thread could not start */
	TMH_ATTACH_NO_HOOK = -5,   /* no relocation entry of an allocation function */
	TMH_ATTACH_NO_BASE = -6,   /* the allocator does not say how much is in use */
	TMH_ATTACH_NO_WATCH = -7,  /* the recorder's pid cannot be watched from the target */
	TMH_ATTACH_NO_STATS = -8,  /* an allocator linked in, without a statistics entry point */
};

struct tmh_region {
	uint64_t magic;
	uint32_t version;
	uint32_t header_bytes; /* offsetof(struct tmh_region, slots) */
	uint64_t total_bytes;  /* sizeof(struct tmh_region) */
	int32_t pid;
	uint32_t state; /* enum tmh_state */
	uint32_t nslots, nclasses, max_depth, nstacks, nlive, maps_bytes;
	int64_t start_wall_usec;
	int64_t sample_mean_bytes; /* TIDEMARK_HEAP_SAMPLE; 0: sampling off */
	uint64_t fold_seq;
	uint64_t sample_seq;
	int64_t peak_bytes;    /* process-wide peak of live bytes */
	int64_t flushed_bytes; /* sum of the slots' flushed deltas (peak bookkeeping) */
	int64_t threads_seen;
	int64_t slot_overflows;  /* threads that found no free slot (counted in `shared`) */
	int64_t samples_dropped; /* sampled allocations not recorded (live table full) */
	int64_t live_samples;    /* entries in live[] */
	uint32_t maps_len;       /* bytes of maps[] written (at exit) */
	uint32_t unwinder;       /* 0 frame pointers, 1 libunwind */
	int64_t exit_wall_usec;  /* when state became TMH_EXITED */
	uint32_t sites_only; /* 1: libtidemark-heap-sites.so, the slots' counters are not kept */
	uint32_t stats_allocator; /* enum tmh_allocator of the last answer */
	/* usable bytes glibc allocated on the shim's behalf (the record of its
	 * thread-exit hook, one a thread): in no counter */
	int64_t own_bytes;
	/*
	 * The allocator's own statistics, read inside the process on request.
	 * A reader (mapping the region read-write) increments stats_req; the
	 * process answers on its next slow path (a thread's first call, a
	 * sample, a peak or flush step, or every TMH_POLL_BYTES requested by a
	 * thread), never on the fast path, and also at start-up and at exit.
	 * The answer is written under stats_seq (odd while writing): stats_ans
	 * is the request it answers, stats_ops the process's allocations +
	 * frees when it was read (an answer stays current while they have not
	 * moved: a process that does not call the allocator changes nothing in
	 * it), stats_live_bytes the shim's live bytes at that moment (one
	 * consistent reading with the allocator's), stats_total_bytes what the
	 * allocator holds from the system and stats_inuse_bytes what it
	 * counts as handed out.  total < 0: the allocator gives no figure.
	 */
	uint64_t stats_req;
	uint64_t stats_seq;
	uint64_t stats_ans;
	int64_t stats_wall_usec;
	int64_t stats_ops;
	int64_t stats_live_bytes;
	int64_t stats_total_bytes;
	int64_t stats_inuse_bytes;
	uint64_t keep_tag;  /* TIDEMARK_HEAP_KEEP's number: which recorder keeps the region */
	int64_t stats_nsec; /* what the last answer took inside the process */
	/* a fork child's region starts from its parent's counts (its heap is a
	 * copy): those counts, so that a reader adds up what each process
	 * itself allocated (0 in a process that is no fork child) */
	int64_t fork_alloc_bytes;
	int64_t fork_allocs;
	int64_t fork_frees;
	/*
	 * Attach (libtidemark-heap-attach.so loaded into a running process by
	 * `tidemark heap attach`, docs/heap.md "attach").  attach_count: how
	 * many attaches this region has seen (0: the shim was preloaded).  At
	 * each attach the allocator's own in-use figure (attach_base_bytes) is
	 * added to `shared` as allocated bytes, less what the region still
	 * counted live, and that difference also into fork_alloc_bytes (bytes
	 * the process did not allocate through the agent).  A reader asks the
	 * agent to let go by setting detach_req to attach_count (a futex the
	 * agent's thread waits on); the agent answers with state TMH_DETACHED.
	 */
	uint32_t attach_count;
	uint32_t detach_req;
	int64_t attach_base_bytes;
	int64_t attach_wall_usec;
	int64_t attach_hooks;    /* relocation entries pointed at the agent */
	int64_t attach_objects;  /* loaded objects whose entries were rewritten */
	int32_t attach_recorder; /* pid the agent watches (0: none); gone = detach */
	uint32_t attach_interval_msec;
	/*
	 * A malloc linked into the executable (a static jemalloc,
	 * tikv-jemallocator, mimalloc, tcmalloc): the program's calls never
	 * reach the shim, whose counters stay at what glibc's loader did.  Then
	 * malloc_in_exe is 1 (2: malloc is a shared library's, counted as
	 * usual, and another allocator is linked into the executable beside it,
	 * as Rust's tikv-jemallocator is: the answers then add its figures to
	 * the shared one's, whose allocated part is the shim's live bytes),
	 * exe_allocator the allocator recognised in the
	 * executable's symbols (TMH_ALLOC_UNKNOWN: none), exe_stats 1 when one
	 * of its statistics entry points was found, and the answers carry its
	 * own figures (shim/allocstats.h): stats_inuse_bytes what it counts as
	 * allocated (-1: it gives no such figure), stats_active_bytes its
	 * active pages (jemalloc only, else -1), stats_total_bytes what it
	 * holds from the system.  A reader takes none of the shim's counters
	 * for such a process.
	 */
	uint32_t malloc_in_exe;
	uint32_t exe_allocator;
	uint32_t exe_stats;
	/* why `unwinder` is what it is: 0 TIDEMARK_HEAP_UNWIND (or the
	 * default: frame pointers), 1 chosen by the shim: libunwind because
	 * most of the executable's functions keep no frame pointer, 2 (frame
	 * pointers) the executable keeps none but libunwind.so.8 could not be
	 * loaded: callers n/a, the leaf only */
	uint32_t unwinder_auto;
	int64_t stats_active_bytes;
	struct tmh_slot retired; /* folded counters of exited threads */
	struct tmh_slot shared;  /* atomically updated: overflow threads, nested calls */
	struct tmh_slot slots[TMH_SLOTS];
	struct tmh_stack stacks[TMH_STACKS];
	struct tmh_live live[TMH_LIVE];
	char maps[TMH_MAPS_BYTES];
};

#endif
