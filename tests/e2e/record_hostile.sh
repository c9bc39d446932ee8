#!/bin/sh
# A recorded process, or any local user, controls names that tidemark opens
# as root (docs/THREAT-MODEL.md, "what the recorder trusts"):
# - a JVM-looking process maps a file whose name holds a newline (maps shows
#   it as \012) and puts a FIFO, or a symbolic link to one, at the literal
#   path: `record -p PID` keeps sampling, reads the real file, and ends on
#   SIGTERM;
# - heap regions live in a 0700 directory of their user's: names another
#   user squats in /dev/shm cost a victim that is not root nothing, a
#   region planted for a running process or for a dead pid carrying the
#   recorder's keep tag is never read (no forged peak in `heap stats` or in
#   a recording), and a squatted directory is refused with the reason;
# - a /tmp/tidemark-UID squatted by another user is refused for marks.
. "$(dirname "$0")/../lib.sh"
NOBODY=65534
SQUATTER=54321 # a uid with no account: another local user
P=$TM_BUILD/progs

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || [ ! -x /usr/bin/python3 ]; then
	skip record_hostile "needs root, setpriv and /usr/bin/python3 to act as another user"
	finish
fi
as_user() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }

# A world-readable place for the attackers' files ($T is 0700).
A=$T/attack
mkdir -p "$A"
chmod 755 "$T" "$A"
chown "$NOBODY" "$A"
cp "$TM_ROOT/tests/fixtures/hsperf/g1-hold64.hsperf" "$A/g1.hsperf"
chmod 644 "$A/g1.hsperf"

# jvm_attack KIND: starts, as nobody, a process that maps the hsperfdata
# copy at a name with a newline, with KIND (fifo, link) at the literal
# name; its pid is in $A/KIND.pid once the mapping exists.
jvm_attack()
{
	d=$A/$1/hsperfdata_nobody
	as_user $NOBODY mkdir -p "$d"
	as_user $NOBODY /usr/bin/python3 - "$d" "$1" "$A/g1.hsperf" "$A/$1.pid" <<'EOP' >"$A/$1.log" 2>&1 &
import mmap, os, shutil, sys, time
d, kind, src, pidfile = sys.argv[1:5]
real = os.path.join(d, "1\n2")
literal = os.path.join(d, "1\\0122")
shutil.copyfile(src, real)
if kind == "fifo":
    os.mkfifo(literal)
else:
    os.mkfifo(os.path.join(d, "..", "elsewhere.fifo"))
    os.symlink(os.path.join(d, "..", "elsewhere.fifo"), literal)
f = open(real, "r+b")
m = mmap.mmap(f.fileno(), 0)
open(pidfile + ".tmp", "w").write(str(os.getpid()))
os.rename(pidfile + ".tmp", pidfile)
time.sleep(60)
EOP
	i=0
	while [ ! -s "$A/$1.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

for kind in fifo link; do
	name="record -p of a process that maps a name with a newline, with a $kind at the literal name"
	jvm_attack $kind
	apid=$(cat "$A/$kind.pid" 2>/dev/null)
	if [ -z "$apid" ] || ! grep -q '\\0122' "/proc/$apid/maps"; then
		fail "$name" "the attacker did not start or its maps show no escaped newline: pid '$apid' $(cat "$A/$kind.log")"
		continue
	fi
	"$TM" record -q -o "$T/jvm-$kind.db" -i 100ms --no-cgroup -p "$apid" >"$T/jvm-$kind.out" 2>&1 &
	rpid=$!
	sleep 2.5
	kill -TERM $rpid
	i=0
	while kill -0 $rpid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $rpid 2>/dev/null; then
		kill -KILL $rpid
		wait $rpid 2>/dev/null
		fail "$name" "the recorder still ran 5 s after SIGTERM: $(tail -3 "$T/jvm-$kind.out")"
		kill "$apid"
		continue
	fi
	wait $rpid
	"$TM" report -o "$T/jvm-$kind.db" --series >"$T/jvm-$kind.csv" 2>&1
	n=$(($(wc -l <"$T/jvm-$kind.csv") - 1))
	used=$(/usr/bin/python3 -c 'import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("jvm_heap_used_bytes")]
print(rows[-1]["jvm_heap_used_bytes"] if rows else "")' "$T/jvm-$kind.csv" 2>/dev/null)
	# 2.5 s at 100 ms: 25 samples on a quiet machine, at least 10 on a busy
	# one (a hung recorder has none); the real file (not the FIFO) read
	test_expect "$name: $n samples, the real file's heap used $used bytes, ended by SIGTERM" '[ "$n" -ge 10 ] && [ -n "$used" ] || test_why "$n samples (want >= 10), jvm_heap_used_bytes '\''$used'\''"'
	kill "$apid"
done

# ---- heap regions: squatted names and forged regions --------------------
# Regions live in a directory of their user's, mode 0700
# (/dev/shm/tidemark-heap-UID): another user can plant names in /dev/shm
# itself, not in it.  On the old layout (/dev/shm/tidemark-heap.PID) the
# squatter's names made a victim that is not root count privately (it could
# neither replace nor unlink them in the sticky /dev/shm): no heap figures.
FORGED=1099511627776 # 1 TiB: "heap live peak 1048576.0 MiB"
SHIM=$TM_BUILD/libtidemark-heap.so
# plant_all PID [KEEP_TAG STATE]: the squatter plants a forged region for PID
# everywhere it may: the old name in /dev/shm and inside each user's
# directory (refused by the kernel when the directory is not its own);
# prints where it could
plant_all()
{
	for f in /dev/shm/tidemark-heap.$1 /dev/shm/tidemark-heap-0/$1 /dev/shm/tidemark-heap-$NOBODY/$1; do
		as_user $SQUATTER "$P/heap_forge" "$f" "$1" $FORGED ${2:-} ${3:-} 2>/dev/null && echo "$f"
	done
}
unplant() { for f in $1; do [ "$(stat -c %u "$f" 2>/dev/null)" = $SQUATTER ] && rm -f "$f"; done; }

# a victim that is not root, started with the shim once its pid's names are
# squatted: it still gets its region, and `heap stats` reads the real one
mkfifo "$A/go"
chown $NOBODY "$A/go"
as_user $NOBODY sh -c 'echo $$ >"$1"; read x <"$2"; exec env LD_PRELOAD="$3" sleep 4' sh "$A/victim.pid" "$A/go" "$SHIM" &
vsh=$!
i=0
while [ ! -s "$A/victim.pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
victim=$(cat "$A/victim.pid")
planted=$(plant_all "$victim")
echo go >"$A/go"
sleep 0.5
out=$("$TM" heap stats "$victim" 2>&1)
rc=$?
uout=$(as_user $NOBODY "$TM" heap stats "$victim" 2>&1)
urc=$?
name="heap_region_squatted_names: a victim that is not root keeps its own region"
test_expect "$name (squatter planted: $(echo $planted); heap stats: $out)" '
	[ $rc = 0 ] && [ $urc = 0 ] && echo "$out" | grep -q "^pid $victim (running): live" &&
	! echo "$out$uout" | grep -q 1048576 &&
	[ "$(stat -c '\''%U %a'\'' /dev/shm/tidemark-heap-$NOBODY 2>/dev/null)" = "nobody 700" ] || test_why "root: exit $rc: $out; nobody: exit $urc: $uout; planted: $planted; dir: $(ls -ld /dev/shm/tidemark-heap-$NOBODY 2>&1)"'
wait $vsh
unplant "$planted"

# a command root records that changes user (setpriv, runuser) cannot
# write root's directory: its shim uses its own user's, where the recorder
# finds it (/proc/PID's owner)
"$TM" record -q -o "$T/ru.db" -i 100ms --no-cgroup --heap -- \
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups sh -c 'sleep 1' >"$T/ru.out" 2>&1
peak=$("$TM" report -o "$T/ru.db" --json 2>/dev/null | sed -n 's/.*"heap_peak_bytes": *\([0-9][0-9]*\).*/\1/p' | head -1)
test_expect "heap_region_user_changed: a recorded command that changes user keeps its region (heap peak $peak bytes)" '[ -n "$peak" ] && [ "$peak" -gt 0 ] && ! grep -q "counting privately" "$T/ru.out" || test_why "heap peak '\''$peak'\'': $(cat "$T/ru.out")"'

# a region planted for a root process: heap stats says none, never its figures
sleep 30 &
victim=$!
planted=$(plant_all $victim)
out=$("$TM" heap stats $victim 2>&1)
rc=$?
test_expect "heap stats refuses a region another user planted for a root process ($out; planted: $(echo $planted))" '[ $rc -ne 0 ] && ! echo "$out" | grep -q 1048576 || test_why "exit $rc: $out"'
unplant "$planted"
kill $victim

# a planted region of a dead pid with the recorder's keep tag (pid and
# start time, both readable by anyone), and regions for the next pids
"$TM" record -q -o "$T/heap.db" -i 100ms --heap -- sh -c 'sleep 2' >"$T/heap.out" 2>&1 &
rpid=$!
sleep 0.3
start=$(sed 's/.*) //' "/proc/$rpid/stat" | cut -d' ' -f20)
tag=$(((rpid << 32 | (start & 0xffffffff)) | 2))
dead=$rpid
i=0
while [ $i -lt 400 ]; do # a pid that is free now
	dead=$((dead + 7919))
	[ $dead -gt 4000000 ] && dead=$((dead - 3990000))
	kill -0 $dead 2>/dev/null || [ -e /dev/shm/tidemark-heap.$dead ] || break
	i=$((i + 1))
done
planted=$(plant_all $dead "$tag" 1)
next=$(($(cat /proc/sys/kernel/ns_last_pid) + 1))
for pid in $(seq $next $((next + 20))); do
	planted="$planted $(plant_all $pid)"
done
wait $rpid
unplant "$planted"
peak=$("$TM" report -o "$T/heap.db" --json 2>/dev/null | /usr/bin/python3 -c 'import json, sys
def find(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if "heap" in k and "peak" in k and isinstance(v, (int, float)):
                yield v
            yield from find(v)
    elif isinstance(o, list):
        for v in o:
            yield from find(v)
print(max(find(json.load(sys.stdin)), default=""))')
test_expect "record --heap takes no forged region (planted $(echo $planted | wc -w) files outside its directory; heap peak $peak bytes)" '[ -n "$peak" ] && [ "${peak%.*}" -lt $FORGED ] || test_why "heap peak '\''$peak'\'' (forged $FORGED): $(cat "$T/heap.out")"'

# ---- marks through a squatted /tmp/tidemark-UID ----------------------------
squat=/tmp/tidemark-$NOBODY
if [ -e "$squat" ]; then
	skip "a squatted $squat is refused" "$squat exists already"
else
	as_user $SQUATTER mkdir -m 0777 "$squat"
	as_user $NOBODY "$TM" record -o "$A/marks.db" -i 100ms -- sleep 1 >"$T/marks.out" 2>&1
	rc=$?
	left=$(ls -A "$squat")
	out=$(as_user $NOBODY "$TM" mark hello 2>&1)
	test_expect "a squatted $squat is refused: the recording runs without marks, mark says why ($out)" '[ $rc = 0 ] && [ -z "$left" ] && echo "$out" | grep -q "owned by uid $SQUATTER" || test_why "record exit $rc, in the dir: '\''$left'\'', mark: $out, record: $(cat "$T/marks.out")"'
	rm -rf "$squat"
fi
# a squatted directory: another user's, or writable by others, or a link;
# `record --heap` says so and runs nothing rather than count nowhere
sq=/dev/shm/tidemark-heap-$NOBODY
if [ -z "$(ls -A "$sq" 2>/dev/null)" ]; then
	for kind in squatter-owned nobody-0777 link; do
		rm -rf "$sq"
		case $kind in
		squatter-owned) as_user $SQUATTER mkdir -m 0700 "$sq" ;;
		nobody-0777) as_user $NOBODY mkdir -m 0777 "$sq" && chmod 0777 "$sq" ;;
		link) as_user $SQUATTER mkdir -m 0700 "$A/elsewhere" 2>/dev/null; as_user $SQUATTER ln -s "$A/elsewhere" "$sq" ;;
		esac
		out=$(cd "$A" && as_user $NOBODY "$TM" record -q -o "$A/sq-$kind.db" -i 100ms --no-cgroup --heap -- sh -c 'echo ran' 2>&1)
		rc=$?
		name="heap_region_dir_squatted ($kind): record --heap refuses it and says why"
		test_expect "$name ($out)" '
			[ $rc -ne 0 ] && echo "$out" | grep -q "heap region directory '\''$sq'\'' is refused" &&
			! echo "$out" | grep -q '\''^ran$'\'' || test_why "exit $rc: $out"'
		rm -rf "$sq"
	done
	rm -rf /tmp/tidemark-$NOBODY # its marks directory, made by these records
else
	skip heap_region_dir_squatted "$sq holds regions of running processes"
fi

finish
