# make install / make uninstall / make deb.
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [bindir=] [libdir=] [mandir=]
#
# Installs the binary into $(bindir), its libraries (the heap shims and the
# network half) into $(pkglibdir), a man page for tidemark and each
# subcommand, bash completion and the systemd units.  The binary finds its
# libraries by the path from $(bindir) to $(pkglibdir), compiled in
# (build/gen/tm_paths.h), so a DESTDIR staging tree or a moved prefix works
# as long as the two keep their places.
PREFIX ?= /usr/local
bindir ?= $(PREFIX)/bin
libdir ?= $(PREFIX)/lib
pkglibdir = $(libdir)/tidemark
mandir ?= $(PREFIX)/share/man
datadir ?= $(PREFIX)/share
docdir ?= $(datadir)/doc/tidemark
unitdir ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
TM_LIBDIR_REL = $(shell realpath -m --relative-to=$(bindir) $(pkglibdir))
TM_DOCDIR_REL = $(shell realpath -m --relative-to=$(bindir) $(docdir))
INSTALL_LIBS := libtidemark-heap.so libtidemark-heap-sites.so libtidemark-net.so

# rewritten only when a relative path changes, so a plain build does not rebuild
$(B)/gen/tm_paths.h: FORCE
	@mkdir -p $(dir $@)
	@printf '/* made by mk/install.mk: where the installed libraries and docs are, from the binary */\n#define TM_LIBDIR_REL "%s"\n#define TM_DOCDIR_REL "%s"\n' \
		'$(TM_LIBDIR_REL)' '$(TM_DOCDIR_REL)' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
GEN_HDR += $(B)/gen/tm_paths.h

# the version, from the one file that holds it (VERSION): `tidemark --version`
# and the Debian package (scripts/deb.sh) say the same
$(B)/gen/tm_version.h: VERSION
	@mkdir -p $(dir $@)
	@printf '/* made by mk/install.mk from VERSION */\n#define TIDEMARK_VERSION "%s"\n' "$$(cat VERSION)" >$@
GEN_HDR += $(B)/gen/tm_version.h
.PHONY: FORCE install uninstall man deb
FORCE:

# man pages for tidemark and each command in its table, from their --help
# (scripts/man.sh)
$(B)/man/.made: $(B)/tidemark scripts/man.sh
	sh scripts/man.sh $(B)/tidemark $(B)/man $(docdir)
	@touch $@
man: $(B)/man/.made

install: all man
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(pkglibdir) $(DESTDIR)$(mandir)/man1 \
		$(DESTDIR)$(datadir)/bash-completion/completions $(DESTDIR)$(unitdir) $(DESTDIR)$(docdir)
	install -m 755 $(B)/tidemark $(DESTDIR)$(bindir)/tidemark
	for l in $(INSTALL_LIBS); do install -m 644 $(B)/$$l $(DESTDIR)$(pkglibdir)/$$l || exit 1; done
	install -m 644 $(B)/man/*.1 $(DESTDIR)$(mandir)/man1/
	install -m 644 README.md docs/*.md $(DESTDIR)$(docdir)/
	install -m 644 dist/completion/tidemark.bash $(DESTDIR)$(datadir)/bash-completion/completions/tidemark
	for u in tidemark-serve.service tidemark-record@.service tidemark-record@.socket; do \
		sed 's|@bindir@|$(bindir)|g' dist/systemd/$$u.in >$(DESTDIR)$(unitdir)/$$u && \
		chmod 644 $(DESTDIR)$(unitdir)/$$u || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(bindir)/tidemark
	rm -f $(patsubst %,$(DESTDIR)$(pkglibdir)/%,$(INSTALL_LIBS))
	-rmdir $(DESTDIR)$(pkglibdir) 2>/dev/null
	rm -f $(DESTDIR)$(mandir)/man1/tidemark.1 $(DESTDIR)$(mandir)/man1/tidemark-*.1
	rm -f $(DESTDIR)$(datadir)/bash-completion/completions/tidemark
	rm -f $(DESTDIR)$(docdir)/README.md $(patsubst docs/%,$(DESTDIR)$(docdir)/%,$(wildcard docs/*.md))
	-rmdir $(DESTDIR)$(docdir) 2>/dev/null
	rm -f $(DESTDIR)$(unitdir)/tidemark-serve.service $(DESTDIR)$(unitdir)/tidemark-record@.service \
		$(DESTDIR)$(unitdir)/tidemark-record@.socket

# A Debian package of the same install (PREFIX=/usr), built with dpkg-deb;
# its dependencies are the shared libraries the binaries link, found by
# dpkg-shlibdeps (scripts/deb.sh).
deb: all
	sh scripts/deb.sh
