#!/bin/sh
# One error channel (base/error.h), in the folders converted to it: no
# function takes a reason as a (char *why, size_t why_size) or (char *err,
# size_t errlen) pair - it takes a struct tm_err *ERR - and nothing calls
# tm_error_buf; library code (all of these but cmd/) writes to stderr only
# through tm_error, tm_warn and tm_note (base/error.c, which implements
# them, excepted).  A line that must keep the old form for code not yet
# converted (base/opt.h's callbacks of bench/) says "errcheck: allow".
# Prints each violation as FILE:LINE: WHAT; exit 1 if any.
#   scripts/errcheck.sh [ROOT]
set -u
PAIR_FOLDERS="src/serve src/record src/cmd src/base"
STDERR_FOLDERS="src/serve src/record src/base"
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
bad=0

# FOLDERS PATTERN WHAT: the lines of FOLDERS' C files matching PATTERN.
scan() {
	folders=$1 pattern=$2 what=$3
	# shellcheck disable=SC2086 # one word per folder
	hits=$(find $folders -type f -name '*.[ch]' 2>/dev/null | sort |
		xargs -r grep -nE "$pattern" /dev/null | grep -v 'errcheck: allow' |
		grep -v '^src/base/error\.[ch]:')
	[ -z "$hits" ] && return 0
	printf "%s\n" "$hits" | sed "s/^\([^:]*:[0-9]*\):.*/\1: $what/"
	bad=1
}

scan "$PAIR_FOLDERS" 'char \*(why|err|reason), *size_t [a-z_]+|size_t (why_size|errlen|err_size|why_len)\b' \
	"a (why, why_size) reason pair: take a struct tm_err *err"
scan "$PAIR_FOLDERS" 'tm_error_buf\(' "tm_error_buf: set a struct tm_err with tm_err_set"
scan "$STDERR_FOLDERS" 'fprintf\(stderr' "raw fprintf(stderr): use tm_error, tm_warn or tm_note"
exit $bad
