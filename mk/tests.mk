# Small programs the end-to-end tests run (tests/progs/*.c -> build/progs/).
PROG_SRC := $(wildcard tests/progs/alloc_*.c tests/progs/rec_*.c)
PROG_BIN := $(patsubst tests/progs/%.c,$(B)/progs/%,$(PROG_SRC))
CHECK_EXTRA += $(PROG_BIN)

$(B)/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O1 -g -Wall -Wextra -Werror -o $@ $< -lpthread
