# The sampler benchmark (bench/sampler): CPU per tm_sampler_read.
$(B)/bench-sampler: bench/sampler/bench_sampler.c $(B)/libtidemark.a
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(B)/libtidemark.a $(LDLIBS)

# tm-sample: one sample of a pid / cgroup / command, for people and e2e tests.
$(B)/tm-sample: bench/sampler/tm_sample.c $(B)/libtidemark.a
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(B)/libtidemark.a $(LDLIBS)

CHECK_EXTRA += $(B)/tm-sample $(B)/bench-sampler
