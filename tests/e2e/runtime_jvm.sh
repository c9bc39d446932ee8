#!/bin/sh
# The Java heap beside anon, from a real JVM's hsperfdata file: a program
# that retains 48 MiB, recorded while jstat -gc reads the same counters;
# the stored old-gen and committed heap equal jstat's, the old gen holds the
# 48 MiB retained; the report and its JSON show them.  A JVM in its own
# mount namespace (a private /tmp) is found through /proc/PID/root.  A run
# with no JVM has the figures absent (n/a, null), never 0.
. "$(dirname "$0")/../lib.sh"

if ! command -v javac >/dev/null || ! command -v jstat >/dev/null; then
	skip runtime_jvm "no javac/jstat (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/Retain.java" || { fail jvm_java_builds "javac failed"; finish; }

# run_jvm TAG [WRAPPER...]: records Retain 48 until jstat has read it.
run_jvm()
{
	tag=$1
	shift
	mkfifo "$T/$tag.in"
	"$TM" record -q -o "$T/$tag.db" -i 100ms --no-cgroup -- "$@" java -XX:+UseSerialGC -Xmx256m \
		-cp "$T" Retain 48 "$T/$tag.pid" <"$T/$tag.in" >"$T/$tag.out" 2>"$T/$tag.err" &
	rpid=$!
	exec 3>"$T/$tag.in"
	i=0
	while [ ! -s "$T/$tag.pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	jpid=$(cat "$T/$tag.pid" 2>/dev/null)
	sleep 1
	# jstat reads the file by pid; in a private /tmp only through the
	# process's own root
	if [ -e "/tmp/hsperfdata_$(id -un)/$jpid" ]; then
		jstat -gc "$jpid" >"$T/$tag.jstat" 2>&1
	else
		jstat -gc "file:///proc/$jpid/root/tmp/hsperfdata_$(id -un)/$jpid" >"$T/$tag.jstat" 2>&1
	fi
	sleep 0.5
	# the recording is stopped while the JVM still holds its 48 MiB: what
	# it holds at the end is measured only so (issue 19)
	kill -INT $rpid
	exec 3>&-
	wait $rpid
}

# compare TAG: the last sample's old used and committed heap against jstat
# (KiB, one decimal), and old used against the 48 MiB retained.
compare()
{
	"$TM" report -o "$T/$1.db" --series >"$T/$1.csv" || return 1
	python3 - "$T/$1.jstat" "$T/$1.csv" <<'EOP'
import csv, sys
lines = open(sys.argv[1]).read().split('\n')
j = dict(zip(lines[0].split(), lines[1].split()))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r.get('jvm_old_used_bytes')]
if not rows:
    print('no sample has jvm_old_used_bytes; jstat: %s' % j); sys.exit(1)
last = rows[-1]
old = int(last['jvm_old_used_bytes']); cap = int(last['jvm_heap_committed_bytes'])
jcap = sum(float(j[k]) for k in ('EC', 'S0C', 'S1C', 'OC'))
bad = []
if abs(old / 1024 - float(j['OU'])) > 0.051: bad.append('old %d vs jstat OU %s KiB' % (old, j['OU']))
if abs(cap / 1024 - jcap) > 0.2: bad.append('committed %d vs jstat %.1f KiB' % (cap, jcap))
if not 48 << 20 <= old <= 56 << 20: bad.append('old %d not 48 MiB retained + < 8 MiB' % old)
if int(last['jvm_procs']) != 1: bad.append('jvm_procs %s' % last['jvm_procs'])
if int(last['jvm_full_gcs']) != int(j['FGC']): bad.append('full gcs %s vs %s' % (last['jvm_full_gcs'], j['FGC']))
if bad: print('; '.join(bad)); sys.exit(1)
print('old %.1f MiB = jstat, committed %.1f MiB = jstat' % (old / 2**20, cap / 2**20))
EOP
}

run_jvm host
out=$(compare host 2>&1)
cmp_rc=$?
test_expect "jvm heap series equal jstat -gc at the same moment ($out)" '[ $cmp_rc = 0 ] || test_why "$out $(cat "$T/host.err" | head -5)"'
"$TM" report -o "$T/host.db" >"$T/host.txt"
test_expect "report shows the Java heap beside anon" '
	grep -Eq '\''^  java heap   used at the end (4[89]|5[0-9])\.[0-9] MiB of [0-9.]* MiB committed \(old 4[89]\.[0-9] MiB, metaspace [0-9.]* MiB\), peak used [0-9.]* MiB; [1-9][0-9]* GCs, [0-9.]* s in GC'\'' "$T/host.txt" &&
	grep -Eq '\''anon at the end [0-9.]* MiB = ((4[89]|5[0-9]).[0-9] MiB Java heap used|[0-9.]* MiB Java heap resident \((4[89]|5[0-9]).[0-9] MiB used, [0-9.]* MiB free but touched\)) \+ [0-9.]* MiB the rest'\'' "$T/host.txt" || test_why "$(grep -A1 '\''java\|anon'\'' "$T/host.txt")"'
check "report --json has the JVM figures" sh -c \
	"'$TM' report -o '$T/host.db' --json | python3 -c 'import json,sys; f=json.load(sys.stdin)[\"figures\"]; assert f[\"jvm_old_used_end_bytes\"] >= 48<<20, f; assert f[\"jvm_gcs\"] is not None'"

# a private hsperfdata directory: the file is not at the host's path, only
# under /proc/PID/root
if unshare -m true 2>/dev/null; then
	mkdir -p "/tmp/hsperfdata_$(id -un)"
	cat >"$T/privtmp.sh" <<EOS
mount -t tmpfs -o mode=0755 none "/tmp/hsperfdata_$(id -un)" && exec "\$@"
EOS
	run_jvm ns unshare -m sh "$T/privtmp.sh"
	out=$(compare ns 2>&1)
	cmp_rc=$?
	test_expect "a JVM with a private hsperfdata directory is found through /proc/PID/root ($out)" '[ $cmp_rc = 0 ] || test_why "$out $(head -5 "$T/ns.err")"'
else
	skip jvm_private_tmp "unshare -m is not permitted here"
fi

# no JVM: absent, not 0
"$TM" record -q -o "$T/none.db" -i 100ms --no-cgroup -- sleep 0.5
"$TM" report -o "$T/none.db" >"$T/none.txt"
test_expect "no JVM: no java heap line" '! grep -q "java heap" "$T/none.txt" || test_why "$(grep java "$T/none.txt")"'
check "no JVM: the JVM figures are null in JSON" sh -c \
	"'$TM' report -o '$T/none.db' --json | python3 -c 'import json,sys; f=json.load(sys.stdin)[\"figures\"]; assert f[\"jvm_heap_used_end_bytes\"] is None and f[\"jvm_gcs\"] is None, f'"
finish
