# The heap shim (libtidemark-heap.so), the pprof protobuf code and the heap
# test programs.  The shim stands alone: libc, libdl, libpthread; libunwind
# is dlopen'ed on demand (TIDEMARK_HEAP_UNWIND=libunwind).

SHIM_SRC := $(filter-out shim/attach.c shim/got.c,$(wildcard shim/*.c))
# The attached agent: the same counting without C++'s operators (a running
# program's libstdc++ calls malloc through its own relocation entries).
ATTACH_SRC := $(filter-out shim/cxx.c,$(SHIM_SRC)) shim/attach.c shim/got.c
SHIM_CFLAGS = -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -fPIC -fvisibility=hidden \
	-ftls-model=initial-exec -fno-omit-frame-pointer -fno-builtin -fno-stack-protector \
	-fno-semantic-interposition -fexceptions

$(B)/libtidemark-heap.so: $(SHIM_SRC) $(wildcard shim/*.h) include/tidemark-heap.h include/tidemark-size.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -shared -Wl,-z,now -o $@ $(SHIM_SRC) -ldl -lpthread

# The same sources without the exact counters: sampled sites only.
$(B)/libtidemark-heap-sites.so: $(SHIM_SRC) $(wildcard shim/*.h) include/tidemark-heap.h include/tidemark-size.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -DTMH_SITES_ONLY -shared -Wl,-z,now -o $@ $(SHIM_SRC) -ldl -lpthread

# The agent `tidemark heap attach` loads into a running process (docs/heap.md "attach").
$(B)/libtidemark-heap-attach.so: $(ATTACH_SRC) $(wildcard shim/*.h) include/tidemark-heap.h include/tidemark-size.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -DTMH_ATTACH -shared -Wl,-z,now -o $@ $(ATTACH_SRC) -ldl -lpthread

ALL_TARGETS += $(B)/libtidemark-heap.so $(B)/libtidemark-heap-sites.so $(B)/libtidemark-heap-attach.so

# pprof's profile.proto (our own text of the documented format) -> C.
$(B)/gen/profile.pb-c.c $(B)/gen/profile.pb-c.h: src/heap/profile.proto
	@mkdir -p $(B)/gen
	protoc-c --proto_path=src/heap --c_out=$(B)/gen src/heap/profile.proto

GEN_SRC += $(B)/gen/profile.pb-c.c
GEN_HDR += $(B)/gen/profile.pb-c.h

# Test and benchmark programs: plain C (and one C++) with frame pointers.
HEAP_PROGS := $(patsubst tests/progs/%.c,$(B)/progs/%,$(wildcard tests/progs/heap_*.c)) \
	$(patsubst tests/progs/%.cc,$(B)/progs/%,$(wildcard tests/progs/heap_*.cc)) \
	$(B)/progs/heap_bench $(B)/progs/heap_stats_bench
$(B)/progs/heap_%: tests/progs/heap_%.c tests/progs/heap_self.h include/tidemark-heap.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -fno-omit-frame-pointer -o $@ $< -ldl -lpthread
$(B)/progs/heap_%: tests/progs/heap_%.cc tests/progs/heap_self.h include/tidemark-heap.h
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -Wall -Wextra -Werror -Iinclude -fno-omit-frame-pointer -o $@ $< -lpthread
$(B)/progs/heap_stats_bench: bench/heap/stats_bench.c include/tidemark-heap.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -o $@ $<
$(B)/progs/heap_bench: bench/heap/heap_bench.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -o $@ $< -ldl -lpthread

# heap attach refuses a static binary: no dlopen to call.
$(B)/progs/heap_attach_static: tests/progs/heap_attach_loop.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -static -o $@ $<
HEAP_PROGS += $(B)/progs/heap_attach_static

# A library for heap_dlopen_ctor: its constructor runs a thread.
$(B)/progs/libctor_thread.so: tests/progs/ctor_thread_lib.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -fPIC -shared -o $@ $< -lpthread
HEAP_PROGS += $(B)/progs/libctor_thread.so

CHECK_EXTRA += $(B)/libtidemark-heap.so $(B)/libtidemark-heap-sites.so $(B)/libtidemark-heap-attach.so $(HEAP_PROGS)
.PHONY: heap-progs
heap-progs: $(HEAP_PROGS)

# heap attach's costs (bench/attach/run.sh).
$(B)/bench/attach_bench: bench/attach/attach_bench.c bench/attach/rounds.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -o $@ $<
heap-progs: $(B)/bench/attach_bench

# Benchmark reference only: a naive counting shim (see bench/heap/naive_shim.c).
$(B)/bench/libnaive-shim.so: bench/heap/naive_shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -fPIC -shared -o $@ $<
heap-progs: $(B)/bench/libnaive-shim.so

# Benchmark reference only: the cheapest interposer, which counts nothing.
$(B)/bench/libforward-shim.so: bench/heap/forward_shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -fPIC -shared -o $@ $< -ldl
heap-progs: $(B)/bench/libforward-shim.so

# Programs with the allocator linked into them (tests/e2e/heap_static.sh):
# Debian's libjemalloc.a as it is, stripped of its symbol table, and with
# its API renamed to the _rjem_ prefix tikv-jemallocator uses; gperftools'
# libtcmalloc_minimal.a.  Built only where libjemalloc-dev and
# libgoogle-perftools-dev are installed (scripts/deps.sh --test).  Debian
# ships no static mimalloc (libmimalloc-dev has the shared library only).
STATIC_DEPS := tests/progs/static_alloc.c tests/progs/heap_self.h include/tidemark-heap.h
# Debian's libjemalloc-dev is one architecture at a time: scripts/deps.sh
# --test puts the arm64 one's libjemalloc.a into build/deps/TRIPLET/.
TRIPLE := $(shell $(CC) -dumpmachine)
JE_STATIC := $(firstword $(wildcard /usr/lib/$(TRIPLE)/libjemalloc.a build/deps/$(TRIPLE)/libjemalloc.a))
ifneq ($(JE_STATIC),)
JE_API := malloc calloc realloc free posix_memalign aligned_alloc memalign valloc \
	malloc_usable_size mallocx rallocx xallocx sallocx dallocx sdallocx nallocx mallctl \
	mallctlnametomib mallctlbymib malloc_stats_print malloc_conf malloc_message
$(B)/progs/librjem.a: $(JE_STATIC)
	@mkdir -p $(dir $@)
	printf '%s\n' $(foreach f,$(JE_API),"$(f) _rjem_$(f)") >$@.syms
	$(TRIPLE)-objcopy --redefine-syms=$@.syms $< $@
$(B)/progs/static_je: $(STATIC_DEPS) $(JE_STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -o $@ $< $(JE_STATIC) -lpthread -ldl -lm
$(B)/progs/static_je_stripped: $(B)/progs/static_je
	$(TRIPLE)-strip -o $@ $<
$(B)/progs/static_rjem: $(STATIC_DEPS) $(B)/progs/librjem.a
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -DRJEM -O2 -g -o $@ $< $(B)/progs/librjem.a -lpthread -ldl -lm
HEAP_PROGS += $(B)/progs/static_je $(B)/progs/static_je_stripped $(B)/progs/static_rjem
endif
# gperftools' tcmalloc (libgoogle-perftools-dev), C++ inside: linked by $(CXX)
TC_STATIC := $(firstword $(wildcard /usr/lib/$(TRIPLE)/libtcmalloc_minimal.a))
ifneq ($(TC_STATIC),)
$(B)/progs/static_tc.o: $(STATIC_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -DTCMALLOC -O2 -g -c -o $@ $<
$(B)/progs/static_tc: $(B)/progs/static_tc.o $(TC_STATIC)
	$(CXX) -o $@ $< $(TC_STATIC) -lpthread
HEAP_PROGS += $(B)/progs/static_tc
endif

# A program built as distributions build theirs: no frame pointers
# (tests/e2e/heap_unwind.sh: the shim unwinds it with libunwind by itself).
$(B)/progs/nofp_alloc: tests/progs/nofp_alloc.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -o $@ $<
HEAP_PROGS += $(B)/progs/nofp_alloc

# heap_attach_sites built as distributions build (tests/e2e/heap_attach_sites.sh:
# the agent unwinds it with libunwind after an attach)
$(B)/progs/nofp_attach_sites: tests/progs/heap_attach_sites.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -o $@ $<
HEAP_PROGS += $(B)/progs/nofp_attach_sites

# What each unwinder costs per sampled allocation (bench/attach/unwind.sh).
# -fno-shrink-wrap: GCC moves deep()'s push of %rbp after its first test,
# and shim/fpcheck.c, which looks at prologues, would take this five-function
# program for one without frame pointers.
$(B)/bench/unwind_bench_fp: bench/attach/unwind_bench.c bench/attach/rounds.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -fno-shrink-wrap -o $@ $<
$(B)/bench/unwind_bench_nofp: bench/attach/unwind_bench.c bench/attach/rounds.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -o $@ $<
heap-progs: $(B)/bench/unwind_bench_fp $(B)/bench/unwind_bench_nofp
