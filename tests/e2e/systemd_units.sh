#!/bin/sh
# The systemd units as make install writes them (dist/systemd/*.in):
# - systemd-analyze verify finds nothing;
# - systemd-analyze security --offline=yes scores them at most what
#   docs/THREAT-MODEL.md states (the recorder keeps only CAP_SYS_PTRACE and
#   CAP_DAC_READ_SEARCH, a syscall filter, read-only kernel tunables and
#   cgroups);
# - the server has a MemoryMax=; the two units have state directories of
#   their own (a DynamicUser= unit's is moved and chowned at every start);
# - the token recipe in the server unit's comment runs as the server's user
#   on the server's state directory and store;
# - the recorder keeps raw samples for a bounded time (--keep);
# - its options (--remote-write, --metrics-listen) may come from
#   /etc/tidemark/record.conf or record@X.conf (TIDEMARK_RECORD_OPTS).
# On a real systemd, tests/v2/unit.sh starts the recorder unit.
. "$(dirname "$0")/../lib.sh"
U=$TM_ROOT/dist/systemd
for f in "$U"/*.service.in; do
	sed "s|@bindir@|$(dirname "$TM")|g" "$f" >"$T/$(basename "$f" .in)"
done
cp "$T/tidemark-record@.service" "$T/tidemark-record@node.service"
REC=$T/tidemark-record@node.service
SRV=$T/tidemark-serve.service

# the value of KEY= in FILE (the last one)
val() { sed -n "s/^$2=//p" "$1" | tail -1; }

if command -v systemd-analyze >/dev/null; then
	out=$(cd "$T" && systemd-analyze verify --man=no ./tidemark-serve.service ./tidemark-record@node.service 2>&1)
	test_expect "systemd-analyze verify passes both units" '[ -z "$out" ] || test_why "$out"'
	# the scores docs/THREAT-MODEL.md states, as upper bounds
	for pair in "tidemark-record@node.service 2.4" "tidemark-serve.service 1.4"; do
		unit=${pair% *} max=${pair#* }
		score=$(cd "$T" && systemd-analyze security --offline=yes "./$unit" 2>/dev/null |
			sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
		doc=$(grep -F "\`$unit\`" "$TM_ROOT/docs/THREAT-MODEL.md" | grep -o '[0-9]\.[0-9] OK' | head -1)
		test_expect "$unit: systemd-analyze security scores $score (docs/THREAT-MODEL.md: $doc)" '[ -n "$score" ] && awk "BEGIN{exit !($score <= $max)}" && [ "$doc" = "$max OK" ] || test_why "score '\''$score'\'', the doc says '\''$doc'\''"'
	done
else
	skip "systemd-analyze verify and security" "no systemd-analyze"
fi

caps=$(val "$REC" CapabilityBoundingSet)
filter=$(grep -c '^SystemCallFilter=' "$REC")
test_expect "the recorder unit keeps two capabilities, filters syscalls, protects tunables and cgroups" '
	[ "$caps" = "CAP_SYS_PTRACE CAP_DAC_READ_SEARCH" ] && [ "$filter" -ge 1 ] &&
	[ "$(val "$REC" ProtectKernelTunables)" = yes ] && [ "$(val "$REC" ProtectControlGroups)" = yes ] || test_why "caps '\''$caps'\'', $filter SystemCallFilter lines"'

mem=$(val "$SRV" MemoryMax)
test_expect "the server unit has MemoryMax=$mem" '[ -n "$mem" ]'

rs=$(val "$REC" StateDirectory) ss=$(val "$SRV" StateDirectory)
rdb=$(val "$REC" ExecStart | sed -n 's/.*--db \([^ ]*\).*/\1/p')
sdb=$(val "$SRV" ExecStart | sed -n 's/.*--db \([^ ]*\).*/\1/p')
case "$rdb:$sdb" in
"/var/lib/$rs/"*":/var/lib/$ss/"*) under=yes ;;
*) under=no ;;
esac
test_expect "the units have state directories of their own ($rs, $ss), each store in its own" '[ -n "$rs" ] && [ -n "$ss" ] && [ "$rs" != "$ss" ] && [ $under = yes ] || test_why "recorder '\''$rs'\'' ($rdb), server '\''$ss'\'' ($sdb)"'

# the recipe: the systemd-run lines of the server unit's comment
recipe=$(sed -n '/^#   systemd-run/,/serve token add/p' "$SRV" | sed 's/^# *//; s/\\$//' | tr '\n' ' ')
user=$(val "$SRV" User)
test_expect "the token recipe runs as the server's user ($user) on its state directory and store" '
	echo "$recipe" | grep -q -- "-p DynamicUser=yes" && [ -n "$user" ] &&
	echo "$recipe" | grep -q -- "-p User=$user " &&
	echo "$recipe" | grep -q -- "-p StateDirectory=$ss " &&
	echo "$recipe" | grep -q -- "--db $sdb" || test_why "recipe: $recipe; unit: User=$user StateDirectory=$ss --db $sdb"'

# options without a drop-in: /etc/tidemark/record.conf, then the instance's
envs=$(grep '^EnvironmentFile=' "$REC" | tr '\n' ' ')
if [ "$envs" = "EnvironmentFile=-/etc/tidemark/record.conf EnvironmentFile=-/etc/tidemark/record@node.conf " ] ||
	[ "$envs" = "EnvironmentFile=-/etc/tidemark/record.conf EnvironmentFile=-/etc/tidemark/record@%i.conf " ]; then
	test_expect "the recorder unit takes options (--remote-write ...) from /etc/tidemark/record[@X].conf" 'val "$REC" ExecStart | grep -q '\'' \$TIDEMARK_RECORD_OPTS$'\'' || test_why "$(val "$REC" ExecStart)"'
else
	fail "the recorder unit reads /etc/tidemark/record.conf and record@X.conf" "EnvironmentFile lines: $envs"
fi
keep=$(val "$REC" ExecStart | sed -n 's/.*--keep \([^ ]*\).*/\1/p')
test_expect "the recorder unit keeps raw samples for a bounded time (--keep $keep)" 'echo "$keep" | grep -q '\''raw=[0-9]'\'' || test_why "ExecStart: $(val "$REC" ExecStart)"'
# and the option parses as the recorder reads it
test_expect "--keep $keep is accepted by record" '"$TM" record --keep "$keep" -o "$T/k.db" -i 50ms -- true >"$T/k.out" 2>&1 || test_why "$(cat "$T/k.out")"'
finish
