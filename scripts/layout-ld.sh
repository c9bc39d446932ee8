#!/bin/sh
# The linker script that places the recorder's code and read-only data first
# (mk/layout.mk): the toolchain's own default script, as `ld --verbose`
# prints it for the link's options, with the functions of ORDER at the start
# of .text and the read-only data of its source files at the start of
# .rodata.  Output sections keep their names (.text, .rodata), so valgrind,
# perf and gdb read the executable as any other.
#
#   sh scripts/layout-ld.sh ORDER CC [LINK OPTIONS...] > SCRIPT
#
# ORDER: mk/record.order (bench/record/order.sh writes it): a function name a
# line, an archive's member (libsqlite3.a:NAME.o: its text and read-only
# data) or a source file (src/.../NAME.c); '#' starts a comment.  Fails
# when the default script lacks the two places it writes into.
set -eu
order=$1
shift
script=$("$@" -Wl,--verbose 2>/dev/null | sed -n '/^=====/,/^=====/p' | sed '1d;$d')
for anchor in '*(.text.unlikely .text.*_unlikely .text.unlikely.*)' '{ *(.rodata .rodata.* '; do
	case $script in
	*"$anchor"*) ;;
	*)
		echo "layout-ld.sh: the linker's default script has no '$anchor'" >&2
		exit 1
		;;
	esac
done
printf '%s\n' "$script" | awk -v order="$order" '
	BEGIN {
		while ((getline l < order) > 0) {
			if (l ~ /^#/ || l == "")
				continue
			if (l ~ /^[A-Za-z0-9_.+-]+\.a:[A-Za-z0-9_.+-]+\.o$/) {
				# an archive member (one section for all its functions)
				text = text sprintf("    *%s(.text .text.*)\n", l)
				data = data sprintf(" *%s(.rodata .rodata.*)", l)
			} else if (l ~ /\.c$/) {
				o = l; sub(/.*\//, "", o); sub(/\.c$/, ".o", o)
				data = data sprintf(" */%s(.rodata .rodata.*) *:%s(.rodata .rodata.*)", o, o)
			} else
				text = text sprintf("    *(.text.%s)\n", l)
		}
	}
	index($0, "*(.text.unlikely .text.*_unlikely .text.unlikely.*)") { printf "%s", text }
	index($0, "{ *(.rodata .rodata.* ") { sub(/\{ \*\(\.rodata /, "{" data " *(.rodata ") }
	{ print }'
