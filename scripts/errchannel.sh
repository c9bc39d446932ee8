#!/bin/sh
# One error channel (src/base/error.h), over all of src/: no function takes
# a reason buffer and its size as a pair (char *why, size_t why_size /
# char *err, size_t errlen / ...): it takes a struct tm_err *.  And code
# writes to stderr only through tm_error, tm_warn and tm_note: no
# fprintf(stderr, ...) or vfprintf(stderr, ...), except where a "stderr"
# line of scripts/errchannel.folders lets it (the commands, main.c, and
# base/error.c, which implements those three).
#
# usage: sh scripts/errchannel.sh [ROOT]        check ROOT (default .)
#        sh scripts/errchannel.sh --count [ROOT] count pairs and fprintfs
#                                                 in all of ROOT/src
# scripts/errchannel.folders names every folder of src/ (a folder missing
# from it fails the check, so a new one is held too).  Its lines "pending
# FILE FUNCTION" (a pair left for another change) and "data FILE FUNCTION"
# (a reason that is a result, not an error) let one function keep its
# pair; each is named, and a line that no longer matches a pair fails, so
# the list can only shrink.
count=
[ "$1" = --count ] && count=1 && shift
root=${1:-.}
list="$root/scripts/errchannel.folders"
[ -f "$list" ] || list="$(dirname "$0")/errchannel.folders"

# find FILE...: "FILE:LINE: FUNCTION: pair|fprintf TEXT" for each finding.
find_them()
{
	perl -e '
	for my $f (@ARGV) {
		open(my $h, "<", $f) or next;
		local $/;
		my $s = <$h>;
		# comments and strings out, newlines kept (line numbers stay)
		$s =~ s{/\*.*?\*/}{my $c = $&; $c =~ tr/\n//cd; $c}gse;
		$s =~ s{//[^\n]*}{}g;
		$s =~ s{"(?:\\.|[^"\\\n])*"}{""}g;
		my $re = qr/\bchar\s*\*\s*(\w+)\s*,\s*size_t\s+(\w+)/;
		while ($s =~ /$re/g) {
			my ($b, $n, $at) = ($1, $2, $-[0]);
			next unless $b =~ /^(why|err|errbuf|errmsg|reason)$/ ||
			    $n =~ /^(why_?size|why_?len|err_?len|err_?size|errsz|reason_?size)$/;
			my $pre = substr($s, 0, $at);
			# the function: the name before the unclosed "(" this is in
			my ($d, $i) = (0, length($pre) - 1);
			for (; $i >= 0; $i--) {
				my $c = substr($pre, $i, 1);
				$d++ if $c eq ")";
				if ($c eq "(") { last if $d == 0; $d--; }
			}
			my ($fn) = substr($pre, 0, $i) =~ /(\w+)\s*$/;
			$fn = "?" unless defined $fn;
			my $line = 1 + ($pre =~ tr/\n//);
			print "$f:$line: $fn: pair char *$b, size_t $n\n";
		}
		while ($s =~ /\bv?fprintf\s*\(\s*stderr\b/g) {
			my $line = 1 + (substr($s, 0, $-[0]) =~ tr/\n//);
			print "$f:$line: -: fprintf(stderr)\n";
		}
	}' "$@"
}

if [ -n "$count" ]; then
	files=$(find "$root/src" -name '*.[ch]' | sort)
	# shellcheck disable=SC2086 # one word per file
	out=$(find_them $files)
	echo "why/why_size-style pairs: $(echo "$out" | grep -c ': pair char \*why')"
	echo "err/errlen-style pairs: $(echo "$out" | grep ': pair ' | grep -vc ': pair char \*why')"
	echo "fprintf(stderr) outside src/cmd and src/main.c: $(echo "$out" | grep 'fprintf(stderr)' |
		grep -v '/src/cmd/\|/src/main\.c' | grep -c .)"
	echo "$out" | sed "s|^$root/||"
	exit 0
fi

folders=$(sed -n 's/^\([a-z_/]\{1,\}\)$/\1/p' "$list")
pending=$(sed -n 's/^\(pending\|data\) \([^ ]*\) \([^ ]*\).*/\2: \3:/p' "$list")
stderr_ok=$(sed -n 's/^stderr \([^ ]*\).*/src\/\1/p' "$list")
bad=
for d in $(cd "$root/src" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||' | sort); do
	echo "$folders" | grep -qxF "$d" ||
		bad="${bad}src/$d: not in $list (list every folder of src/)
"
done
files=$(find "$root/src" -maxdepth 1 -name '*.[ch]' | sort)
for d in $folders; do
	[ -d "$root/src/$d" ] || { echo "$list names src/$d, which is not there"; exit 2; }
	files="$files $(find "$root/src/$d" -name '*.[ch]' | sort)"
done
# shellcheck disable=SC2086 # one word per file
found=$(find_them $files | sed "s|^$root/||")
# stderr_allowed FILE: a "stderr" line names FILE or a folder above it.
stderr_allowed()
{
	for a in $stderr_ok; do
		case $1 in "$a" | "$a"/*) return 0 ;; esac
	done
	return 1
}
bad="$bad$(echo "$found" | while IFS= read -r l; do
	[ -n "$l" ] || continue
	file=${l%%:*}
	fn=$(echo "$l" | cut -d: -f3 | tr -d ' ')
	case $l in
	*': fprintf(stderr)') stderr_allowed "$file" && continue ;;
	*) echo "$pending" | grep -qxF "$file: $fn:" && continue ;;
	esac
	echo "$l"
done)"
# a pending or data line that matches no pair any more
stale=$(echo "$pending" | while IFS= read -r p; do
	[ -n "$p" ] || continue
	echo "$found" | cut -d: -f1,3 | sed 's/: */: /; s/$/:/' | grep -qxF "$p" ||
		echo "$p no pair here any more: remove its line from $list"
done)
[ -n "$stale" ] && bad="$bad
$stale"
bad=$(echo "$bad" | grep .)
if [ -n "$bad" ]; then
	echo "$bad"
	echo "errchannel: a reason pair or a raw fprintf(stderr) (see src/base/error.h: take a struct tm_err *, print with tm_error/tm_warn/tm_note)"
	exit 1
fi
exit 0
