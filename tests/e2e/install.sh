#!/bin/sh
# make install into a DESTDIR: the installed binary finds its libraries
# (--heap, --metrics-listen) from where it is, man pages render without
# warnings, bash completion completes, the systemd units verify, make
# uninstall leaves nothing; make deb builds a package whose contents run.
. "$(dirname "$0")/../lib.sh"
cd "$TM_ROOT" || exit 1
D=$T/dest
PREFIX=/opt/tidemark-test

if ! make --no-print-directory -s install DESTDIR="$D" PREFIX=$PREFIX B="$TM_BUILD" >"$T/inst.log" 2>&1; then
	fail "make install" "$(tail -5 "$T/inst.log")"
	exit 1
fi
BIN=$D$PREFIX/bin/tidemark
check install_files test -x "$BIN" -a -r "$D$PREFIX/lib/tidemark/libtidemark-heap.so" \
	-a -r "$D$PREFIX/lib/tidemark/libtidemark-net.so" -a -r "$D$PREFIX/lib/tidemark/libtidemark-heap-sites.so"
check install_not_next_to_libs test ! -e "$D$PREFIX/bin/libtidemark-heap.so"

# --help names the docs where they were installed, and each one it names is there
DOCS=$(realpath "$D$PREFIX/share/doc/tidemark")
"$BIN" bench --help >"$T/bench.help" 2>&1
check install_help_names_installed_docs grep -q "$DOCS/bench.md" "$T/bench.help"
named= missing=
for c in "" record bench report runs advise heap hprof doctor serve mark prune; do
	"$BIN" $c --help >"$T/c.help" 2>&1
	grep -q 'docs/' "$T/c.help" && named="$named ${c:-tidemark}"
	for p in $(grep -oE '/[^ `()]*/[A-Za-z-]+\.md' "$T/c.help"); do
		[ -r "$p" ] || missing="$missing ${c:-tidemark}:$p"
	done
done
check_eq install_help_no_checkout_docs "$named" ""
check_eq install_help_docs_exist "$missing" ""

# the installed binary, run from its own place, with no variable pointing at the build
(
	unset TIDEMARK_HEAP_LIB TIDEMARK_NET_LIB TIDEMARK_HEAP_SITES_LIB
	cd "$T" && "$BIN" record -q -o "$T/i.db" -i 50ms --heap -- \
		python3 -c 'import time; x = [bytes(1000) for i in range(20000)]; time.sleep(0.5)'
) >"$T/heap.out" 2>&1
check install_heap_finds_shim sh -c "! grep -q 'cannot find' '$T/heap.out' &&
	[ \"\$(sqlite3 '$T/i.db' 'select outcome from runs')\" = completed ]"
"$BIN" report --db "$T/i.db" >"$T/rep.txt" 2>&1
check install_heap_measured grep -qE '^  heap +live peak (at most )?[0-9.]+ MiB' "$T/rep.txt"
(
	unset TIDEMARK_NET_LIB
	"$BIN" record -q -o "$T/m.db" -i 50ms --metrics-listen 127.0.0.1:0 -- sleep 0.3
) >"$T/metrics.out" 2>&1
check install_metrics_finds_net_lib sh -c "! grep -q 'cannot find' '$T/metrics.out' &&
	[ \"\$(sqlite3 '$T/m.db' 'select outcome from runs')\" = completed ]"

# man pages: one per command in the table, each rendering without warnings
n=$("$BIN" --help | grep -c '^  [a-z]')
check install_man_pages test "$(ls "$D$PREFIX/share/man/man1/" | grep -c '^tidemark-.*\.1$')" = "$n"
bad=
for p in "$D$PREFIX"/share/man/man1/*.1; do
	w=$(groff -man -Tutf8 -ww -z "$p" 2>&1)
	[ -n "$w" ] && bad="$bad $(basename "$p"): $w"
done
test_expect "install_man_render" '[ -z "$bad" ] || test_why "$bad"'
check install_man_has_options grep -q 'hprof top DUMP' "$D$PREFIX/share/man/man1/tidemark-hprof.1"
# real pages: the sections a man page has, each option a tagged paragraph,
# rendered within 80 columns
for sect in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT FILES 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
	check "install_man_section_$(echo "$sect" | tr ' ' _)" grep -qx ".SH $sect" "$D$PREFIX/share/man/man1/tidemark-record.1"
done
check install_man_option_tagged grep -qx '\\fB\\-i, \\-\\-interval DUR\\fR' "$D$PREFIX/share/man/man1/tidemark-record.1"
wide=
for p in "$D$PREFIX"/share/man/man1/*.1; do
	w=$(MANWIDTH=80 man -l "$p" 2>/dev/null | awk 'length > 80 { n++ } END { print n + 0 }')
	[ "$w" -gt 0 ] && wide="$wide $(basename "$p"): $w lines over 80 columns"
done
check_eq install_man_80_columns "$wide" ""
# every TIDEMARK_* variable the code reads or sets is in some page's ENVIRONMENT
missing=
for v in $(grep -rhoE '"TIDEMARK_[A-Z_]*[A-Z][="]' src shim | tr -d '"=' | sort -u); do
	grep -q "^$v	" dist/man/environment || missing="$missing $v"
done
check_eq install_man_environment_complete "$missing" ""

# bash completion, from the binary's own --help
comp=$D$PREFIX/share/bash-completion/completions/tidemark
if command -v bash >/dev/null; then
	out=$(PATH="$D$PREFIX/bin:$PATH" bash -c ". '$comp'; COMP_WORDS=(tidemark re); COMP_CWORD=1; _tidemark;
		echo \"\${COMPREPLY[*]}\"; COMP_WORDS=(tidemark hprof --cl); COMP_CWORD=2; _tidemark; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=(tidemark serve token ''); COMP_CWORD=3; _tidemark; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=(tidemark heap ''); COMP_CWORD=2; _tidemark; echo \"\${COMPREPLY[*]}\"")
	check_eq install_completion "$out" "record report
--class-pointers
add list remove
attach detach run stats top"
else
	skip install_completion "no bash"
fi

# the units, with their paths, as systemd reads them
units=$D/lib-systemd
for u in "$D$PREFIX"/lib/systemd/system/*.service; do
	sed "s|$PREFIX/bin/tidemark|$BIN|g" "$u" >"$T/$(basename "$u")"
done
check install_units_have_bindir grep -q "ExecStart=$PREFIX/bin/tidemark serve" "$D$PREFIX/lib/systemd/system/tidemark-serve.service"
if command -v systemd-analyze >/dev/null; then
	cp "$T/tidemark-record@.service" "$T/tidemark-record@node.service"
	out=$(cd "$T" && systemd-analyze verify --man=no ./tidemark-serve.service ./tidemark-record@node.service 2>&1)
	test_expect "install_units_verify" '[ -z "$out" ] || test_why "$out"'
else
	skip install_units_verify "no systemd-analyze"
fi
# tidemark-record@ keeps a week of raw samples and a year of rollups, so its
# store stops growing once they fill (docs/recording.md)
keep=$(sed -n 's/^ExecStart=.* --keep \([^ ]*\).*/\1/p' "$T/tidemark-record@.service")
test_expect "install_record_unit_keeps_a_week_raw_a_year_rolled_up ($keep)" '
	case $keep in
	*raw=7d*hour=365d*) ;;
	*) test_why "ExecStart'\''s --keep: '\''$keep'\''" ;;
	esac'
check install_record_unit_keep_is_valid "$BIN" record -q -o "$T/keep.db" -i 50ms --keep "${keep:-none}" -- true

make --no-print-directory -s uninstall DESTDIR="$D" PREFIX=$PREFIX B="$TM_BUILD" >"$T/un.log" 2>&1
left=$(find "$D" -type f | sed "s|$D||")
test_expect "uninstall_leaves_nothing" '[ -z "$left" ] || test_why "$left"'

# the Debian package
if command -v dpkg-shlibdeps >/dev/null && command -v dpkg-deb >/dev/null; then
	deb=$(B="$TM_BUILD" sh scripts/deb.sh 2>"$T/deb.err") || true
	if [ -n "$deb" ] && [ -r "$deb" ]; then
		check deb_depends sh -c "dpkg-deb -f '$deb' Depends | grep -q libjansson4"
		# SQLite is linked in (the Makefile's CORE_LIBS): the deb names the
		# source it was built from, and needs no libsqlite3-0
		built=$(dpkg-deb -f "$deb" Built-Using)
		want=$(dpkg-query -W -f '${source:Package} (= ${source:Version})' "libsqlite3-dev:$(dpkg --print-architecture)")
		test_expect deb_built_using_names_the_linked_sqlite '
			[ "$built" = "$want" ] && ! dpkg-deb -f "$deb" Depends | grep -q libsqlite3 ||
			test_why "Built-Using: $built (want $want); Depends: $(dpkg-deb -f "$deb" Depends)"'
		deps=$(dpkg-deb -f "$deb" Depends)
		test_expect deb_depends_on_the_libraries_loaded_when_used '
			case $deps in *libsystemd0*libdw1*) true ;; *) false ;; esac || test_why "$deps"'
		dpkg-deb -x "$deb" "$T/x"
		test_expect "deb_contents_run" '
			"$T/x/usr/bin/tidemark" hprof --help >/dev/null 2>&1 && [ -r "$T/x/usr/lib/tidemark/libtidemark-heap.so" ] &&
			[ -r "$T/x/lib/systemd/system/tidemark-serve.service" ] && [ -r "$T/x/usr/share/man/man1/tidemark.1.gz" ] ||
			test_why "$(dpkg-deb -c "$deb" | head)"'
		# one version: the package's and the binary's (both from VERSION)
		v=$("$T/x/usr/bin/tidemark" --version | awk '{print $2}')
		check_eq deb_version_agrees "$(dpkg-deb -f "$deb" Version)" "$v"
		check deb_licence test -r "$T/x/usr/share/doc/tidemark/copyright" -a -r "$T/x/usr/share/doc/tidemark/changelog.gz"
		check deb_docs_installed test -r "$T/x/usr/share/doc/tidemark/heap.md"
		unstripped=$(for f in "$T/x/usr/bin/tidemark" "$T"/x/usr/lib/tidemark/*.so; do
			readelf -S "$f" | grep -q '\.debug_info' && echo "$f"; done)
		check_eq deb_stripped "$unstripped" ""
		dbg=$(dirname "$deb")/tidemark-dbgsym_${v}_$(dpkg --print-architecture).deb
		check deb_dbgsym_has_debug sh -c "dpkg-deb -c '$dbg' | grep -q '/usr/lib/debug/.build-id/.*\.debug'"
		if command -v lintian >/dev/null; then
			# errors and warnings (info and pedantic tags are not counted)
			lint=$(lintian --fail-on error,warning "$deb" "$dbg" 2>&1) && lrc=0 || lrc=$?
			lint=$(echo "$lint" | grep -v 'root privileges')
			test_expect deb_lintian_clean '
				[ $lrc -eq 0 ] && [ -z "$(echo "$lint" | grep -E "^[EW]:")" ] || test_why "lintian exit $lrc: $lint"'
		else
			skip deb_lintian_clean "lintian not installed (scripts/deps.sh --test installs it)"
		fi
	else
		fail "make deb" "$(cat "$T/deb.err")"
	fi
else
	skip deb_depends "no dpkg-dev (scripts/deps.sh --test installs it)"
fi
finish
