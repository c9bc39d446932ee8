# The sampler benchmark (bench/sampler): CPU per tm_sampler_read.
$(B)/bench-sampler: bench/sampler/bench_sampler.c $(B)/libtidemark.a
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(B)/libtidemark.a $(LDLIBS)
