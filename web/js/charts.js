/*
 * Charts (uPlot): axes with units, byte axes on round binary steps, events
 * and marks drawn under the series and named in a band above the plot (so
 * no name covers data; each kind in the chart's key), stable arm colours.  Every chart is made
 * through makeChart, which registers it with its page: the page destroys
 * it when it is left, and live updates go through the handle's setData
 * (the chart object stays; nothing is rebuilt on a tick).
 */
import {ARM_COLORS} from "./allocators.js";
import {el} from "./dom.js";
import {MiB, mib, mibTick} from "./fmt.js";

export const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];

/* The same arm name gets the same colour in every bench: the usual arms
 * have their own (ARM_COLORS, generated from the allocator registry,
 * src/base/allocators.h, into /js/allocators.js), any other name is hashed
 * into the rest of the palette (red is kept for limits and kills). */
const HASHED = ["#17becf", "#e377c2", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#7b4173", "#5f9ea0"];

export function armColor(name) {
	if (Object.prototype.hasOwnProperty.call(ARM_COLORS, name)) return ARM_COLORS[name];
	let h = 0x811c9dc5; /* FNV-1a */
	for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
	return HASHED[h % HASHED.length];
}

/* ---- axes ---- */

/* The power of two (bytes) that cuts SPAN into at most MAX_TICKS steps:
 * 64, 128, 256 MiB, never 48/95/191. */
export function binaryStep(span, maxTicks) {
	if (!(span > 0)) return MiB;
	return 2 ** Math.ceil(Math.log2(span / maxTicks));
}

/* 1, 2 or 5 times a power of ten that cuts SPAN into at most MAX_TICKS steps. */
function niceStep(span, maxTicks) {
	if (!(span > 0)) return 1;
	const raw = span / maxTicks, p = 10 ** Math.floor(Math.log10(raw));
	return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
}

function stepsOf(min, max, step) {
	const out = [];
	for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) out.push(v);
	return out;
}

/* Whether every value the chart has on scale KEY is 0 (and there is one). */
function zeroOnScale(u, key) {
	let zero = false;
	for (let i = 1; i < u.series.length; i++) {
		if (u.series[i].scale !== key || u.series[i].limit) continue;
		for (const v of u.data[i] || []) {
			if (v === null || v === undefined) continue;
			if (v !== 0) return false;
			zero = true;
		}
	}
	return zero;
}

/* A y scale from 0 whose top is a whole step; an all-zero scale is 0..1
 * with the one tick 0. */
export function yScale(binary) {
	return {
		range: (u, min, max) => {
			if (!(max > 0)) return [0, binary ? MiB : 1];
			const s = binary ? binaryStep(max, 5) : niceStep(max, 5);
			return [Math.min(0, min), Math.ceil(max / s - 1e-9) * s];
		},
	};
}

/* A y axis titled LABEL (with its unit); BINARY: bytes shown in MiB. */
export function yAxis(label, binary, key, side) {
	return {
		scale: key || "y", label, side: side || 3, size: 60, labelSize: 20,
		grid: {show: side !== 1},
		splits: (u, ai, min, max) => {
			const ticks = zeroOnScale(u, key || "y") ? [0] :
				stepsOf(min, max, binary ? binaryStep(max - min, 5) : niceStep(max - min, 5));
			(u.tmTicks = u.tmTicks || {})[key || "y"] = ticks; /* for tests */
			return ticks;
		},
		values: (u, vals) => vals.map(v => binary ? mibTick(v) : String(+v.toPrecision(6))),
	};
}

export function timeAxis(label) {
	return {label: label || "time", labelSize: 20};
}

export function secondsAxis(label) {
	return {label, labelSize: 20};
}

/* ---- events and marks: drawn in the plot, named in a band above it ---- */

/* The band above the plot where events, marks and kills are named: ROWS
 * rows of ROW_PX CSS px.  Nothing is written inside the plot, so no label
 * covers a series; what is drawn in the plot (an event's line, a mark's
 * span, a kill's cross, a limit's line) has its entry in the chart's key. */
const ROWS = 3, ROW_PX = 12, BAND_PX = ROWS * ROW_PX + 6;

/* Names things in the band above U's plot without covering each other.
 * place(text, x) tries the rows nearest the plot first, at X (or ending at
 * X when the text would pass the plot's right edge), then the text elided
 * ("load-…"); returns the label drawn ({text, full, x, y, w, h}) or null
 * (then the thing is named only in its tooltip). */
function bandPlacer(u) {
	const placed = [], b = u.bbox, dpr = devicePixelRatio, h = ROW_PX * dpr;
	const fits = (x, w, y) => x >= b.left && x + w <= b.left + b.width &&
		!placed.some(p => x < p.x + p.w + 4 * dpr && p.x < x + w + 4 * dpr && y - h < p.y && p.y - p.h < y);
	const tryText = (text, x) => {
		const w = u.ctx.measureText(text).width;
		const lx = x + w > b.left + b.width ? x - w : x;
		for (let r = 0; r < ROWS; r++) {
			const y = b.top - 3 * dpr - r * h;
			if (fits(lx, w, y)) return {text, x: lx, y, w, h};
		}
		return null;
	};
	return (text, x) => {
		let box = tryText(text, x);
		for (let n = text.length - 1; !box && n >= 3; n--) box = tryText(text.slice(0, n) + "…", x);
		if (!box) return null;
		box.full = text;
		placed.push(box);
		return box;
	};
}

/* The labels' font, left-aligned on their baseline (uPlot leaves the
 * context aligned as its last axis was). */
function setFont(ctx) {
	ctx.font = Math.round(10 * devicePixelRatio) + "px sans-serif";
	ctx.textAlign = "left";
	ctx.textBaseline = "alphabetic";
}

/* Draws a placed label BOX in COLOR with a tick from it down to the plot
 * at X; U.tmLabels keeps what was drawn since the last redraw (for tests:
 * labels against each other and against the plotted points). */
function drawBandLabel(u, box, x, color) {
	const ctx = u.ctx, dpr = devicePixelRatio;
	(u.tmLabels = u.tmLabels || []).push(box);
	ctx.fillStyle = color;
	ctx.fillText(box.text, box.x, box.y - 2 * dpr);
	ctx.strokeStyle = color;
	ctx.lineWidth = dpr;
	ctx.beginPath();
	ctx.moveTo(x, box.y - dpr);
	ctx.lineTo(x, u.bbox.top);
	ctx.stroke();
}

/* The chart's key, under uPlot's legend: one entry per kind of thing drawn
 * in the plot that is not a series ({kind, text, color, dash}); U.tmDrawn
 * lists the kinds drawn (for tests: each must have its entry). */
function setKey(u, entries) {
	let key = u.root.querySelector(".tm-key");
	const sig = JSON.stringify(entries);
	if (key && key.dataset.sig === sig) return;
	if (!key) {
		key = document.createElement("div");
		key.className = "tm-key";
		u.root.appendChild(key);
	}
	key.dataset.sig = sig;
	key.replaceChildren(...entries.map(e => {
		const item = document.createElement("span");
		item.className = "tm-key-item";
		item.setAttribute("data-kind", e.kind);
		const sw = document.createElement("span");
		sw.className = "tm-key-mark " + (e.shape || "line");
		sw.style.borderColor = e.color;
		if (e.shape === "span") sw.style.backgroundColor = e.color;
		else if (e.shape === "cross") sw.style.color = e.color;
		item.append(sw, document.createTextNode(e.text));
		return item;
	}));
}

/* A tooltip on the plot naming the events and the mark under the cursor
 * (where a label had to be elided or left out, this is where it is read). */
function tooltip(u, things) {
	const x = u.cursor.left;
	if (!(x >= 0)) return;
	const names = [];
	for (const t of things) {
		const a = u.valToPos(t.t0, "x"), b = t.t1 === undefined ? a : u.valToPos(t.t1, "x");
		if (x >= a - 4 && x <= b + 4) names.push(t.text);
	}
	u.over.title = names.join("\n");
}

/* What an event is called on a chart, how much it matters (0 first), and
 * whether it is bad news (red).  The SIGKILL that an OOM kill sends is part
 * of the OOM kill, not a separate "signal"; a late sample (the recorder
 * could not keep its interval) is no event of the program: it is counted in
 * the summary, not drawn (text null: not drawn). */
function describe(ev, events) {
	const near = k => events.some(o => o.kind === k && Math.abs(o.t_wall_usec - ev.t_wall_usec) < 2e6);
	switch (ev.kind) {
	case "oom_kill": return {text: "OOM kill", rank: 0, bad: true};
	case "signal":
		if (ev.value === 9 && near("oom_kill")) return {text: null, rank: 9, bad: true};
		return {text: "killed by " + (ev.detail || "signal " + ev.value), rank: 1, bad: true};
	case "exit": return {text: "exit " + ev.value, rank: 1, bad: ev.value !== 0};
	case "timeout": return {text: "timeout", rank: 1, bad: true};
	case "invalid": return {text: "invalid run", rank: 1, bad: true};
	case "interrupted": return {text: "interrupted", rank: 1, bad: true};
	case "max_hit": return {text: "memory.max hit", rank: 2, bad: true};
	case "high_throttle": return {text: "memory.high throttle", rank: 3, bad: true};
	case "limit_change": return {text: ev.detail || "limit change", rank: 2, bad: false};
	case "late": return {text: null, rank: 8, bad: false};
	case "start": return {text: "start", rank: 5, bad: false};
	case "guard_fired": return {text: "guard: " + (ev.detail || "fired"), rank: 3, bad: false};
	default: return {text: ev.kind.replace(/_/g, " "), rank: 4, bad: false};
	}
}

const MARK_FILL = ["rgba(120,140,200,0.16)", "rgba(120,140,200,0.08)"];

/* Marks as alternating spans and events as vertical lines, drawn under the
 * series; their names in the band above the plot, the most important
 * first, elided or left to the tooltip where the band is full. */
export function overlays(run) {
	const events = (run && run.events) || [], marks = (run && run.marks) || [];
	const described = events.map(ev => Object.assign({ev}, describe(ev, events)))
		.filter(d => d.text).sort((a, b) => a.rank - b.rank);
	const nothing = !described.length && !marks.length;
	/* an event just past the last sample (the kill that ended the run)
	 * belongs at the edge, not off the chart */
	const eventX = (u, d) => {
		const left = u.bbox.left, right = left + u.bbox.width, slack = 0.03 * (right - left);
		const x = u.valToPos(d.ev.t_wall_usec / 1e6, "x", true);
		return x < left - slack || x > right + slack ? null : Math.min(right, Math.max(left, x));
	};
	const markEnd = (u, i) => i + 1 < marks.length ? marks[i + 1].t_wall_usec / 1e6 : u.scales.x.max;
	return {
		opts: (u, opts) => {
			if (nothing) return;
			const p = opts.padding || [null, null, null, null];
			opts.padding = [BAND_PX, p[1], p[2], p[3]];
		},
		hooks: {
			drawClear: [u => {
				const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height, dpr = devicePixelRatio;
				u.tmLines = []; /* for tests: each line drawn, and the key entry it has */
				ctx.save();
				for (let i = 0; i < marks.length; i++) {
					const a = u.valToPos(marks[i].t_wall_usec / 1e6, "x", true), b = u.valToPos(markEnd(u, i), "x", true);
					ctx.fillStyle = MARK_FILL[i % 2];
					ctx.fillRect(a, top, Math.max(1, b - a), h);
				}
				for (const d of described.slice().reverse()) { /* least important below */
					const x = eventX(u, d);
					if (x === null) continue;
					u.tmLines.push({kind: d.ev.kind, key: d.bad ? "event-bad" : "event"});
					ctx.strokeStyle = d.bad ? "#c00" : "#999";
					ctx.lineWidth = (d.rank <= 1 ? 2 : 1) * dpr;
					ctx.beginPath();
					ctx.moveTo(x, top);
					ctx.lineTo(x, top + h);
					ctx.stroke();
				}
				ctx.restore();
			}],
			draw: [u => {
				const ctx = u.ctx, place = bandPlacer(u), drawn = new Set();
				u.tmLabels = [];
				ctx.save();
				setFont(ctx);
				for (const d of described) {
					const x = eventX(u, d);
					if (x === null) continue;
					drawn.add(d.bad ? "event-bad" : "event");
					const box = place(d.text, x);
					if (box) drawBandLabel(u, box, x, d.bad ? "#a00" : "#555");
				}
				for (let i = 0; i < marks.length; i++) {
					const x = u.valToPos(marks[i].t_wall_usec / 1e6, "x", true);
					if (x < u.bbox.left - 1 || x > u.bbox.left + u.bbox.width) continue;
					drawn.add("mark");
					const box = place(marks[i].text, x + 2 * devicePixelRatio);
					if (box) drawBandLabel(u, box, x, "#334");
				}
				ctx.restore();
				u.tmDrawn = [...drawn];
				setKey(u, [
					{kind: "event", text: "event (named above the chart)", color: "#999"},
					{kind: "event-bad", text: "failure event (red)", color: "#c00"},
					{kind: "mark", text: "mark: a span from one mark to the next", color: MARK_FILL[0], shape: "span"},
				].filter(e => drawn.has(e.kind)));
			}],
			setCursor: [u => tooltip(u, described.map(d => ({t0: d.ev.t_wall_usec / 1e6, text: d.text})).concat(
				marks.map((m, i) => ({t0: m.t_wall_usec / 1e6, t1: markEnd(u, i), text: "mark: " + m.text}))))],
		},
	};
}

/* Horizontal limit lines and kill markers for the bench chart:
 * LIMITS [{y, color, label}], KILLS [{x, y, color, kind ("OOM kill"), id
 * (the run)}].  Limits are named in the key; kills at their place in the
 * band above the plot (kills whose crosses coincide share one name, "OOM
 * kill #1, #7"), and in the key. */
export function benchMarks(limits, kills) {
	const groupsOf = u => {
		const groups = [], r = 5 * devicePixelRatio;
		for (const k of kills) {
			const x = u.valToPos(k.x, "x", true), y = u.valToPos(k.y, "y", true);
			const g = groups.find(o => Math.abs(o.x - x) < 2 * r && Math.abs(o.y - y) < 2 * r && o.kind === k.kind);
			if (g) g.ids.push(k.id);
			else groups.push({x, y, kind: k.kind, ids: [k.id]});
		}
		return groups;
	};
	return {
		opts: (u, opts) => {
			if (!kills.length) return;
			const p = opts.padding || [null, null, null, null];
			opts.padding = [BAND_PX, p[1], p[2], p[3]];
		},
		hooks: {
			draw: [u => {
				const ctx = u.ctx, dpr = devicePixelRatio, left = u.bbox.left, right = left + u.bbox.width;
				const place = bandPlacer(u), drawn = new Set();
				u.tmLabels = [];
				ctx.save();
				setFont(ctx);
				for (const l of limits) {
					const y = u.valToPos(l.y, "y", true);
					ctx.strokeStyle = l.color;
					ctx.lineWidth = 1.5 * dpr;
					ctx.setLineDash([8 * dpr, 4 * dpr]);
					ctx.beginPath();
					ctx.moveTo(left, y);
					ctx.lineTo(right, y);
					ctx.stroke();
					ctx.setLineDash([]);
					drawn.add("limit:" + l.label);
				}
				const r = 5 * dpr;
				for (const k of kills) {
					const x = u.valToPos(k.x, "x", true), y = u.valToPos(k.y, "y", true);
					ctx.strokeStyle = "#c00";
					ctx.lineWidth = 3 * dpr;
					ctx.beginPath();
					ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
					ctx.moveTo(x - r, y + r); ctx.lineTo(x + r, y - r);
					ctx.stroke();
					ctx.strokeStyle = k.color;
					ctx.lineWidth = 1.5 * dpr;
					ctx.stroke();
					drawn.add("kill:" + k.kind);
				}
				for (const g of groupsOf(u).sort((a, b) => a.x - b.x)) {
					const box = place(g.kind + " " + g.ids.map(id => "#" + id).join(", "), g.x);
					if (box) drawBandLabel(u, box, g.x, "#a00");
				}
				ctx.restore();
				u.tmDrawn = [...drawn];
				const kinds = [...new Set(kills.map(k => k.kind))];
				setKey(u, limits.map(l => ({kind: "limit:" + l.label, text: l.label, color: l.color, shape: "dash"}))
					.concat(kinds.map(k => ({kind: "kill:" + k, text: "✕ " + k + " (runs " +
						kills.filter(x => x.kind === k).map(x => "#" + x.id).join(", ") + ")", color: "#c00", shape: "cross"}))));
			}],
			setCursor: [u => {
				const g = groupsOf(u), x = u.cursor.left * devicePixelRatio, y = u.cursor.top * devicePixelRatio;
				const hit = g.filter(o => Math.abs(o.x - x - u.bbox.left) < 8 * devicePixelRatio &&
					Math.abs(o.y - y - u.bbox.top) < 8 * devicePixelRatio);
				u.over.title = hit.map(o => o.kind + " " + o.ids.map(id => "#" + id).join(", ")).join("\n");
			}],
		},
	};
}

/* ---- making charts ---- */

/* The width of a chart: the main column's, within 480 and 1200 px. */
export function chartWidth() {
	const main = document.getElementById("main");
	return Math.max(480, Math.min(1200, (main ? main.clientWidth : 1000) - 40));
}

/* A chart in PARENT, registered with PAGE.  SERIES without the x series;
 * OPTS: key, machine (for tests), width, height, axes, scales, bands,
 * plugins.  Returns a handle {u, setData(data), entry}. */
export function makeChart(page, parent, title, series, data, opts) {
	const box = el("div", {class: "chart"});
	parent.appendChild(box);
	const u = new uPlot({
		title,
		width: opts.width || chartWidth(),
		height: opts.height || 220,
		series: [{}].concat(series),
		axes: opts.axes || [timeAxis(), yAxis("", false)],
		scales: Object.assign({x: {time: true}, y: yScale(false)}, opts.scales || {}),
		bands: opts.bands || [],
		plugins: opts.plugins || [],
	}, data, box);
	const titleEl = u.root.querySelector(".u-title");
	/* for tests: plain figures, and the chart object itself (not enumerable,
	 * so reading window.tmCharts from a test does not copy it) */
	const entry = {key: opts.key || title, machine: opts.machine || null, points: data[0].length, zero: false};
	Object.defineProperty(entry, "u", {value: u, enumerable: false});
	const retitle = () => {
		entry.zero = zeroOnScale(u, "y");
		if (titleEl) titleEl.textContent = title + (entry.zero ? " — 0 throughout" : "");
	};
	retitle();
	const handle = {
		u, entry,
		setData(d) {
			u.setData(d);
			entry.points = d[0].length;
			retitle();
		},
	};
	page.track(handle);
	return handle;
}

/* Byte series drawn in MiB on a binary axis titled "MiB". */
export function byteScales(extra) {
	return Object.assign({y: yScale(true)}, extra || {});
}

export const byteValue = (u, v) => mib(v);
