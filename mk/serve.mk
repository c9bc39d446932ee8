# The server, the panel and the exports (src/serve, web/).
#
# The panel's files under web/ (plain HTML, CSS and JavaScript modules and the committed uPlot
# build in web/vendor/) are embedded into the binary as C arrays generated
# into build/gen/serve_assets.c, so nothing from npm is needed to build or run.

# The panel's ES modules, in dependency order (a module only imports ones
# before it): web/embed.sh also joins them into /report.js for HTML reports.
PANEL_JS := web/js/fmt.js web/js/dom.js web/js/api.js web/js/series.js $(B)/gen/web/js/allocators.js \
	web/js/charts.js \
	web/js/view_run.js web/js/view_param.js web/js/view_bench.js web/js/view_lists.js web/js/view_home.js \
	web/js/router.js web/js/main.js
SERVE_ASSETS := web/index.html $(PANEL_JS) web/app.css \
	web/vendor/uPlot.iife.min.js web/vendor/uPlot.min.css web/vendor/uPlot.LICENSE

# /js/allocators.js: the arms' chart colours from the allocator registry
# (src/base/allocators.h) through the C preprocessor, only its export line.
$(B)/gen/web/js/allocators.js: web/js/allocators.js.in src/base/allocators.h
	@mkdir -p $(dir $@)
	{ echo '/* Generated from src/base/allocators.h by mk/serve.mk; do not edit. */'; \
	  $(CC) -E -P -Isrc -x c web/js/allocators.js.in | grep '^export const ARM_COLORS = '; } >$@.tmp
	mv $@.tmp $@

$(B)/gen/serve_assets.c: web/embed.sh $(SERVE_ASSETS)
	@mkdir -p $(dir $@)
	sh web/embed.sh $@ $(SERVE_ASSETS)

GEN_SRC += $(B)/gen/serve_assets.c

# Prometheus remote write's messages (our own text of the documented
# format) -> C, for the network library only (record --remote-write).
$(B)/gen/prompb.pb-c.c $(B)/gen/prompb.pb-c.h: src/serve/client/prompb.proto
	@mkdir -p $(B)/gen
	protoc-c --proto_path=src/serve/client --c_out=$(B)/gen src/serve/client/prompb.proto
NET_SRC += $(B)/gen/prompb.pb-c.c
GEN_HDR += $(B)/gen/prompb.pb-c.h

# Test programs: tests/progs/serve_*.c, linked against the library.
SERVE_PROGS := $(patsubst tests/progs/%.c,$(B)/tests/progs/%,$(wildcard tests/progs/serve_*.c))
$(B)/tests/progs/serve_%: tests/progs/serve_%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(TEST_LIBS) $(LDLIBS)
CHECK_EXTRA += $(SERVE_PROGS)

# Headless-browser test dependencies (playwright-core only; the browser is
# Debian's /usr/bin/chromium).  The browser test runs this itself if needed.
.PHONY: serve-browser-deps
serve-browser-deps:
	cd tests/browser && npm install --no-audit --no-fund --silent

# The panel's JavaScript lint (ESLint, the version tests/lint/package-lock.json
# pins); tests/e2e/js_lint.sh runs this itself if needed.
.PHONY: js-lint-deps
js-lint-deps:
	cd tests/lint && npm ci --no-audit --no-fund --silent

# Benchmark programs (bench/serve/): built by bench/serve/run.sh.
$(B)/bench/serve/%: bench/serve/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(TEST_LIBS) $(LDLIBS)
