#!/bin/sh
# tidemark guard on a real kernel's memory.high (the cgroup v2 guest; the
# host is cgroup v1 for memory: no memory.events high, no cgroup PSI): a
# program growing past memory.high without swap is throttled, and a live
# guard over its recording fires high_events>N/s (memory.events high
# rising) and psi_full>P% (the cgroup's memory PSI full) at exactly the
# samples where the recorded counters start rising that fast between two
# samples (computed here from the run's series; the throttle comes in
# bursts, so a rule stops holding and fires again), and --dry-run over the
# stored run fires at the same samples.  Rules the run never reaches never fire; a guard asked for
# no snapshot and no action stores nothing but its firings.
V2_TIMEOUT=240
. "$(dirname "$0")/lib.sh"
DB=$T/g.db
R1='high_events > 2/s'
R2='psi_full > 5%'

# 64 MiB in 256 KiB steps under memory.high 32M, no swap (tests/v2/throttle.sh)
"$TM" record -q -o "$DB" -i 200ms --memory-high 32M --timeout 15s -- "$P" 64 0 256 10 2>"$T/err" &
rec=$!
for _ in $(seq 300); do
	run=$(sql "$DB" "select max(id) from runs" 2>/dev/null)
	[ -n "$run" ] && break
	sleep 0.2
done
timeout 120 "$TM" guard -o "$DB" --run "${run:-1}" --when "$R1" --when "$R2" --snapshot none \
	>"$T/g.out" 2>"$T/g.err"
rcg=$?
wait $rec
is "$rcg" = 0 "the guard ends with the run" "$(cat "$T/g.err")"
is "$(sql "$DB" "select outcome from runs where id=$run")" = timeout "the throttled program runs until --timeout"
fired() { sed -n "s/^fired $1 at .*(run [0-9]*, sample \([0-9]*\)).*/\1/p" "$T/g.out" | tr '\n' ' '; }
f1=$(fired 'high_events>2\/s')
f2=$(fired 'psi_full>5%')
is "${f1:+y}" = y "high_events>2/s fired, live (at samples $f1)" "$(cat "$T/g.out")"
is "${f2:+y}" = y "psi_full>5% fired, live (at samples $f2)" "$(cat "$T/g.out")"

# The samples at which each counter starts rising faster than its rule's
# line since the sample before, from the run's series (times in
# microseconds): where the rule starts to hold, and so fires.
"$TM" report -o "$DB" --series "$run" >"$T/series.csv"
starts_over()
{
	awk -F, -v col="$1" -v line="$2" -v scale="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) { if ($i == col) c = i; if ($i == "seq") q = i; if ($i == "t_mono_usec") t = i } next }
		{ h = $c != "" && pv != "" && $t > pt && $c >= pv && ($c - pv) * scale / ($t - pt) > line
		  if (h && !held) printf "%s ", $q
		  held = h; pv = $c; pt = $t }' "$T/series.csv"
}
w1=$(starts_over cg_events_high 2 1000000)
w2=$(starts_over cg_psi_mem_full_usec 0.05 1)
is "$f1" = "$w1" "high_events>2/s fired where memory.events high started rising > 2/s" \
	"$(head -1 "$T/series.csv" | cut -c1-200)"
is "$f2" = "$w2" "psi_full>5% fired where PSI full started rising > 5% of the time"

"$TM" guard -o "$DB" --run "$run" --when "$R1" --when "$R2" --dry-run >"$T/d.out" 2>&1
is "$(sed -n 's/^would fire \(.*(run [0-9]*, sample [0-9]*)\).*/\1/p' "$T/d.out")" = \
	"$(sed -n 's/^fired \(.*(run [0-9]*, sample [0-9]*)\).*/\1/p' "$T/g.out")" \
	"--dry-run fires at the same samples and times as the live guard"
"$TM" guard -o "$DB" --run "$run" --when 'high_events>100000/s' --when 'current>200%high' --dry-run >"$T/n.out" 2>&1
is "$(tail -1 "$T/n.out")" = "0 firings" "lines the run never reaches never fire"
# (the snapshots table is made at the first row)
rows=0
[ "$(sql "$DB" "select count(*) from sqlite_master where name='snapshots'")" = 1 ] &&
	rows=$(sql "$DB" "select count(*) from snapshots where run_id=$run")
is "$rows" = 0 "no snapshot and no action asked: none stored"
is "$(sql "$DB" "select count(*) from events where run_id=$run and kind='guard_fired'")" = \
	"$(grep '^fired ' "$T/g.out" | grep -vc 'before the guard started')" "each live firing is an event of the run (a marker in the report and the panel)"
finish
