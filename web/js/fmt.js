/*
 * Formatting: sizes as MiB, times, durations.  Missing values (null or
 * undefined) print as "—", never as 0.
 */
export const MiB = 1024 * 1024;

export function mib(b) {
	return b === null || b === undefined ? "—" : (b / MiB).toFixed(1) + " MiB";
}

export function when(usec) {
	return usec ? new Date(usec / 1000).toLocaleString() : "—";
}

export function dur(usec) {
	if (usec === null || usec === undefined) return "—";
	const s = usec / 1e6;
	return s < 120 ? s.toFixed(1) + " s" : s < 7200 ? (s / 60).toFixed(1) + " min" : (s / 3600).toFixed(1) + " h";
}

/* A tick value in MiB: whole numbers as such, else up to 4 decimals (binary steps: 0.0625). */
export function mibTick(b) {
	const v = b / MiB;
	return Number.isInteger(v) ? String(v) : String(+v.toFixed(4));
}
