# tidemark — a memory observatory for long-running services.
#
#   make            build build/tidemark and build/libtidemark-heap.so
#   make demo       install what is missing, build, run the demo and print its result
#   make check      install what is missing, build, run every test; ends "N passed, N failed"
#   make bench      run the benchmarks in bench/ (see bench/README.md)
#   make fuzz       build and run the libFuzzer targets for a bounded time
#
# Parts of the build live in mk/*.mk (the shim, the panel assets, ...); each
# adds to the variables below.

CC      ?= gcc
PKGS    := sqlite3 libmicrohttpd libcurl jansson libdw libelf libprotobuf-c zlib inih
B       := build
WARN    := -Wall -Wextra -Werror -Wvla -Wstrict-prototypes -Wshadow=local
CFLAGS  ?= -O2 -g
BASEFLAGS = -std=gnu17 $(WARN) -D_GNU_SOURCE -fno-omit-frame-pointer -Isrc -Isrc/lib -Iinclude -I$(B)/gen
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS  = $(PKG_LIBS) -lm -lpthread -ldl
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

# Library code: everything but main and the commands; linked into the tool
# and into the unit tests.
LIB_SRC := $(wildcard src/lib/*.c src/kern/*.c src/serve/*.c src/heap/*.c)
CMD_SRC := $(wildcard src/cmd/*.c)
GEN_SRC :=
GEN_HDR :=
ALL_TARGETS := $(B)/tidemark
UNIT_SRC := $(wildcard tests/unit/test_*.c)

-include mk/*.mk

LIB_OBJ  = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC) $(GEN_SRC))
CMD_OBJ  = $(patsubst %.c,$(B)/obj/%.o,$(CMD_SRC) src/main.c)
ALIB_OBJ = $(patsubst %.c,$(B)/asan/obj/%.o,$(LIB_SRC) $(GEN_SRC))
UNIT_BIN  = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
AUNIT_BIN = $(patsubst tests/unit/%.c,$(B)/asan/tests/%,$(UNIT_SRC))

.PHONY: all deps deps-test demo check unit e2e bench fuzz format cppcheck clean
all: $(ALL_TARGETS)

deps:
	@sh scripts/deps.sh
deps-test:
	@sh scripts/deps.sh --test

$(B)/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC/SAN  $<')
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) -O1 -g $(SAN) -MMD -MP -c $< -o $@

$(B)/libtidemark.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/asan/libtidemark.a: $(ALIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/tidemark: $(CMD_OBJ) $(B)/libtidemark.a
	$(CC) $(CFLAGS) -rdynamic -o $@ $(CMD_OBJ) $(B)/libtidemark.a $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libtidemark.a
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(B)/libtidemark.a $(LDLIBS) -lcmocka

$(B)/asan/tests/%: tests/unit/%.c $(B)/asan/libtidemark.a
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) -O1 -g $(SAN) -o $@ $< $(B)/asan/libtidemark.a $(LDLIBS) -lcmocka

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

bench: all
	@sh bench/run.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -Isrc -Isrc/lib -Iinclude \
		src shim examples

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
