/*
 * A bench's page: the comparison table exactly as the terminal prints it
 * (the header lines, cells and notes come from the C table,
 * src/report/bench/benchtab.c, through the table's "text" and "notes" in
 * /api/v1/bench/ID; nothing is recomputed here), the
 * anon of every run by arm with the limits and each kill, the survival
 * curve of the sweep the bench's arms were part of, the advice, and the runs.
 *
 * The page is a list of sections, each a function of the bench document
 * and the runs' series.  The sweep's curve (as `bench --sweep --json`) and
 * the advice (as `advise --json`) are documents the HTML report embeds
 * (tm_advise_bench_docs in src/advise/output.c computes them); absent, their
 * section is not shown.  The curve's table shows the columns, cells and
 * verdict the C code made (src/report/sweep/sweepcurve.c), as `bench --sweep`.
 * The server serves the curve too (/api/v1/bench/ID/sweep), not the advice.
 * A MemoryMax sweep's curve is survival against the limit; a MemoryHigh
 * sweep's is the progress rate and memory pressure against the ceiling.
 */
import {api, reportData} from "./api.js";
import {armColor, benchMarks, byteValue, makeChart, secondsAxis, yAxis, yScale} from "./charts.js";
import {el, table} from "./dom.js";
import {mib} from "./fmt.js";
import {col, maskExited, nulls, usable} from "./series.js";
import {paramSection} from "./view_param.js";

/* The series each run of a bench is drawn from (the HTML report embeds these). */
export const BENCH_QUERY = "?points=600";

/* (a style property, not a style attribute: the server's CSP forbids those) */
function swatch(name) {
	const s = el("span", {class: "swatch"});
	s.style.backgroundColor = armColor(name);
	return s;
}

/* The header lines, the table's rows (arm names first), the legend and the notes. */
function tableSection(page, root, b) {
	const text = b.table && b.table.text;
	if (!text) {
		root.appendChild(el("p", {class: "note"}, "no comparison table for this bench"));
		return;
	}
	const head = el("div", {class: "benchhead"});
	text.header.forEach((line, i) => head.appendChild(el(i ? "pre" : "p", {class: i ? "" : "lead"}, line)));
	root.appendChild(head);
	const t = el("table", {class: "bench"});
	text.rows.forEach((row, ri) => {
		const tr = el("tr", row.kind ? {"data-row": String(row.row), "data-kind": row.kind} : {"data-row": String(row.row)});
		tr.appendChild(el("th", {class: "label"}, row.label));
		row.cells.forEach((c, ai) => {
			if (ri === 0) {
				const arm = b.table.arms[ai];
				tr.appendChild(el("th", {}, arm ? swatch(arm.name) : null, c));
			} else {
				const cls = [c === "—" ? "dash" : "", /n\.s\.$/.test(c) ? "ns" : "", /\*( |$)/.test(c) ? "outlier" : ""];
				tr.appendChild(el("td", {class: cls.filter(Boolean).join(" ")}, c));
			}
		});
		t.appendChild(tr);
	});
	root.appendChild(el("div", {class: "wide"}, t));
	/* the lines under the text table, each with its kind: the legend apart */
	const notes = b.table.notes || [];
	for (const n of notes.filter(n => n.kind === "legend")) root.appendChild(el("p", {class: "note legend"}, n.text));
	const rest = notes.filter(n => n.kind !== "legend");
	if (rest.length) root.appendChild(el("ul", {class: "notes"}, ...rest.map(n => el("li", {class: "note-" + n.kind}, n.text))));
}

/* The last value of V that is not missing, or null. */
function lastOf(v) {
	for (let i = v.length - 1; i >= 0; i--) if (v[i] !== null && v[i] !== undefined) return i;
	return -1;
}

/* Where a killed run died: its OOM kill event (or the signal, or its end). */
function killOf(run) {
	if (run.outcome !== "oom-killed" && run.outcome !== "killed") return null;
	const ev = run.events.find(e => e.kind === "oom_kill") || run.events.find(e => e.kind === "signal");
	return {t: ((ev ? ev.t_wall_usec : run.ended_wall_usec) - run.started_wall_usec) / 1e6,
		kind: run.outcome === "oom-killed" ? "OOM kill" : "killed"};
}

/* One line per distinct limit; labelled with the arms it holds for, when not all. */
function limitLines(runs, docs, metric, name, color) {
	const byValue = new Map();
	runs.forEach((r, i) => {
		const v = usable(col(docs[i], metric));
		const x = v ? v[lastOf(v)] : null;
		if (x === null || x === undefined) return;
		if (!byValue.has(x)) byValue.set(x, new Set());
		byValue.get(x).add(r.arm || "?");
	});
	const arms = new Set(runs.map(r => r.arm || "?"));
	return [...byValue].map(([y, set]) => {
		const all = set.size === arms.size;
		return {y, color: all ? color : armColor([...set][0]),
			label: name + " " + mib(y) + (all ? "" : " (" + [...set].join(", ") + ")")};
	});
}

function anonSection(page, root, b, runs, docs) {
	if (!runs.length) return;
	const tables = runs.map((r, i) => {
		const d = docs[i], anon = maskExited(d, r, col(d, "cg_anon_bytes") || col(d, "proc_rss_anon_bytes")) || nulls(d.t.length);
		return [d.t.map(t => t - r.started_wall_usec / 1e6), anon];
	});
	const kills = [];
	runs.forEach((r, i) => {
		const k = killOf(r), v = tables[i][1], last = lastOf(v);
		if (k && last >= 0) kills.push({x: Math.max(k.t, tables[i][0][last]), y: v[last], color: armColor(r.arm || "?"), kind: k.kind, id: r.id});
	});
	const limits = limitLines(runs, docs, "cg_max_bytes", "memory.max", "#d62728")
		.concat(limitLines(runs, docs, "cg_high_bytes", "memory.high", "#ff7f0e"));
	const joined = tables.length > 1 ? uPlot.join(tables, tables.map(() => [1, 1])) : tables[0];
	/* the limits must be inside the y range even above every run */
	const top = Math.max(0, ...limits.map(l => l.y));
	const h = makeChart(page, root, "anon by arm", runs.map(r => ({
		label: (r.arm || "?") + " #" + r.id, stroke: armColor(r.arm || "?"), width: 1.5, value: byteValue,
	})), joined, {
		key: "bench", height: 320, axes: [secondsAxis("seconds since the run's start"), yAxis("MiB", true)],
		scales: {x: {time: false}, y: {range: (u, min, max) => yScale(true).range(u, min, Math.max(max, top))}},
		plugins: [benchMarks(limits, kills)],
	});
	h.entry.kills = kills.length;
	h.entry.limits = limits.map(l => l.label);
}

function runsSection(page, root, b) {
	const figs = new Map(((b.table && b.table.runs) || []).map(r => [r.run_id, r]));
	root.appendChild(el("h2", {}, "runs"));
	root.appendChild(table(["run", "arm", "outcome", "peak anon", "samples", "reason"],
		b.runs.slice().reverse().map(r => {
			const f = figs.get(r.id);
			return [el("a", {href: "#/run/" + r.id}, "run " + r.id), el("span", {}, swatch(r.arm || "?"), r.arm || ""),
				r.outcome || "", f ? mib(f.figures.peak_anon_bytes) : "—", r.sample_count, r.reason || ""];
		})));
}

/* The line width of arm I of SW: arms drawn first are wider, so where
 * two arms' curves coincide both still show. */
function under(sw, i) {
	return 1.5 + 2 * (sw.arms.length - 1 - i) / Math.max(1, sw.arms.length - 1);
}

/* The survival curve: survived k/n against MemoryMax, per arm. */
function survivalChart(page, sec, sw, xRange) {
	const tables = sw.arms.map(a => [a.curve.map(p => p.limit_bytes), a.curve.map(p => p.runs ? p.survived / p.runs : null)]);
	const joined = tables.length > 1 ? uPlot.join(tables, tables.map(() => [1, 1])) : tables[0];
	makeChart(page, sec, "survived k/n by " + sw.limit, sw.arms.map((a, i) => ({
		label: a.arm, stroke: armColor(a.arm), width: under(sw, i), spanGaps: true, points: {show: true, size: 3 + 2 * under(sw, i)},
		value: (u, v) => v === null || v === undefined ? "—" : v.toFixed(2),
	})), joined, {
		key: "sweep", height: 260,
		axes: [yAxis(sw.limit + " (MiB)", true, "x", 2), yAxis("survived (k/n)", false)],
		scales: {x: {time: false, range: xRange}, y: {range: () => [0, 1]}},
	});
}

/* Triangles on the x axis at each limit where a run of the arm was held in
 * throttle limbo (THROTTLED: [{arm, limits}]), in the arm's colour. */
function limboMarks(throttled) {
	return {hooks: {draw: [u => {
		const ctx = u.ctx, r = 6 * devicePixelRatio, y = u.bbox.top + u.bbox.height;
		ctx.save();
		for (const t of throttled) {
			ctx.fillStyle = armColor(t.arm);
			for (const x of t.limits) {
				const px = u.valToPos(x, "x", true);
				ctx.beginPath();
				ctx.moveTo(px, y - 2 * r);
				ctx.lineTo(px - r, y);
				ctx.lineTo(px + r, y);
				ctx.closePath();
				ctx.fill();
			}
		}
		ctx.restore();
	}]}};
}

/* A MemoryHigh sweep's curve: the progress rate (solid, left axis) and the
 * memory pressure (dashed, right axis) against the ceiling, per arm; each
 * limit where a run was held in throttle limbo is marked on the x axis. */
function throttleChart(page, sec, sw, xRange) {
	const tables = sw.arms.map(a => [a.curve.map(p => p.limit_bytes), a.curve.map(p => p.rate_per_min),
		a.curve.map(p => p.psi_mem_share === null ? null : 100 * p.psi_mem_share)]);
	const joined = tables.length > 1 ? uPlot.join(tables, tables.map(() => [1, 1, 1])) : tables[0];
	const num = (digits, unit) => (u, v) => v === null || v === undefined ? "n/a" : v.toFixed(digits) + unit;
	const series = sw.arms.flatMap(a => [
		{label: a.arm + " rate /min", stroke: armColor(a.arm), width: 1.5, spanGaps: true, scale: "rate",
			points: {show: true, size: 7}, value: num(0, "")},
		{label: a.arm + " psi mem %", stroke: armColor(a.arm), width: 1.5, dash: [6, 4], spanGaps: true, scale: "psi",
			points: {show: true, size: 5}, value: num(0, " %")},
	]);
	const throttled = sw.arms.map(a => ({arm: a.arm, limits: a.curve.filter(p => p.throttled > 0).map(p => p.limit_bytes)}));
	const h = makeChart(page, sec, "progress rate and memory pressure by " + sw.limit, series, joined, {
		key: "sweep", height: 280,
		axes: [yAxis(sw.limit + " (MiB)", true, "x", 2), yAxis("progress rate (units/min)", false, "rate"),
			yAxis("psi mem some (% of wall)", false, "psi", 1)],
		scales: {x: {time: false, range: xRange}, rate: yScale(false), psi: {range: () => [0, 100]}},
		plugins: [limboMarks(throttled)],
	});
	sec.appendChild(el("p", {class: "legend"}, "▲ on the axis: a MemoryHigh at which a run was held in throttle limbo " +
		"(memory.high events rising, memory pressure high, the progress rate fallen)"));
	h.entry.series = series.map(x => x.label);
	h.entry.throttled = throttled; /* for tests: what the triangles mark */
}

/* The peak anon of each arm's survivors (of its killed runs where none
 * survived) against the limit: what the sweep's "peak anon MiB" column says. */
function peakChart(page, sec, sw, xRange) {
	const tables = sw.arms.map(a => [a.curve.map(p => p.limit_bytes), a.curve.map(p => p.peak_anon_bytes)]);
	const joined = tables.length > 1 ? uPlot.join(tables, tables.map(() => [1, 1])) : tables[0];
	makeChart(page, sec, "peak anon by " + sw.limit, sw.arms.map((a, i) => ({
		label: a.arm, stroke: armColor(a.arm), width: under(sw, i), spanGaps: true, points: {show: true, size: 3 + 2 * under(sw, i)},
		value: byteValue,
	})), joined, {
		key: "sweep_peak", height: 240,
		axes: [yAxis(sw.limit + " (MiB)", true, "x", 2), yAxis("peak anon (MiB)", true)],
		scales: {x: {time: false, range: xRange}, y: yScale(true)},
	});
}

/* A sweep's curve, every arm on one chart (survival and peak against
 * MemoryMax; rate and pressure against MemoryHigh), then each arm's verdict
 * and table as bench --sweep prints them, into SEC. */
export function sweepCurve(page, sec, sw) {
	const high = sw.limit === "MemoryHigh";
	const top = Math.max(...sw.arms.flatMap(a => a.curve.map(p => p.limit_bytes)));
	const xRange = () => yScale(true).range(null, 0, top);
	(high ? throttleChart : survivalChart)(page, sec, sw, xRange);
	if (!high) peakChart(page, sec, sw, xRange);
	/* the columns and cells bench --sweep prints, made by the C code
	 * (report/sweep/sweepcurve.c: columns, each point's text, the verdict) */
	for (const a of sw.arms) {
		sec.appendChild(el("p", {class: "lead"}, swatch(a.arm), a.verdict));
		const t = table(a.columns, a.curve.map(p => p.text));
		t.setAttribute("data-arm", a.arm);
		t.classList.add("curve");
		sec.appendChild(el("div", {class: "wide"}, t));
	}
}

function sweepSection(page, root, b, runs, docs, extra) {
	const sw = extra.sweep;
	if (!sw || !sw.arms || !sw.arms.length) return; /* no sweep: no section */
	const high = sw.limit === "MemoryHigh";
	const sec = el("section", {class: "sweep", "data-limit": sw.limit});
	sec.appendChild(el("h2", {}, (high ? "throttle curve" : "survival curve") + " (" + sw.limit + " sweep)"));
	root.appendChild(sec);
	sweepCurve(page, sec, sw);
}

/* The advice as `tidemark advise` prints it: the header, then per arm its
 * reasoning and, per regime, the figures with the rule each came from, or
 * the refusal and its reason. */
function adviceSection(page, root, b, runs, docs, extra) {
	const adv = extra.advice;
	if (!adv) return;
	const sec = el("section", {class: "advice"});
	sec.appendChild(el("h2", {}, "advice"));
	root.appendChild(sec);
	for (const line of adv.header || []) sec.appendChild(el("p", {class: "lead"}, line));
	if (adv.refused) {
		sec.appendChild(el("p", {class: "refused"}, "no advice: " + adv.reason));
		return;
	}
	for (const a of adv.arms) {
		const box = el("div", {class: "advice-arm", "data-arm": a.name});
		sec.appendChild(box);
		if (!a.survived) {
			box.appendChild(el("p", {class: "refused"}, swatch(a.name), a.name + ": 0/" + a.runs + " survived: no profile"));
			continue;
		}
		box.appendChild(el("h3", {}, swatch(a.name), a.reasoning + (a.recommended ? "   <- recommended" : "")));
		const env = (a.environment || []).length ? a.environment.map(e => "Environment=" + e).join(" ") :
			(a.allocator || "the program's own") + " as shipped (no environment setting)";
		box.appendChild(el("p", {}, "allocator " + env));
		for (const p of a.profiles) {
			box.appendChild(el("h4", {}, "profile " + p.regime + (p.window ? " (window " + p.window + ")" : "")));
			if (p.refused) {
				box.appendChild(el("p", {class: "refused", "data-refused": p.refused}, "refused: " + p.reason));
				continue;
			}
			const t = table(["", "", "from"], Object.entries(p.figures).map(([k, f]) => [f.label || k, f.text || "n/a", f.from]));
			t.classList.add("advice");
			t.setAttribute("data-regime", p.regime);
			box.appendChild(t);
		}
	}
}

const SECTIONS = [tableSection, paramSection, anonSection, sweepSection, adviceSection, runsSection];

/* An embedded document of the report (the sweep, the advice), or null. */
function embedded(path) {
	return reportData && path in reportData.docs ? reportData.docs[path] : null;
}

/* The sweep's curve: embedded in a report (absent: no sweep), else from
 * the server's API (which serves the curve, not the advice). */
async function sweepDoc(id, signal) {
	const path = "/api/v1/bench/" + id + "/sweep";
	return reportData ? embedded(path) : api(path, signal);
}

export async function showBench(page, id) {
	const b = await api("/api/v1/bench/" + id, page.signal);
	const runs = b.runs.slice().sort((x, y) => x.id - y.id);
	const [full, docs, sweep] = await Promise.all([
		Promise.all(runs.map(r => api("/api/v1/runs/" + r.id, page.signal))),
		Promise.all(runs.map(r => api("/api/v1/runs/" + r.id + "/series" + BENCH_QUERY, page.signal))),
		sweepDoc(id, page.signal)]);
	const root = el("div");
	root.appendChild(el("h1", {}, "bench " + id + (b.table && b.table.name ? " — " + b.table.name : "")));
	if (!reportData) {
		/* a sweep's probe: its arm at one limit; the sweep's page has every arm */
		const me = (await api("/api/v1/benches", page.signal)).find(x => x.id === Number(id));
		root.appendChild(me && me.sweep_id !== null ?
			el("p", {class: "probe"}, "a probe of ", el("a", {href: "#/sweep/" + me.sweep_id}, "sweep " + me.sweep_id),
				" (every arm on one curve) · ", el("a", {href: "#/benches"}, "all benches")) :
			el("p", {}, el("a", {href: "#/benches"}, "all benches")));
	}
	if (!page.paint(root)) return;
	const extra = {sweep, advice: embedded("/api/v1/bench/" + id + "/advice")};
	for (const s of SECTIONS) s(page, root, b, full, docs, extra);
}
