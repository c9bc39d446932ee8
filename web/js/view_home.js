/*
 * The home page (machines, their latest recordings side by side and
 * overlaid, the latest benches and sweeps, the runs table), a machine's live
 * view and runs compared on one axis.  A bench's runs are not a machine's
 * recording (a 0.4 s bench run beside an hour of a service is two blips on
 * one axis): the home page and the live view show each machine's newest run
 * that is not part of a bench (latest_record_run_id), benches and sweeps
 * have their own lists and pages.
 */
import {api} from "./api.js";
import {byteScales, byteValue, chartWidth, COLORS, makeChart, timeAxis, yAxis} from "./charts.js";
import {el, runState, table} from "./dom.js";
import {dur, when} from "./fmt.js";
import {col, maskExited, nulls} from "./series.js";
import {benchesTable, sweepsTable} from "./view_lists.js";
import {memoryChart, showRun} from "./view_run.js";

const RANGES = {"1h": 3600e6, "24h": 86400e6, "all": 0};

/* Fetches each run's last RANGE usec (0: all of it); returns the function
 * that draws them, overlaid and side by side, into a node of the page. */
async function machinesCharts(page, ids, names, range) {
	const runs = await Promise.all(ids.map(id => api("/api/v1/runs/" + id, page.signal)));
	const docs = await Promise.all(runs.map(r => {
		const end = r.ended_wall_usec || Date.now() * 1000;
		const from = range && end - range > r.started_wall_usec ? "&from=" + Math.round(end - range) : "";
		return api("/api/v1/runs/" + r.id + "/series?points=800" + from, page.signal);
	}));
	return root => {
		/* overlaid: anon of every machine on one wall-time axis */
		const tables = docs.map((d, i) => [d.t, maskExited(d, runs[i], col(d, "cg_anon_bytes") || col(d, "proc_rss_anon_bytes")) || nulls(d.t.length)]);
		const joined = tables.length > 1 ? uPlot.join(tables, tables.map(() => [1, 1])) : tables[0];
		makeChart(page, root, "anon memory, all machines",
			names.map((n, i) => ({label: n, stroke: COLORS[i % COLORS.length], value: byteValue})), joined,
			{key: "overlay", height: 240, axes: [timeAxis(), yAxis("MiB", true)], scales: byteScales()});
		/* side by side: each machine's memory chart, same x range */
		const lo = Math.min(...docs.map(d => d.t.length ? d.t[0] : Infinity));
		const hi = Math.max(...docs.map(d => d.t.length ? d.t[d.t.length - 1] : -Infinity));
		const grid = el("div", {class: "grid"});
		root.appendChild(grid);
		docs.forEach((d, i) => {
			const h = memoryChart(page, grid, d, runs[i], names[i], {
				width: Math.max(420, chartWidth() / Math.min(2, docs.length) - 20), height: 200});
			if (isFinite(lo) && isFinite(hi) && hi > lo) h.u.setScale("x", {min: lo, max: hi});
		});
	};
}

/* Runs on one page of the runs table; older ones are a link away. */
export const RUNS_PAGE = 50;
/* Benches and sweeps on the home page; the rest on their own pages. */
const LATEST = 5;

/* The latest benches and sweeps, each list with a link to all of them. */
function benchLists(root, benches, sweeps) {
	const own = benches.filter(b => b.sweep_id === null);
	if (own.length) {
		root.appendChild(el("h2", {class: "benches"}, "latest benches"));
		root.appendChild(benchesTable(benches, LATEST));
		root.appendChild(el("p", {}, el("a", {href: "#/benches"}, "all " + own.length + " benches")));
	}
	if (sweeps.length) {
		root.appendChild(el("h2", {class: "sweeps"}, "latest sweeps"));
		root.appendChild(sweepsTable(sweeps, LATEST));
		root.appendChild(el("p", {}, el("a", {href: "#/sweeps"}, "all " + sweeps.length + " sweeps")));
	}
}

export async function showHome(page, range, before) {
	range = range in RANGES ? range : "24h";
	before = /^\d+$/.test(before || "") ? before : "";
	/* one more than a page: whether there are older runs */
	const runsUrl = "/api/v1/runs?limit=" + (RUNS_PAGE + 1) + (before ? "&before=" + before : "");
	const [machines, all, benches, sweeps] = await Promise.all([api("/api/v1/machines", page.signal),
		api(runsUrl, page.signal), api("/api/v1/benches", page.signal), api("/api/v1/sweeps", page.signal)]);
	const runs = all.slice(0, RUNS_PAGE);
	const recording = machines.filter(m => m.latest_record_run_id);
	const drawCharts = recording.length ? await machinesCharts(page, recording.map(m => m.latest_record_run_id),
		recording.map(m => m.name), RANGES[range]) : null;
	const root = el("div");
	root.appendChild(el("h1", {}, "machines"));
	root.appendChild(table(["machine", "runs", "latest recording", "last push", ""],
		machines.map(m => [m.name, m.runs, m.latest_record_run_id ?
			el("a", {href: "#/run/" + m.latest_record_run_id}, "run " + m.latest_record_run_id) : "— (benches only)",
		when(m.last_push_wall_usec), m.latest_record_run_id ?
			el("a", {href: "#/machine/" + encodeURIComponent(m.name)}, "live view") : ""])));
	const chartBox = el("div");
	if (recording.length) {
		const pick = el("p", {class: "note"}, "range: ");
		for (const r of Object.keys(RANGES))
			pick.appendChild(r === range ? el("b", {}, r + " ") : el("a", {href: "#/?range=" + r}, r + " "));
		root.appendChild(el("h2", {}, "latest recording of each machine, one time axis"));
		root.appendChild(pick);
		root.appendChild(chartBox);
	}
	if (!before) benchLists(root, benches, sweeps);
	root.appendChild(el("h1", {}, before ? "runs before run " + before : "runs"));
	const boxes = [];
	const go = el("button", {type: "button"}, "compare selected runs on one time axis");
	go.addEventListener("click", () => {
		const ids = boxes.filter(b => b.checked).map(b => b.value);
		if (ids.length) location.hash = "#/compare/" + ids.join(",");
	});
	root.appendChild(go);
	root.appendChild(el("div", {class: "wide"}, table(["", "run", "machine", "started", "duration", "outcome", "samples", "bench/arm"],
		runs.map(r => {
			const box = el("input", {type: "checkbox", value: String(r.id)});
			boxes.push(box);
			return [box, el("a", {href: "#/run/" + r.id}, String(r.id)), r.machine || "", when(r.started_wall_usec),
				runState(r, dur(r.ended_wall_usec - r.started_wall_usec)),
				r.outcome || "", r.sample_count,
				r.bench_id ? el("a", {href: "#/bench/" + r.bench_id}, r.bench_id + "/" + (r.arm || "")) : ""];
		}))));
	const nav = el("p", {class: "pager"});
	if (before) nav.appendChild(el("a", {href: "#/?range=" + range}, "newest runs"));
	if (all.length > RUNS_PAGE) {
		if (before) nav.appendChild(document.createTextNode(" · "));
		nav.appendChild(el("a", {href: "#/?range=" + range + "&before=" + runs[runs.length - 1].id}, "older runs"));
	}
	root.appendChild(nav);
	if (!page.paint(root)) return;
	if (drawCharts) drawCharts(chartBox);
}

export async function showMachine(page, name) {
	const machines = await api("/api/v1/machines", page.signal);
	const m = machines.find(x => x.name === name);
	if (!m) throw new Error("no machine " + name);
	if (!m.latest_record_run_id) throw new Error(name + " has only bench runs: see its benches");
	if (page.stale) return;
	return showRun(page, m.latest_record_run_id);
}

export async function showCompare(page, list) {
	const ids = list.split(",").map(Number).filter(n => n > 0).slice(0, 10);
	const runs = await Promise.all(ids.map(id => api("/api/v1/runs/" + id, page.signal)));
	const root = el("div", {}, el("h1", {}, "runs " + ids.join(", ") + " on one time axis"));
	const draw = await machinesCharts(page, ids, runs.map(r => (r.machine || "?") + " #" + r.id), 0);
	if (!page.paint(root)) return;
	draw(root);
}
