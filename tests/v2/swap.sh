#!/bin/sh
# memory.swap.max on a real kernel with swap (a 256 MiB swap disk): 0 means
# an OOM kill where a limit lets the run swap and complete; what the run
# swapped is recorded and agrees with the cgroup's memory.swap.current.
V2_SWAP_MIB=256
. "$(dirname "$0")/lib.sh"
DB=$T/s.db
total=$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)
is "$total" -gt 200000 "the guest has swap ($total kB)"

# from inside the run's cgroup: the most memory.swap.current showed while
# the work held (read every 100 ms, as the recorder samples)
cat >"$T/self.sh" <<'SH'
d=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
"$@" >"$OUT/prog" &
prog=$!
for _ in $(seq 300); do grep -q ready "$OUT/prog" && break; sleep 0.1; done
max=0
while kill -0 $prog 2>/dev/null; do
	v=$(cat "$d/memory.swap.current")
	[ "$v" -gt "$max" ] && max=$v
	sleep 0.1
done
echo $max >"$OUT/swap"
wait
SH

"$TM" record -q -o "$DB" -i 100ms --memory-max 32M --swap-max 0 -- "$P" 64 300 2>/dev/null
run=$(last_run "$DB")
is "$(sql "$DB" "select outcome from runs where id=$run")" = oom-killed \
	"64 MiB under memory.max 32M and memory.swap.max 0 is OOM-killed"
is "$(series "$DB" "$run" cg_swap_current_bytes | sort -n | tail -1)" -eq 0 "and swaps nothing"

OUT=$T "$TM" record -q -o "$DB" -i 100ms --memory-max 32M --swap-max 96M -- sh "$T/self.sh" "$P" 64 1500 2>"$T/err"
run=$(last_run "$DB")
is "$(sql "$DB" "select outcome from runs where id=$run")" = completed \
	"with memory.swap.max 96M it swaps and completes" "$(cat "$T/err")"
is "$(sql "$DB" "select json_extract(limits_json, '$.swap_max.value') from runs where id=$run")" = 100663296 \
	"the run says memory.swap.max became 96 MiB"
kswap=$(cat "$T/swap")
is "$kswap" -ge $((30 * 1048576)) "the kernel's memory.swap.current held what did not fit (>= 30 MiB)"
rswap=$(series "$DB" "$run" cg_swap_current_bytes | sort -n | tail -1)
is "$rswap" -ge $((kswap - 2097152)) "the recorded peak swap agrees with memory.swap.current's (-2 MiB)" "$rswap vs $kswap"
is "$rswap" -le $((kswap + 2097152)) "the recorded peak swap agrees with memory.swap.current's (+2 MiB)" "$rswap vs $kswap"
is "$(fig "$DB" "$run" peak_current_bytes)" -le 33554432 "memory.current stays under memory.max"
finish
