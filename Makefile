# tidemark — a memory observatory for long-running services.
#
#   make            build build/tidemark and build/libtidemark-heap.so
#   make demo       install what is missing, build, run the demo and print its result
#   make check      install what is missing, build, run every test; ends "N passed, N failed"
#   make check-v2   only the tests in the cgroup v2 guest (tests/v2/, scripts/vm/)
#   make bench      run the benchmarks in bench/ (see bench/README.md)
#   make fuzz       build and run the libFuzzer targets for a bounded time
#   make hdr-check  every header under src/ compiles on its own (mk/hdr.mk)
#
# Parts of the build live in mk/*.mk (the shim, the panel assets, ...); each
# adds to the variables below.

CC      ?= gcc
# The tool links the core libraries; the network ones go only into
# libtidemark-net.so, loaded when a command needs them (src/record/netlib.h).
PKGS_CORE := sqlite3 jansson
# loaded on first use (dlopen, src/base/dl.h: libsystemd, libdw, zlib, inih, protobuf-c), not
# linked into the tool: only their headers
PKGS_DL   := libsystemd libdw zlib inih libprotobuf-c
PKGS_NET  := libmicrohttpd libcurl gnutls
PKGS    := $(PKGS_CORE) $(PKGS_DL) $(PKGS_NET)
B       := build
WARN    := -Wall -Wextra -Werror -Wvla -Wstrict-prototypes -Wshadow=local
# _FORTIFY_SOURCE and full RELRO: the hardening Debian builds with (lintian's
# hardening-* checks); the shim (mk/heap.mk) keeps its own flags
CFLAGS  ?= -O2 -g -D_FORTIFY_SOURCE=2
# the assertion level (src/base/assert.h) of the ASan library, the unit
# tests and the fuzzers: every tm_assert and tm_assert_expensive; the
# installed tool and libraries have none
TEST_DEBUG := -DTM_DEBUG=2
HARDEN_LD := -Wl,-z,relro -Wl,-z,now
BASEFLAGS = -std=gnu17 $(WARN) -D_GNU_SOURCE -fno-omit-frame-pointer -Isrc -Iinclude -I$(B)/gen
# protobuf-c's runtime names mapped to base/pb.c's, which load it (src/base/pb.h)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -include base/pb_names.h
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# SQLite linked into the executable, from Debian's libsqlite3-dev (issue 23):
# a recorder then maps none of libsqlite3.so's symbol and relocation tables
# (152 KiB resident at every start) and resolves none of its symbols at
# load; the deb names the SQLite it was built with (Built-Using,
# scripts/deb.sh).  Nothing else in the process may carry a second SQLite
# (tests/e2e/layout.sh checks libtidemark-net.so and the executable).
CORE_LIBS  = -Wl,-Bstatic $(shell pkg-config --libs sqlite3 2>/dev/null) -Wl,-Bdynamic \
	$(shell pkg-config --libs jansson 2>/dev/null) -lm -lpthread -ldl
NET_LIBS   = $(shell pkg-config --libs $(PKGS_NET) jansson 2>/dev/null) -lsnappy
LDLIBS  = $(PKG_LIBS) -lsnappy -lm -lpthread -ldl
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

# Library code: everything but main and the commands; linked into the tool
# and into the unit tests.
# The parts, from the bottom up (src/LAYERS says who may include whom).
LIB_DIRS := base kern cgroup runtime sample heap store hprof snap sysd record report report/run report/phases report/bench report/sweep bench advise serve serve/http serve/client serve/html doctor guard
NET_SRC := $(wildcard src/serve/http/*.c src/serve/client/*.c) src/cmd/serve.c
LIB_SRC := $(filter-out $(NET_SRC),$(wildcard $(addsuffix /*.c,$(addprefix src/,$(LIB_DIRS)))))
CMD_SRC := $(filter-out $(NET_SRC),$(wildcard src/cmd/*.c))
GEN_SRC :=
GEN_HDR :=
ALL_TARGETS := $(B)/tidemark $(B)/libtidemark-net.so
UNIT_SRC := $(wildcard tests/unit/test_*.c)

.DEFAULT_GOAL := all
# what unit tests and test programs link: everything, statically (before mk/*.mk, whose
# rules name them as prerequisites)
TEST_LIBS  = $(B)/libtidemark-net.a $(B)/libtidemark.a
ATEST_LIBS = $(B)/asan/libtidemark-net.a $(B)/asan/libtidemark.a
-include mk/*.mk

LIB_OBJ  = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC) $(GEN_SRC))
CMD_OBJ  = $(patsubst %.c,$(B)/obj/%.o,$(CMD_SRC) src/main.c)
ALIB_OBJ = $(patsubst %.c,$(B)/asan/obj/%.o,$(LIB_SRC) $(GEN_SRC))
NET_OBJ  = $(patsubst %.c,$(B)/obj/%.o,$(NET_SRC))
ANET_OBJ = $(patsubst %.c,$(B)/asan/obj/%.o,$(NET_SRC))
PNET_OBJ = $(patsubst %.c,$(B)/pic/obj/%.o,$(NET_SRC))
UNIT_BIN  = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
AUNIT_BIN = $(patsubst tests/unit/%.c,$(B)/asan/tests/%,$(UNIT_SRC))

.PHONY: all deps deps-test demo check check-v2 test-build unit e2e bench fuzz format cppcheck clean
all: $(ALL_TARGETS)

deps:
	@sh scripts/deps.sh
deps-test:
	@sh scripts/deps.sh --test

$(B)/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(LAYOUT_CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC/SAN  $<')
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) -O1 -g $(SAN) $(TEST_DEBUG) -MMD -MP -c $< -o $@

$(B)/libtidemark.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/pic/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC/PIC  $<')
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(B)/libtidemark-net.a: $(NET_OBJ)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/asan/libtidemark-net.a: $(ANET_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/libtidemark-net.so: $(PNET_OBJ)
	$(Q)$(CC) $(CFLAGS) $(HARDEN_LD) -shared -o $@ $(PNET_OBJ) $(NET_LIBS)

$(B)/asan/libtidemark.a: $(ALIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

# The whole archive, and its symbols that libtidemark-net.so uses exported:
# it uses the store and the rest from the executable.  The recorder's
# functions first (mk/layout.mk).
$(B)/tidemark: $(CMD_OBJ) $(B)/libtidemark.a $(B)/gen/record.ld $(B)/gen/net-imports.list
	$(CC) $(CFLAGS) $(HARDEN_LD) $(LAYOUT_LD) $(EXPORT_LD) -o $@ $(CMD_OBJ) -Wl,--whole-archive $(B)/libtidemark.a \
		-Wl,--no-whole-archive $(CORE_LIBS)

# The tool with its test hooks (-DTM_TEST_HOOKS: the commands' host notice
# read from the root TIDEMARK_HOST_ROOT names, src/cmd/doctor.c; a step of
# `heap attach` failed on purpose, TIDEMARK_ATTACH_FAIL_AT, src/cmd/heap.c),
# for the end-to-end tests that need one (tests/e2e/doctor.sh,
# heap_attach.sh); the installed tool has none.  Only the files with a hook
# are compiled twice.
HOOK_SRC := src/cmd/doctor.c src/cmd/heap.c
HOOK_OBJ := $(patsubst %.c,$(B)/hooks/obj/%.o,$(HOOK_SRC))
HOOKED_CMD_OBJ = $(filter-out $(patsubst %.c,$(B)/obj/%.o,$(HOOK_SRC)),$(CMD_OBJ)) $(HOOK_OBJ)
$(B)/hooks/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(LAYOUT_CFLAGS) -DTM_TEST_HOOKS -MMD -MP -c $< -o $@
$(B)/tests/tidemark-hooks: $(HOOKED_CMD_OBJ) $(B)/libtidemark.a $(B)/gen/record.ld \
		$(B)/gen/net-imports.list
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HARDEN_LD) $(LAYOUT_LD) $(EXPORT_LD) -o $@ $(HOOKED_CMD_OBJ) -Wl,--whole-archive \
		$(B)/libtidemark.a -Wl,--no-whole-archive $(CORE_LIBS)
CHECK_EXTRA += $(B)/tests/tidemark-hooks

$(B)/tests/%: tests/unit/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(TEST_DEBUG) -DTM_TEST_BUILD='"$(B)"' -o $@ $< $(TEST_LIBS) $(LDLIBS) -lcmocka

$(B)/asan/tests/%: tests/unit/%.c $(ATEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) -O1 -g $(SAN) $(TEST_DEBUG) -DTM_TEST_BUILD='"$(B)"' -o $@ $< $(ATEST_LIBS) $(LDLIBS) -lcmocka

unit: $(UNIT_BIN) $(AUNIT_BIN)

# The two commands the README promises.
demo:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

check:
	@sh scripts/deps.sh --test
	@$(MAKE) --no-print-directory all unit $(CHECK_EXTRA)
	@sh tests/run.sh

check-v2:
	@sh scripts/deps.sh --test
	@$(MAKE) --no-print-directory all $(CHECK_EXTRA)
	@sh tests/run.sh v2

# Everything the tests need, built without running them (a fresh worktree,
# before tests/run.sh).
test-build: all unit $(CHECK_EXTRA)

bench: all
	@sh bench/run.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -Isrc -Iinclude \
		src shim examples

clean:
	rm -rf $(B)

# The parts as the style test compares them with src/LAYERS and
# docs/ARCHITECTURE.md (tests/e2e/style.sh).
.PHONY: print-parts
print-parts:
	@echo $(LIB_DIRS) cmd

-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)
