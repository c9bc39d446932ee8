/*
 * A program whose allocator is linked into it (tests/e2e/heap_static.sh):
 * jemalloc from Debian's libjemalloc.a, with RJEM its API renamed with the
 * _rjem_ prefix the way tikv-jemallocator builds it (malloc stays glibc's;
 * the program's big blocks go to _rjem_malloc); with TCMALLOC, gperftools'
 * libtcmalloc_minimal.a instead.  Holds MIB MiB (argv[1]) for SECONDS
 * (argv[2]), and prints what the allocator itself counts as allocated
 * while it holds them: "allocated=BYTES".  With "self" (argv[3]), under
 * the heap shim with TIDEMARK_HEAP_KEEP set (its answering thread runs),
 * it asks its own region for the allocator's statistics the way the
 * recorder does and checks them against its own reading (within 256 KiB:
 * the answering thread's TLS block; under RJEM also glibc's live bytes):
 * exit 0 and "self ok ...", else 2 and why (tests/e2e/aarch64.sh too).
 * With "again FILE" (argv[3], argv[4]), each SIGUSR1 makes it read its own
 * figure again into FILE ("BYTES\n"), while it holds them: what an attach
 * added is in both figures then (tests/cross/guest_attach.sh); stdout the
 * same as without.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "heap_self.h"

#ifdef RJEM
#define JE(f) _rjem_##f
#else
#define JE(f) f
#endif

void *JE(malloc)(size_t);
#ifdef TCMALLOC
int MallocExtension_GetNumericProperty(const char *, size_t *);
#else
int JE(mallctl)(const char *, void *, size_t *, void *, size_t);
#endif

/* What the allocator counts as allocated, or -1. */
static long long own_allocated(void)
{
	size_t allocated = 0;
#ifdef TCMALLOC
	if (!MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &allocated))
		return -1;
#else
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch), zs = sizeof(allocated);
	if (JE(mallctl)("epoch", &epoch, &sz, &epoch, sz) ||
	    JE(mallctl)("stats.allocated", &allocated, &zs, NULL, 0))
		return -1;
#endif
	return (long long)allocated;
}

/* The shim's answer about this process against its own ALLOCATED. */
static int self_check(long long allocated)
{
	char path[320];
	const char *dir = getenv(TMH_DIR_ENV);
	if (dir && *dir)
		snprintf(path, sizeof(path), "%.256s/%d", dir, (int)getpid());
	else
		snprintf(path, sizeof(path), TMH_PATH_FMT, (unsigned)geteuid(), (int)getpid());
	int fd = open(path, O_RDWR);
	struct tmh_region *r =
	    fd < 0 ? MAP_FAILED : mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED || r->magic != TMH_MAGIC || r->version != TMH_VERSION) {
		printf("self: no region of this version at %s\n", path);
		return 2;
	}
	uint64_t req = __atomic_add_fetch(&r->stats_req, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, (uint32_t *)&r->stats_req, FUTEX_WAKE, 1, NULL, NULL, 0);
	for (int i = 0; i < 5000 && __atomic_load_n(&r->stats_ans, __ATOMIC_ACQUIRE) < req; i++)
		usleep(1000);
	long long inuse = __atomic_load_n(&r->stats_inuse_bytes, __ATOMIC_ACQUIRE);
	unsigned in = r->malloc_in_exe, kind = r->exe_allocator, st = r->exe_stats;
#if defined(RJEM)
	unsigned want_in = 2, want_kind = TMH_ALLOC_JEMALLOC;
#elif defined(TCMALLOC)
	unsigned want_in = 1, want_kind = TMH_ALLOC_TCMALLOC;
#else
	unsigned want_in = 1, want_kind = TMH_ALLOC_JEMALLOC;
#endif
	int ok = r->stats_ans >= req && in == want_in && kind == want_kind && st == 1 &&
	         inuse >= allocated - 262144 && inuse <= allocated + 262144;
	printf("self %s: malloc_in_exe %u (want %u), exe_allocator %u (want %u), exe_stats %u, "
	       "the shim's allocated %lld, the program's own %lld (within 256 KiB)\n",
	       ok ? "ok" : "FAILED", in, want_in, kind, want_kind, st, inuse, allocated);
	return ok ? 0 : 2;
}

static volatile sig_atomic_t again_asked;
static void on_usr1(int sig)
{
	(void)sig;
	again_asked = 1;
}

/* Holds for SECONDS; at each SIGUSR1 writes its own figure to PATH (no
 * stdio: nothing of the allocator's used for it). */
static int read_again(const char *path, int seconds)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	sigaction(SIGUSR1, &sa, NULL); /* no SA_RESTART: the sleep ends */
	time_t end = time(NULL) + seconds;
	while (time(NULL) < end) {
		sleep(1);
		if (!again_asked)
			continue;
		again_asked = 0;
		char line[32];
		int n = snprintf(line, sizeof(line), "%lld\n", own_allocated());
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, line, (size_t)n) != n)
			return 1;
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int mib = argc > 1 ? atoi(argv[1]) : 40;
	int seconds = argc > 2 ? atoi(argv[2]) : 2;
	static char *held[4096];
	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer of stdio's allocated later */
	for (int i = 0; i < mib && i < 4096; i++) {
		held[i] = JE(malloc)(1 << 20);
		memset(held[i], 1, 1 << 20);
	}
	long long allocated = own_allocated();
	if (allocated < 0)
		return 1;
	printf("allocated=%lld\n", allocated);
	if (argc > 3 && !strcmp(argv[3], "self"))
		return self_check(allocated);
	if (argc > 4 && !strcmp(argv[3], "again"))
		return read_again(argv[4], seconds);
	sleep((unsigned)seconds);
	return held[0] ? 0 : 1;
}
