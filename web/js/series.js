/*
 * The series documents of /api/v1/runs/ID/series: {t:[sec], series:{name:
 * {min:[], max:[]}}, scraped:{name: {kind, min:[], max:[]}} (record
 * --scrape), progress:[[sec, value]], bucket_usec, last_seq}.
 * Helpers here return null for a series the run does not have, and keep
 * null (not measured) apart from 0.
 */
export function col(doc, name, which) {
	const s = doc.series[name];
	return s ? s[which || "max"] : null;
}

export function nulls(n) {
	return new Array(n).fill(null);
}

/* Per-second rate of a counter from per-bucket maxima (the last value in each bucket). */
export function rate(doc, name, scale) {
	const v = col(doc, name);
	if (!v) return null;
	const out = nulls(v.length);
	for (let i = 1; i < v.length; i++)
		if (v[i] !== null && v[i - 1] !== null && doc.t[i] > doc.t[i - 1])
			out[i] = Math.max(0, (v[i] - v[i - 1]) / (doc.t[i] - doc.t[i - 1])) * (scale || 1);
	return out;
}

export function sum(a, b) {
	if (!a) return b;
	if (!b) return a;
	return a.map((x, i) => x === null || b[i] === null ? null : x + b[i]);
}

/* No limit is stored as -1 (or, from some kernels, a huge number): no line. */
export function usable(limit) {
	if (!limit) return null;
	const v = limit.map(x => x !== null && x >= 0 && x < 2 ** 52 ? x : null);
	return v.some(x => x !== null) ? v : null;
}

/* The last bucket in which the observed processes were alive, and their
 * memory theirs: not past the last bucket that saw the process tree, and
 * not the sample read as the launched process was exiting (its last
 * statm reads 0 while its memory is torn down).  After that a cgroup's
 * anon reads 0 because nobody is left in it; that is not the process's
 * memory falling to 0.  -1 when never; the last bucket when RUN (its
 * events) and DOC say nothing about an end. */
export function lastAlive(doc, run) {
	let last = doc.t.length - 1;
	const alive = col(doc, "proc_rss_anon_bytes");
	if (alive) {
		let l = -1;
		for (let i = 0; i < alive.length; i++) if (alive[i] !== null) l = i;
		if (l >= 0) last = Math.min(last, l);
	}
	const events = (run && run.events) || [];
	const start = events.find(e => e.kind === "start");
	const end = events.find(e => (e.kind === "exit" || e.kind === "signal") && (!start || e.pid === start.pid));
	if (end) {
		const cut = end.t_wall_usec / 1e6 - (run.interval_usec || 0) / 2e6;
		while (last >= 0 && doc.t[last] > cut) last--;
	}
	return last;
}

/* V with the buckets after lastAlive(DOC, RUN) null (missing, not zero). */
export function maskExited(doc, run, v) {
	if (!v) return v;
	const last = lastAlive(doc, run);
	return v.map((x, i) => i > last ? null : x);
}

/* The progress value in effect at each bucket, or null before the first. */
export function progressAt(doc) {
	if (!doc.progress || !doc.progress.length) return null;
	const out = nulls(doc.t.length);
	let j = 0, last = null;
	for (let i = 0; i < doc.t.length; i++) {
		while (j < doc.progress.length && doc.progress[j][0] <= doc.t[i] + doc.bucket_usec / 1e6) last = doc.progress[j++][1];
		out[i] = last;
	}
	return out;
}

/* Appends a live update's buckets to DOC (the last old bucket may grow).
 * False when the update brought nothing. */
export function merge(doc, upd) {
	if (!upd.t.length) return false;
	let keep = doc.t.length;
	while (keep > 0 && doc.t[keep - 1] >= upd.t[0] - 1e-6) keep--;
	doc.t = doc.t.slice(0, keep).concat(upd.t);
	/* the metrics, and the series scraped from the target's own endpoint */
	for (const part of ["series", "scraped"]) {
		const have = doc[part] || (doc[part] = {}), got = upd[part] || {};
		for (const name in got) {
			const s = have[name] || {kind: got[name].kind, min: nulls(keep), max: nulls(keep)};
			s.min = s.min.slice(0, keep).concat(got[name].min);
			s.max = s.max.slice(0, keep).concat(got[name].max);
			have[name] = s;
		}
		for (const name in have)
			if (!(name in got)) {
				have[name].min = have[name].min.slice(0, keep).concat(nulls(upd.t.length));
				have[name].max = have[name].max.slice(0, keep).concat(nulls(upd.t.length));
			}
	}
	doc.progress = (doc.progress || []).concat(upd.progress || []);
	doc.last_seq = upd.last_seq;
	return true;
}

/* The scraped series of DOC in three groups, each [[name, column]]:
 * bytes (a name ending in _bytes, drawn in MiB), counters (kind counter, or
 * a histogram's or summary's _sum and _count: drawn as a rate per second)
 * and the other gauges. */
export function scrapedGroups(doc) {
	const g = {bytes: [], counters: [], gauges: []};
	const base = name => name.split("{")[0];
	for (const name of Object.keys(doc.scraped || {}).sort()) {
		const s = doc.scraped[name], b = base(name);
		const counter = s.kind === "counter" || ((s.kind === "histogram" || s.kind === "summary") &&
			(b.endsWith("_sum") || b.endsWith("_count")));
		if (counter) g.counters.push([name, scrapedRate(doc, s.max)]);
		else if (b.endsWith("_bytes")) g.bytes.push([name, s.max]);
		else g.gauges.push([name, s.max]);
	}
	return g;
}

/* Per-second rate of a scraped counter's per-bucket maxima (null where
 * either end is missing; a counter reset is no negative rate). */
function scrapedRate(doc, v) {
	const out = nulls(v.length);
	for (let i = 1; i < v.length; i++)
		if (v[i] !== null && v[i - 1] !== null && doc.t[i] > doc.t[i - 1])
			out[i] = Math.max(0, (v[i] - v[i - 1]) / (doc.t[i] - doc.t[i - 1]));
	return out;
}
