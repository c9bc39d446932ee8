# bench: the small workload the bench tests and the rig benchmark run
# (build/progs/bench_alloc, next to the record tests' programs).
BENCH_PROGS := $(B)/progs/bench_alloc
CHECK_EXTRA += $(BENCH_PROGS)

$(B)/progs/bench_alloc: tests/progs/bench_alloc.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O1 -g -Wall -Wextra -Werror -o $@ $< -lpthread

# a service that waits between units of work (tests/v2/throttle_idle.sh)
BENCH_PROGS += $(B)/progs/churn_idle
CHECK_EXTRA += $(B)/progs/churn_idle
$(B)/progs/churn_idle: tests/progs/churn_idle.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O1 -g -Wall -Wextra -Werror -o $@ $<

# bench --param's exact workload: K bytes of live heap per unit (tests/e2e/bench_param.sh).
BENCH_PROGS += $(B)/progs/param_units
CHECK_EXTRA += $(B)/progs/param_units
$(B)/progs/param_units: tests/progs/param_units.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O1 -g -Wall -Wextra -Werror -o $@ $<

# bench --param's real-server client: holds N idle connections (tests/e2e/bench_param_redis.sh).
BENCH_PROGS += $(B)/progs/param_conns
CHECK_EXTRA += $(B)/progs/param_conns
$(B)/progs/param_conns: tests/progs/param_conns.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O1 -g -Wall -Wextra -Werror -o $@ $<

# Store benchmark programs (bench/store/): a long recording under retention, simulated.
$(B)/bench/store/%: bench/store/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(TEST_LIBS) $(LDLIBS)

# The floor under a recorder that stores in SQLite (bench/record/floor.sh).
$(B)/bench/record/floor: bench/record/floor.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O2 -Wall -Wextra -Werror -o $@ $< -lsqlite3

# The CPU floor under a recorder of one process (bench/record/wakefloor.sh).
$(B)/bench/record/wakefloor: bench/record/wakefloor.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O2 -Wall -Wextra -Werror -o $@ $<
