# Helpers for end-to-end tests: source it, then report with ok/fail/skip.
# Each test file runs in its own shell with $TM (the tidemark binary),
# $TM_ROOT (the checkout) and $TM_BUILD (the build directory) set.
set -u
: "${TM:=$(cd "$(dirname "$0")/../.." && pwd)/build/tidemark}"
: "${TM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TM_BUILD:=$TM_ROOT/build}"
# Text output wraps at $COLUMNS, else 80 (base/term.h); the tests read
# and pin its lines unwrapped, so they run wide.  tests/e2e/term_output.sh
# unsets it to check the default.  No colour unless a test asks for it.
COLUMNS=1000
export COLUMNS
unset CLICOLOR_FORCE
T=$(mktemp -d /tmp/tidemark-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok - $*"; }
fail() { echo "not ok - $1"; shift; [ $# -gt 0 ] && echo "# $*"; return 0; }
skip() { echo "ok - $1 # SKIP $2"; }

# finish: the last command of every test script.  tests/run.sh counts a
# script that never printed this line (it stopped early) as a failure.
finish()
{
	echo "# tidemark-test-finished"
	exit 0
}

# check NAME CMD...: ok when CMD exits 0; shows its output when it does not.
check()
{
	name=$1
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		fail "$name" "$(echo "$out" | tail -20 | sed 's/^/# /')"
	fi
}

# check_eq NAME ACTUAL EXPECTED: ok when the two texts are equal; a failure
# shows both (git's test_cmp).
check_eq()
{
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1" "expected: $(printf '%s' "$3" | head -10 | sed '2,$s/^/#   /')
# actual:   $(printf '%s' "$2" | head -10 | sed '2,$s/^/#   /')"
	fi
}

# test_expect NAME BODY: one check, named once (git's test_expect_success):
# runs the shell text BODY in a subshell (it sees the script's variables);
# ok NAME when it exits 0, else not ok NAME with what BODY printed (its last
# 20 lines) and BODY itself.  Inside BODY, test_eq, test_cmp and test_grep
# say what they compared when they fail.
#   test_expect "report names a -p run" '
#	"$TM" report -o "$T/p.db" >"$T/r.txt" && test_grep "sleep 1.27" "$T/r.txt"'
test_expect()
{
	_te_name=$1 _te_body=$2
	if _te_out=$( (eval "$_te_body") 2>&1); then
		ok "$_te_name"
	else
		fail "$_te_name" "$(printf '%s\n' "$_te_out" | tail -20 | sed '2,$s/^/# /')
# in: $(printf '%s' "$_te_body" | sed -e '1{/^$/d}' | head -6 | sed '2,$s/^/#   /')"
	fi
}

# test_eq WHAT ACTUAL EXPECTED (in a test_expect body): 0 when equal, else
# says both and returns 1.
test_eq()
{
	[ "$2" = "$3" ] && return 0
	echo "$1: expected '$3', actual '$2'"
	return 1
}

# test_why TEXT... (in a test_expect body, after ||): says TEXT, the values
# the body compared, and returns 1.
#   test_expect "the log names the run" '
#	grep -q "run 1" "$T/log" || test_why "$(cat "$T/log")"'
test_why()
{
	printf '%s\n' "$*"
	return 1
}

# test_cmp EXPECTED_FILE ACTUAL_FILE (in a test_expect body): 0 when the
# files are the same, else their diff (git's test_cmp).
test_cmp() { diff -u "$1" "$2"; }

# test_grep PATTERN FILE (in a test_expect body): 0 when a line of FILE
# matches the extended regex PATTERN, else says so with FILE's first lines.
test_grep()
{
	grep -qE -- "$1" "$2" && return 0
	echo "no line of $2 matches '$1'; it holds:"
	head -10 "$2"
	return 1
}

# check_fails NAME PATTERN CMD...: ok when CMD exits non-zero and its
# stderr/stdout matches PATTERN (a clear message, not a crash).
check_fails()
{
	name=$1 pattern=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && echo "$out" | grep -qE "$pattern"; then
		ok "$name"
	else
		fail "$name" "exit $rc, output: $(echo "$out" | head -5)"
	fi
}

# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds.
wait_for()
{
	n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# sql DB QUERY: one value from the store.
sql() { sqlite3 -batch -noheader "$1" "$2"; }

# listen_fd PORTFILE CMD...: runs CMD as systemd's socket activation would
# (sd_listen_fds(3)): a TCP socket listening on 127.0.0.1 at a port from
# the kernel (written to PORTFILE before CMD starts) as fd 3, LISTEN_FDS=1
# and LISTEN_PID=CMD's pid (exec keeps the pid).  LISTEN_DELAY seconds
# (default 0) pass between the port's file and the exec, so that a client
# can be queued on the socket before CMD takes it.
listen_fd()
{
	python3 -c 'import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(float(os.environ.get("LISTEN_DELAY", "0")))
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getpid())
os.execvp(sys.argv[2], sys.argv[2:])' "$@"
}
