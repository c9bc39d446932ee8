/*
 * A run's page: its metadata, memory chart (heap live, the rest of anon,
 * page cache, limits, progress), CPU, pressure, heap allocation and I/O
 * charts, summary and events.  A live run's charts follow it through one
 * poll at a time and setData.
 */
import {api, reportData} from "./api.js";
import {byteScales, byteValue, COLORS, makeChart, overlays, timeAxis, yAxis, yScale} from "./charts.js";
import {el, runState, status, table} from "./dom.js";
import {dur, mib, when} from "./fmt.js";
import {col, maskExited, merge, nulls, progressAt, rate, scrapedGroups, sum, usable} from "./series.js";

const LIVE_MS = 2000;
const STATE_TICKS = 5; /* the run's state (live, stale, ended) is asked again every 5 ticks */
/* The series a run page asks for (a bench's HTML report embeds them at its own resolution). */
export function runQuery() {
	return reportData && reportData.run_query ? reportData.run_query : "?points=1500";
}

/* Stacked from the bottom: heap live (when the shim ran), the rest of anon
 * (the rest: allocator-held and other anon), page cache; limits as lines; progress on
 * its own axis.  After the processes have gone, the cgroup's memory is not
 * theirs: those buckets are missing, not 0. */
function memoryData(doc, run) {
	const gone = v => maskExited(doc, run, v);
	const anon = gone(col(doc, "cg_anon_bytes") || col(doc, "proc_rss_anon_bytes"));
	const file = gone(col(doc, "cg_file_bytes") || col(doc, "proc_rss_file_bytes"));
	const heap = gone(col(doc, "heap_live_bytes"));
	const d = [doc.t, heap, anon, sum(anon, file), usable(col(doc, "cg_high_bytes")),
		usable(col(doc, "cg_max_bytes")), progressAt(doc)];
	return d.map(a => a || nulls(doc.t.length));
}

export function memoryChart(page, parent, doc, run, machine, size) {
	const d = memoryData(doc, run);
	const has = i => d[i].some(v => v !== null);
	const heap = has(1);
	const series = [
		{label: "heap live", stroke: "#9467bd", fill: "rgba(148,103,189,0.35)", value: byteValue, show: heap},
		{label: heap ? "anon (live heap + allocator-held + other)" : "anon", stroke: "#1f77b4", fill: heap ? undefined : "rgba(31,119,180,0.35)", value: byteValue},
		{label: "anon + file", stroke: "#2ca02c", value: byteValue},
		{label: "memory.high", stroke: "#ff7f0e", dash: [8, 4], value: byteValue, show: has(4), limit: true},
		{label: "memory.max", stroke: "#d62728", dash: [8, 4], value: byteValue, show: has(5), limit: true},
		{label: "progress", stroke: "#444", scale: "progress", show: has(6)},
	];
	const bands = [{series: [3, 2], fill: "rgba(44,160,44,0.25)"}];
	if (heap) bands.push({series: [2, 1], fill: "rgba(31,119,180,0.35)"});
	const axes = [timeAxis(), yAxis("MiB", true)];
	if (has(6)) axes.push(yAxis("progress (units)", false, "progress", 1));
	const h = makeChart(page, parent, "memory — " + (machine || ""), series, d, Object.assign({
		key: "memory", machine, bands, axes, plugins: [overlays(run)],
		scales: byteScales({progress: yScale(false)}),
	}, size || {}));
	h.update = doc => h.setData(memoryData(doc, run));
	return h;
}

/* CPU, pressure, heap allocation and I/O: each a rate of a counter. */
function rateSpecs(doc) {
	const cpu = () => [rate(doc, "cg_cpu_usage_usec", 1e-6) || rate(doc, "proc_utime_usec", 1e-6),
		rate(doc, "cg_cpu_throttled_usec", 1e-6)];
	const psiNames = [["cg_psi_mem_some_usec", "mem some"], ["cg_psi_mem_full_usec", "mem full"],
		["cg_psi_io_some_usec", "io some"], ["cg_psi_io_full_usec", "io full"],
		["host_psi_mem_some_usec", "host mem some"]].filter(p => doc.series[p[0]]);
	return [
		{key: "cpu", title: "CPU", unit: "cores", data: cpu,
			series: [{label: "used", stroke: "#1f77b4"}, {label: "throttled", stroke: "#d62728"}]},
		{key: "psi", title: "pressure", unit: "% of time stalled", axis: "%", data: () => psiNames.map(p => rate(doc, p[0], 1e-4)),
			series: psiNames.map((p, i) => ({label: p[1], stroke: COLORS[i]}))},
		/* the heap shim's allocation rate (a process that exits takes its share
		 * out of the sum: that is not a negative rate, hence max(0, ...)) */
		{key: "heap_alloc", title: "heap allocation", unit: "MiB/s", data: () => [rate(doc, "heap_alloc_bytes", 1 / 1048576)],
			series: [{label: "allocated", stroke: "#9467bd"}]},
		{key: "io", title: "I/O", unit: "MiB/s", data: () => [rate(doc, "cg_io_read_bytes", 1 / 1048576) || rate(doc, "proc_read_bytes", 1 / 1048576),
			rate(doc, "cg_io_write_bytes", 1 / 1048576) || rate(doc, "proc_write_bytes", 1 / 1048576)],
			series: [{label: "read", stroke: "#2ca02c"}, {label: "write", stroke: "#d62728"}]},
	];
}

export function rateCharts(page, parent, doc, run, machine) {
	const charts = [];
	for (const spec of rateSpecs(doc)) {
		const cols = spec.data();
		if (!cols.length || !cols[0]) continue; /* the run has no such counter */
		const series = spec.series.map((s, i) => Object.assign({show: !!cols[i]}, s));
		const data = [doc.t].concat(cols.map(c => c || nulls(doc.t.length)));
		const h = makeChart(page, parent, spec.title + " (" + spec.unit + ")", series, data, {
			key: spec.key, machine, height: 160, axes: [timeAxis(), yAxis(spec.axis || spec.unit, false)],
			plugins: [overlays(run)],
		});
		const key = spec.key;
		h.update = d => {
			const s = rateSpecs(d).find(x => x.key === key);
			h.setData([d.t].concat(s.data().map(c => c || nulls(d.t.length))));
		};
		charts.push(h);
	}
	return charts;
}

/* The series scraped from the target's own endpoint (record --scrape): a
 * chart of its byte gauges (MiB), one of its other gauges, one of its
 * counters as rates; missing buckets stay gaps.  Series that first appear
 * after the page was drawn show on the next load. */
const SCRAPED = [
	{group: "bytes", title: "scraped (MiB)", axis: "MiB", bytes: true},
	{group: "gauges", title: "scraped gauges", axis: "value"},
	{group: "counters", title: "scraped counters (per second)", axis: "/s"},
];

export function scrapedCharts(page, parent, doc, run, machine) {
	const charts = [];
	for (const spec of SCRAPED) {
		const cols = scrapedGroups(doc)[spec.group];
		if (!cols.length) continue;
		const names = cols.map(c => c[0]);
		const series = names.map((n, i) => Object.assign({label: n, stroke: COLORS[i % COLORS.length]},
			spec.bytes ? {value: byteValue} : {}));
		const pick = d => {
			const got = new Map(scrapedGroups(d)[spec.group]);
			return [d.t].concat(names.map(n => got.get(n) || nulls(d.t.length)));
		};
		const h = makeChart(page, parent, spec.title, series, pick(doc), {
			key: "scraped_" + spec.group, machine, height: 180,
			axes: [timeAxis(), yAxis(spec.axis, !!spec.bytes)], plugins: [overlays(run)],
			scales: spec.bytes ? byteScales() : undefined,
		});
		h.update = d => h.setData(pick(d));
		charts.push(h);
	}
	return charts;
}

function runInfo(run, stateCell) {
	const cmd = Array.isArray(run.command) ? run.command.join(" ") : "";
	stateCell.replaceChildren(runState(run, when(run.ended_wall_usec)));
	const t = table(["machine", "run", "started", "ended", "outcome", "samples", "cgroup", "command"],
		[[run.machine || "", String(run.id), when(run.started_wall_usec), stateCell,
			run.outcome || "", run.sample_count, run.cgroup_path || "", cmd]]);
	t.classList.add("info");
	return t;
}

function summaryTable(s) {
	if (!s) return el("p", {class: "note"}, "no summary");
	const rows = [["peak anon", mib(s.peak_anon_bytes)], ["held anon at end", mib(s.held_anon_bytes)],
		["median file", mib(s.median_file_bytes)], ["peak memory.current", mib(s.peak_current_bytes)],
		["peak heap live", mib(s.heap_peak_bytes ?? s.heap_live_peak_bytes)],
		["heap allocated", s.heap_alloc_bytes == null ? "—" : mib(s.heap_alloc_bytes) + " in " + s.heap_allocs + " allocations"],
		["allocator held at end", mib(s.anon_allocator_held_end_bytes)], ["other anon at end", mib(s.anon_other_end_bytes)], ["memory.max", s.limit_max_bytes > 0 ? mib(s.limit_max_bytes) : "none"],
		["memory.high events", s.high_events ?? "—"], ["OOM kills", s.oom_kills ?? "—"],
		["CPU", dur(s.cpu_usec)], ["PSI memory some", dur(s.psi_mem_some_usec)],
		["duration", dur(s.duration_usec)], ["samples (late)", s.samples + " (" + s.late_samples + ")"]];
	/* a GC runtime's own lines (record --runtime go|ghc|node): only when read */
	if (s.gc_heap_live_end_bytes != null)
		rows.splice(5, 0, ["gc live after the last GC", mib(s.gc_heap_live_end_bytes) + " (" + (s.gc_cycles ?? "—") + " GCs)"]);
	return table(["figure", "value"], rows);
}

function eventsTable(run) {
	if (!run.events.length) return el("p", {class: "note"}, "no events");
	return el("div", {class: "wide"}, table(["time", "event", "pid", "value", "detail"],
		run.events.slice(0, 200).map(e => [when(e.t_wall_usec), e.kind, e.pid, e.value, e.detail || ""])));
}

function marksTable(run) {
	return el("div", {class: "wide"}, table(["time", "mark"], run.marks.slice(0, 200).map(m => [when(m.t_wall_usec), m.text])));
}

/* The status line of a run that has not ended, from the server's state of
 * it (api: live, or stale when no sample came for several intervals: its
 * recorder died or cannot reach the server), never guessed here. */
function liveStatus(run, points) {
	if (run.ended_wall_usec) status("ended", "");
	else if (run.state === "stale")
		status("stale · no sample since " + (run.last_sample_wall_usec ? when(run.last_sample_wall_usec) : "the start"), "stale");
	else status("live" + (points === undefined ? "" : " · " + points + " points"), "live");
}

/* The live poll: one request at a time, each after the last has finished;
 * the page stops it when it is left, and it stops once the run has ended.
 * The run's state comes again every STATE_TICKS ticks, and at once when
 * samples come for a run the server called stale. */
function follow(page, id, doc, charts, run, stateCell) {
	let ticks = 0;
	page.poll(async () => {
		const lastT = doc.t.length ? Math.round(doc.t[doc.t.length - 1] * 1e6) : doc.t0_usec;
		const from = doc.t0_usec + Math.floor((lastT - doc.t0_usec) / doc.bucket_usec) * doc.bucket_usec;
		try {
			const upd = await api("/api/v1/runs/" + id + "/series?points=5000&from=" + from +
				"&bucket_usec=" + doc.bucket_usec + "&from_seq=" + Math.max(0, doc.last_seq + 1), page.signal);
			if (page.stale) return false;
			const grew = merge(doc, upd);
			if (grew) for (const c of charts) c.update(doc);
			if (++ticks % STATE_TICKS === 0 || (grew && run.state === "stale")) {
				const now = await api("/api/v1/runs/" + id, page.signal);
				if (page.stale) return false;
				for (const k of ["state", "ended_wall_usec", "last_sample_wall_usec", "outcome"]) run[k] = now[k];
				stateCell.replaceChildren(runState(run, when(run.ended_wall_usec)));
			}
			liveStatus(run, doc.t.length);
		} catch (e) {
			if (!page.stale) status("live update failed: " + e.message, "err");
		}
		return !run.ended_wall_usec;
	}, LIVE_MS);
}

export async function showRun(page, id) {
	const [run, doc] = await Promise.all([api("/api/v1/runs/" + id, page.signal),
		api("/api/v1/runs/" + id + "/series" + runQuery(), page.signal)]);
	const root = el("div");
	const title = el("h1", {}, "run " + run.id + " on " + (run.machine || "?"));
	root.appendChild(title);
	if (run.bench_id) root.appendChild(el("p", {}, el("a", {href: "#/bench/" + run.bench_id},
		"bench " + run.bench_id + (run.arm ? ", arm " + run.arm : ""))));
	const stateCell = el("span");
	root.appendChild(runInfo(run, stateCell));
	if (!page.paint(root)) return;
	const box = el("div");
	root.appendChild(box);
	const charts = [memoryChart(page, box, doc, run, run.machine)].concat(rateCharts(page, box, doc, run, run.machine),
		scrapedCharts(page, box, doc, run, run.machine));
	root.appendChild(el("h2", {}, "summary"));
	const sumBox = el("div", {}, el("p", {class: "note"}, "computing…"));
	root.appendChild(sumBox);
	root.appendChild(el("h2", {}, "events"));
	root.appendChild(eventsTable(run));
	if (run.marks.length) {
		root.appendChild(el("h2", {}, "marks"));
		root.appendChild(marksTable(run));
	}
	/* the summary reads every sample: fetched after the charts are up */
	api("/api/v1/runs/" + id + "/summary", page.signal).then(s => {
		if (!page.stale) sumBox.replaceChildren(summaryTable(s.summary));
	}, e => {
		if (!page.stale) sumBox.replaceChildren(el("p", {class: "err"}, e.message));
	});
	if (!run.ended_wall_usec && !reportData) {
		liveStatus(run);
		follow(page, id, doc, charts, run, stateCell);
	}
}
