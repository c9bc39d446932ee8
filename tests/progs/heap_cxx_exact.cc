// C++ new and delete under the shim, whichever allocator defines them
// (libstdc++'s call malloc; jemalloc, tcmalloc and mimalloc export their
// own): every form adds its usable size to the live bytes and every delete
// takes it back; a request that cannot be met runs the new-handler (whose
// frees count) and throws std::bad_alloc, leaving the counts sound.
// Prints "ok ..." or what differed; exits 1 on a difference.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <new>

#include "heap_self.h"

struct alignas(64) Wide {
	char bytes[200];
};

static char *reserve;
static size_t reserve_usable;

// Frees a reserve block and gives up: the next attempt throws.
static void release_reserve()
{
	delete[] reserve;
	reserve = nullptr;
	std::set_new_handler(nullptr);
}

static long long live_now()
{
	struct self_counters c;
	if (self_read(&c) != 0) {
		std::fprintf(stderr, "not running under the shim\n");
		std::exit(2);
	}
	return c.live;
}

int main()
{
	const int n = 64;
	char *plain[n], *arrays[n];
	Wide *wide[n];
	int *nothrow[n];
	long long expect = 0, base = live_now();
	for (int i = 0; i < n; i++) {
		plain[i] = new char(static_cast<char>(i));
		arrays[i] = new char[100 + i * 1000];
		wide[i] = new Wide[1 + i % 3]; // aligned new[]
		nothrow[i] = new (std::nothrow) int[i + 1];
		expect += (long long)(malloc_usable_size(plain[i]) + malloc_usable_size(arrays[i]) +
		                      malloc_usable_size(wide[i]) + malloc_usable_size(nothrow[i]));
	}
	long long held = live_now() - base;
	for (int i = 0; i < n; i++) {
		delete plain[i]; // sized delete with -fsized-deallocation
		delete[] arrays[i];
		delete[] wide[i];
		delete[] nothrow[i];
	}
	long long after = live_now() - base;
	if (held != expect || after != 0) {
		std::printf("live after new: %lld, expected %lld; after delete: %lld, expected 0\n",
		            held, expect, after);
		return 1;
	}

	// cannot be met: the handler frees the reserve, then std::bad_alloc
	reserve = new char[5000];
	reserve_usable = malloc_usable_size(reserve);
	long long before = live_now();
	std::set_new_handler(release_reserve);
	volatile size_t huge = SIZE_MAX / 4;
	bool thrown = false;
	try {
		char *never = new char[huge];
		never[0] = 1;
	} catch (const std::bad_alloc &) {
		thrown = true;
	}
	char *later = new char[300]; // the guard is gone: counted again
	long long diff = live_now() - before;
	long long want = (long long)malloc_usable_size(later) - (long long)reserve_usable;
	delete[] later;
	if (!thrown || reserve || diff != want) {
		std::printf("bad_alloc %s, handler %s, live changed by %lld, expected %lld\n",
		            thrown ? "thrown" : "missing", reserve ? "not run" : "ran", diff, want);
		return 1;
	}
	std::printf("ok new/delete counted: %lld bytes, all given back; bad_alloc sound\n", held);
	return 0;
}
