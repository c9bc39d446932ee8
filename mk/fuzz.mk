# libFuzzer targets (fuzz/fuzz_NAME.c), one per pure parser family:
#   ingest  the push decoder (src/serve/ingest.c)
#   kern    every kernel-file parser in src/kern (the first byte picks one)
#   ini     the bench experiment-file reader (src/bench)
#   pprof   the heap-profile reader behind `heap top` (src/heap/heaptop.c)
#   hprof   the HPROF heap-dump reader behind `hprof top` (src/hprof)
#   runtime the runtime parsers (src/runtime: hsperfdata ...) and the JVM maps search
#   heapregion the recorder's reader of a heap shim region (src/heap: the
#           layout check, counters, the allocator's answer, sampled stacks)
#   text    the option-value parsers: sizes, durations, numbers, a systemd
#           unit's name (src/sysd), --keep, --window, --phases-at, --units
#   sample  the stored-sample decoder (src/store/encoding.c)
#   serve   the series query and a URL's id (src/serve), the pusher's reading
#           of the server's answers (src/serve/client/push.c)
#   opt     the option parser (src/base/opt.c) over the record and bench tables
#   javaheap the Java heap's range in maps and its resident anon in smaps
#           (src/sample/javaheap.c)
# They link the library built once more by clang with the fuzzer's
# instrumentation (build/fuzz/).  `make fuzz` runs each for FUZZ_SECONDS;
# scripts/fuzz.sh NAME SECONDS runs one (the smoke test in make check runs
# each over its seeds and a few seconds more: tests/e2e/fuzz_smoke.sh).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := ingest kern ini pprof hprof runtime text sample serve opt heapregion javaheap
FUZZ_BIN = $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_CFLAGS = -std=gnu17 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined $(TEST_DEBUG) \
	-Isrc -Iinclude -I$(B)/gen $(PKG_CFLAGS)
FUZZ_OBJ = $(patsubst %.c,$(B)/fuzz/obj/%.o,$(LIB_SRC) $(GEN_SRC))

# Prerequisites are expanded late: mk/heap.mk, mk/install.mk and mk/serve.mk,
# read after this file, add their generated files to GEN_SRC and GEN_HDR.
.SECONDEXPANSION:
$(B)/fuzz/obj/%.o: %.c $$(GEN_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC/FUZZ $<')
	$(Q)clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(B)/fuzz/libtidemark.a: $$(FUZZ_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/fuzz/fuzz_%: fuzz/fuzz_%.c $(B)/fuzz/libtidemark.a
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(B)/fuzz/libtidemark.a $(PKG_LIBS) \
		-lm -lpthread -ldl

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BIN)
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do sh scripts/fuzz.sh $$t $(FUZZ_SECONDS) || exit 1; done

# make check builds them and tests/e2e/fuzz_smoke.sh runs each briefly.
CHECK_EXTRA += $(FUZZ_BIN)
