#!/bin/sh
# tidemark snap on a real JVM whose old gen fills with one class
# (tests/progs/java/OldFill.java: 300,000 OldFill$Sidecar, 18.3 MiB):
# - jvm-histogram writes jcmd's histogram and its summary names the class,
#   with its instances; the file is jcmd's table;
# - jvm-heap-dump writes a gzip'd dump that `hprof top` reads, and the
#   holders beside it: the summary names the ArrayList holding the objects
#   with its retained size, and the JVM still runs;
# - the same for a JVM of another user (nobody), jcmd run as that user;
# - refusals say why: no such pid, not a JVM, jcmd missing, the deadline
#   passed (jcmd killed), an unknown kind, bad usage.
. "$(dirname "$0")/../lib.sh"

if ! command -v javac >/dev/null || ! command -v jcmd >/dev/null; then
	skip snap_jvm "no javac/jcmd (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
chmod 755 "$T" # the other user's JVM reads its classes here
javac -d "$T" "$TM_ROOT/tests/progs/java/OldFill.java" || { fail snap_java_builds "javac failed"; finish; }
mkdir -m 700 "$T/snaps"

# start_jvm TAG [setpriv args]: OldFill until $T/TAG.in closes; JPID
start_jvm()
{
	tag=$1
	shift
	mkfifo -m 666 "$T/$tag.in"
	: >"$T/$tag.out"
	chmod 666 "$T/$tag.out"
	"$@" java -Xmx64m -XX:+UseSerialGC -cp "$T" OldFill <"$T/$tag.in" >"$T/$tag.out" 2>&1 &
	JPID=$!
	exec 3>"$T/$tag.in"
	wait_for 30 grep -q ready "$T/$tag.out"
	# setpriv execs java: JPID is the JVM
}

start_jvm own
"$TM" snap jvm-histogram $JPID -d "$T/snaps" >"$T/h.out" 2>"$T/h.err"
rc=$?
file=$(head -1 "$T/h.out")
sum=$(sed -n 2p "$T/h.out")
check_eq snap_jvm_histogram_exit "$rc" 0
test_expect "snap_jvm_histogram_names_the_class ($sum)" '
	echo "$sum" | grep -qE '\''^[0-9]+ classes, [0-9.]+ MiB; top: OldFill\$Sidecar 18\.3 MiB \(300000\)'\'' &&
	grep -qE '\''^ +1: +300000 +19200000 +OldFill\$Sidecar$'\'' "$file" || test_why "summary '\''$sum'\'', file '\''$file'\'': $(head -5 "$file" 2>&1); $(cat "$T/h.err")"'
check_eq snap_jvm_histogram_private "$(stat -c %a "$file")" 600

"$TM" snap jvm-heap-dump $JPID -d "$T/snaps" --timeout 60s >"$T/d.out" 2>"$T/d.err"
rc=$?
dump=$(head -1 "$T/d.out")
sum=$(sed -n 2p "$T/d.out")
check_eq snap_jvm_dump_exit "$rc" 0
test_expect snap_jvm_dump_gzip 'case $dump in *.hprof.gz) ;; *) test_why "path '\''$dump'\''" ;; esac'
test_expect "snap_jvm_dump_holder ($sum)" '
	echo "$sum" | grep -qE '\''^top holder: java\.util\.ArrayList retains 19\.[0-9] MiB \(300002 objects\)'\'' &&
	grep -q '\''static OldFill.pool'\'' "$dump.holders.txt" || test_why "summary '\''$sum'\''; $(head -5 "$dump.holders.txt" 2>&1); $(cat "$T/d.err")"'
"$TM" hprof top "$dump" -n 1 >"$T/top.txt" 2>&1
check snap_jvm_dump_reads grep -qE '300000 +18\.31 .* OldFill\$Sidecar$' "$T/top.txt"
check snap_jvm_still_runs kill -0 $JPID

# refusals
check_fails snap_no_pid "no jvm-histogram of pid 999999999: no process 999999999" "$TM" snap jvm-histogram 999999999
sleep 30 &
SPID=$!
check_fails snap_not_a_jvm "pid $SPID is not a JVM \(no libjvm.so in its maps\)" "$TM" snap jvm-histogram $SPID
kill $SPID
check_fails snap_no_jcmd "jcmd not found: '$T/nojcmd' \(\\\$TIDEMARK_JCMD\) is not executable" \
	env TIDEMARK_JCMD="$T/nojcmd" "$TM" snap jvm-histogram $JPID -d "$T/snaps"
# jcmd past the deadline: a jcmd that hangs is killed at --timeout
printf '#!/bin/sh\nsleep 30\n' >"$T/slowjcmd"
chmod 755 "$T/slowjcmd"
start=$(date +%s%N)
check_fails snap_deadline "slowjcmd was killed at the deadline" \
	env TIDEMARK_JCMD="$T/slowjcmd" "$TM" snap jvm-heap-dump $JPID -d "$T/snaps" --timeout 500ms
ms=$((($(date +%s%N) - start) / 1000000))
test_expect "snap_deadline_bounded (${ms} ms)" '[ $ms -lt 5000 ] || test_why "took ${ms} ms"'
check_fails snap_bad_kind "no snapshot kind 'jvm-core'" "$TM" snap jvm-core $JPID
check_fails snap_bad_usage "snap takes KIND PID" "$TM" snap jvm-histogram
check_fails snap_bad_pid "'x1' is not a process id" "$TM" snap jvm-histogram x1
check_eq snap_refusals_leave_nothing "$(ls "$T/snaps" | grep -vc "^jvm-histogram-$JPID-\|^jvm-heapdump-$JPID-")" 0
exec 3>&-
wait $JPID

# a JVM of another user: jcmd runs as that user, the dump is staged and copied in
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	start_jvm other setpriv --reuid=65534 --regid=65534 --clear-groups
	"$TM" snap jvm-histogram $JPID -d "$T/snaps" >"$T/oh.out" 2>&1
	check snap_jvm_other_user_histogram grep -q "top: OldFill\$Sidecar 18.3 MiB (300000)" "$T/oh.out"
	"$TM" snap jvm-heap-dump $JPID -d "$T/snaps" >"$T/od.out" 2>&1
	odump=$(head -1 "$T/od.out")
	test_expect snap_jvm_other_user_dump '
		grep -q "top holder: java.util.ArrayList retains 19" "$T/od.out" &&
		[ "$(stat -c %U:%a "$odump")" = "root:600" ] && ! ls -d /tmp/tidemark-snap-* 2>/dev/null | grep -q . || test_why "$(cat "$T/od.out"); $(ls -l "$odump" /tmp/tidemark-snap-* 2>&1)"'
	exec 3>&-
	wait $JPID
else
	skip snap_jvm_other_user "needs root and setpriv"
fi
finish
