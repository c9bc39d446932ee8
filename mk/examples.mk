# The demo workload: build/churn, a stand-in for a node syncing a chain
# (see examples/README.md).  Standalone: it links nothing of tidemark's.
ALL_TARGETS += $(B)/churn

$(B)/churn: examples/churn.c src/base/banned.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Isrc -O2 -g -pthread -o $@ examples/churn.c
