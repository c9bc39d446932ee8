# The sampler benchmark (bench/sampler): CPU per tm_sampler_read.
$(B)/bench-sampler: bench/sampler/bench_sampler.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(TEST_LIBS) $(LDLIBS)

# tm-sample: one sample of a pid / cgroup / command, for people and e2e tests.
$(B)/tm-sample: bench/sampler/tm_sample.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(TEST_LIBS) $(LDLIBS)

CHECK_EXTRA += $(B)/tm-sample $(B)/bench-sampler
