# Instructions executed, from qemu-user's "-d in_asm,exec,nochain" log:
# in_asm gives each translated block's instructions (one line each, the
# block's start first), exec one line per block executed.
/^IN:/ { inblk = 1; start = ""; next }
inblk && /^0x[0-9a-f]+:/ {
	a = substr($1, 1, length($1) - 1); sub(/^0x0*/, "", a)
	if (start == "") { start = a; n[start] = 0 }
	n[start]++
	next
}
inblk && /^$/ { inblk = 0; next }
/^Trace / {
	if (match($0, /\[[0-9a-f]+\/[0-9a-f]+\//)) {
		s = substr($0, RSTART + 1, RLENGTH - 2); split(s, f, "/"); pc = f[2]; sub(/^0*/, "", pc)
		total += n[pc]; if (!(pc in n)) miss++
	}
}
END { printf "%d %d\n", total, miss }
