#!/bin/sh
# Output that reads right in a terminal (base/term.h, docs/output.md):
# colour on a terminal only (never in a pipe, nor with NO_COLOR); every
# line of --help, doctor, the report, --phases and a bench (table, notes,
# its lines on stderr) within 80 columns when COLUMNS is unset, and within
# COLUMNS when set; the bench's live line with a bar and an ETA, and a
# warning naming the interval for runs too short for theirs; "not
# available" written one way per medium and a row's zeros one way.
. "$(dirname "$0")/../lib.sh"
FIX=$TM_ROOT/tests/fixtures/doctor
ESC=$(printf '\033')
unset COLUMNS NO_COLOR

# wide FILE LIMIT: the lines of FILE (split at \r too: the live line) longer
# than LIMIT characters, with their length; nothing when none is.  A line
# of one word (a long path in an example) cannot be broken and is let be.
wide()
{
	python3 - "$1" "$2" <<'EOF'
import re, sys
limit = int(sys.argv[2])
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
for line in re.split(r"[\r\n]", text):
    line = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line)
    if len(line) > limit and " " in line.strip():
        print("%d: %s" % (len(line), line))
EOF
}

# on_tty FILE CMD...: runs CMD with a pseudo-terminal as its stdout and
# stderr (script(1)), its output into FILE.
on_tty()
{
	f=$1
	shift
	script -qec "$*" /dev/null >"$f" 2>&1 </dev/null
}

if ! command -v script >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip term_output "script(1) and python3 are needed (bsdutils, python3)"
	finish
fi

# ---- colour ----
on_tty "$T/doc.tty" "$TM" doctor --root "$FIX/v1"
"$TM" doctor --root "$FIX/v1" >"$T/doc.pipe" 2>&1
on_tty "$T/doc.nocolor" NO_COLOR=1 "$TM" doctor --root "$FIX/v1"
check color_doctor_problem_red_on_tty grep -q "${ESC}\[1;31mPROBLEM${ESC}\[0m" "$T/doc.tty"
check color_doctor_none_in_pipe sh -c "grep -q PROBLEM '$T/doc.pipe' && ! grep -q '$ESC' '$T/doc.pipe'"
check color_doctor_none_with_no_color sh -c "grep -q PROBLEM '$T/doc.nocolor' && ! grep -q '$ESC' '$T/doc.nocolor'"
on_tty "$T/doc.empty" NO_COLOR= "$TM" doctor --root "$FIX/v1"
check color_no_color_empty_is_unset grep -q "${ESC}\[1;31mPROBLEM" "$T/doc.empty"
CLICOLOR_FORCE=1 "$TM" doctor --root "$FIX/v1" >"$T/doc.force" 2>&1
check color_forced_in_pipe grep -q "${ESC}\[1;31mPROBLEM" "$T/doc.force"

# a run the OOM killer ends: python3 writing 300 MiB under a 48M limit
"$TM" record -q -o "$T/oom.db" -i 50ms --memory-max 48M --swap-max 0 -- \
	python3 -c 'x = b"x" * (300 << 20)' >/dev/null 2>&1
on_tty "$T/oom.tty" "$TM" report -o "$T/oom.db"
"$TM" report -o "$T/oom.db" >"$T/oom.pipe" 2>&1
on_tty "$T/oom.nocolor" NO_COLOR=1 "$TM" report -o "$T/oom.db"
if grep -q 'outcome     oom-killed' "$T/oom.pipe"; then
	check color_report_oom_red_on_tty grep -q "outcome     ${ESC}\[1;31moom-killed${ESC}\[0m" "$T/oom.tty"
	check color_report_none_in_pipe sh -c "! grep -q '$ESC' '$T/oom.pipe'"
	check color_report_none_with_no_color sh -c "! grep -q '$ESC' '$T/oom.nocolor'"
else
	fail color_report_oom "the run was not oom-killed: $(grep outcome "$T/oom.pipe")"
fi

# ---- width: a real run with marks and progress, and a bench ----
cat >"$T/work.sh" <<'EOF'
i=0
while [ $i -lt 8 ]; do
	i=$((i + 1))
	echo "height=$i"
	[ $i = 3 ] && echo load-one-with-a-long-name > "$TIDEMARK_MARK"
	[ $i = 6 ] && echo load-two-with-a-long-name > "$TIDEMARK_MARK"
	sleep 0.1
done
EOF
"$TM" record -q -o "$T/r.db" -i 50ms --progress 'height=([0-9]+)' -- sh "$T/work.sh" \
	>"$T/rec.out" 2>&1
"$TM" report -o "$T/r.db" >"$T/report.txt" 2>&1
"$TM" report -o "$T/r.db" --phases >"$T/phases.txt" 2>&1
check_eq width_report_80 "$(wide "$T/report.txt" 80)" ""
check_eq width_phases_80 "$(wide "$T/phases.txt" 80)" ""
check width_phases_all_columns grep -q 'rate/min' "$T/phases.txt"
COLUMNS=200 "$TM" report -o "$T/r.db" --phases >"$T/phases.wide" 2>&1
check width_phases_one_table_when_wide sh -c "[ \$(grep -c '^  phase ' '$T/phases.wide') = 1 ] &&
	[ \$(grep -c '^  phase ' '$T/phases.txt') -ge 2 ]"

# a bench of runs far shorter than 10 samples at the default interval
"$TM" bench -o "$T/b.db" -n 2 --arm glibc --arm arena1 --arm 'arena2:MALLOC_ARENA_MAX=2' \
	--progress 'height=([0-9]+)' -- sh "$T/work.sh" >"$T/bench.out" 2>"$T/bench.err"
"$TM" bench -o "$T/b.db" --table 1 --phases >"$T/bphases.txt" 2>&1
check_eq width_bench_table_80 "$(wide "$T/bench.out" 80)" ""
check_eq width_bench_stderr_80 "$(wide "$T/bench.err" 80)" ""
check_eq width_bench_phases_80 "$(wide "$T/bphases.txt" 80)" ""
check width_bench_every_arm sh -c "grep -q 'glibc (control)' '$T/bench.out' &&
	grep -q 'arena1' '$T/bench.out' && grep -q 'arena2' '$T/bench.out'"
COLUMNS=60 "$TM" bench -o "$T/b.db" --table 1 >"$T/bench.60" 2>&1
check_eq width_bench_columns_60 "$(wide "$T/bench.60" 60)" ""
"$TM" doctor >"$T/doctor.txt" 2>&1
check_eq width_doctor_80 "$(wide "$T/doctor.txt" 80)" ""

help_wide=
for c in "" record bench report runs advise heap hprof doctor serve mark prune guard; do
	"$TM" $c --help >"$T/help" 2>&1
	w=$(wide "$T/help" 80)
	[ -n "$w" ] && help_wide="$help_wide
${c:-tidemark}: $w"
	COLUMNS=64 "$TM" $c --help >"$T/help" 2>&1
	w=$(wide "$T/help" 64)
	[ -n "$w" ] && help_wide="$help_wide
${c:-tidemark} (COLUMNS=64): $w"
done
check_eq width_help "$help_wide" ""
# wrapped help still lists every option the wide one does
"$TM" record --help | grep -oE -- '--[a-z][a-z-]+' | sort -u >"$T/opts.80"
COLUMNS=300 "$TM" record --help | grep -oE -- '--[a-z][a-z-]+' | sort -u >"$T/opts.wide"
check_eq width_help_keeps_options "$(diff "$T/opts.wide" "$T/opts.80")" ""

# ---- the live line and short runs ----
check short_run_warning_names_interval sh -c "tr '\n' ' ' <'$T/bench.err' |
	grep -qE 'warning: a run of .* samples at -i 200ms.*use +-i +(50|100)ms'"
check short_run_warning_once sh -c "[ \$(grep -c 'warning: a run of' '$T/bench.err') = 1 ]"
on_tty "$T/live.tty" "$TM" bench -o "$T/l.db" -n 2 -i 50ms --arm glibc --arm arena1 -- sleep 0.6
check live_line_bar_and_eta grep -qE '\[#+-*\] [1-3]/4 ETA [0-9]+s' "$T/live.tty"
check live_line_no_eta_before_a_run grep -qE '\[-+\] 0/4 ETA \?' "$T/live.tty"
check live_line_not_in_pipe sh -c "! grep -q 'ETA' '$T/bench.err'"
check_eq live_line_fits "$(wide "$T/live.tty" 80)" ""

# ---- "not available" one way per medium, zeros one way per row ----
"$TM" report -o "$T/r.db" --json >"$T/r.json"
"$TM" report -o "$T/r.db" --csv >"$T/r.csv"
"$TM" report -o "$T/r.db" --phases --json >"$T/ph.json"
"$TM" report -o "$T/r.db" --phases --csv >"$T/ph.csv"
"$TM" runs -o "$T/r.db" --json >"$T/runs.json"
"$TM" runs -o "$T/r.db" >"$T/runs.txt"
"$TM" bench -o "$T/b.db" --table 1 --json >"$T/b.json"
"$TM" bench -o "$T/b.db" --table 1 --export "csv:$T/b.csv" >/dev/null
bad=$(python3 - "$T" <<'EOF'
import csv, json, re, sys
d = sys.argv[1]
out = []
def values(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from values(v, path + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from values(v, "%s[%d]" % (path, i))
    else:
        yield path, o
for name in ["r.json", "ph.json", "runs.json", "b.json"]:
    text = open("%s/%s" % (d, name), encoding="utf-8").read()
    dec, pos = json.JSONDecoder(), 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        doc, pos = dec.raw_decode(text, pos)
        for p, v in values(doc):
            # a figure not known is null: never n/a, a dash, or -1 (.row
            # is the table's row id, where -1 is the header row)
            if v in ("n/a", "—", "-", "-1") or (type(v) in (int, float) and v == -1
                                                and not p.endswith(".row")):
                out.append("%s %s: %r" % (name, p, v))
for name in ["r.csv", "ph.csv", "b.csv"]:
    for row in csv.reader(open("%s/%s" % (d, name), encoding="utf-8")):
        for cell in row:
            if cell.strip() in ("n/a", "null", "NULL", "—", "-1", "nan", "NaN"):
                out.append("%s: %r in %s" % (name, cell, row))
for name in ["report.txt", "phases.txt", "bench.out", "bphases.txt", "runs.txt"]:
    for line in open("%s/%s" % (d, name), encoding="utf-8"):
        # text says n/a: no dash cell, no null, no -1 figure
        if re.search(r"(^|  )—(  |$)|\bnull\b|(^|\s)-1(\s|$)", line):
            out.append("%s: %s" % (name, line.rstrip()))
        # zeros one way in a row: no 0 [0–0] beside a figure with decimals
        if re.search(r"(^|\s)0 \[0–0\]", line) and re.search(r"\d\.\d+ \[", line):
            out.append("%s: two zeros: %s" % (name, line.rstrip()))
print("\n".join(out))
EOF
)
check_eq not_available_one_way "$bad" ""

finish
