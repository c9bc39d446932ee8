/*
 * Charts (uPlot): axes with units, byte axes on round binary steps, events
 * and marks drawn over the plot, stable arm colours.  Every chart is made
 * through makeChart, which registers it with its page: the page destroys
 * it when it is left, and live updates go through the handle's setData
 * (the chart object stays; nothing is rebuilt on a tick).
 */
import {el} from "./dom.js";
import {MiB, mib, mibTick} from "./fmt.js";

export const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];

/* The same arm name gets the same colour in every bench: the usual arms
 * have their own (the allocator registry's, src/base/allocators.h: its
 * test checks this list against it), any other name is hashed into the
 * rest of the palette (red is kept for limits and kills). */
const ARM_COLORS = {glibc: "#1f77b4", arena1: "#ff7f0e", jemalloc: "#2ca02c", mimalloc: "#9467bd",
	tcmalloc: "#8c564b", "tcmalloc-full": "#7f7f7f"};
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

/* ---- events and marks over the plot ---- */

/* Places labels without covering each other: given candidate boxes
 * {x, y (baseline), w, h} in order of preference, returns the first that
 * lies inside U's plot and overlaps no label placed before, or null (then only the line or marker
 * is drawn, and the label is left out). */
function placer(u) {
	const placed = [], b = u.bbox;
	const place = cands => {
		for (const c of cands) {
			const top = c.y - c.h;
			if (top < b.top || c.y > b.top + b.height || c.x < b.left || c.x + c.w > b.left + b.width) continue;
			if (!placed.some(p => c.x < p.x + p.w + 4 && p.x < c.x + c.w + 4 && top < p.y && p.y - p.h < c.y)) {
				placed.push(c);
				return c;
			}
		}
		return null;
	};
	place.occupy = box => placed.push(box); /* a marker labels must not cover */
	return place;
}

/* ROWS candidate boxes for a label of width W at X, the first baseline at Y0, each next STEP further. */
function rows(x, w, y0, step, n) {
	return Array.from({length: n}, (_, r) => ({x, y: y0 + r * step, w, h: 12 * devicePixelRatio}));
}

/* What an event is called on a chart, how much it matters (0 first), and
 * whether it is bad news (red).  The SIGKILL that an OOM kill sends is part
 * of the OOM kill, not a separate "signal". */
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
	default: return {text: ev.kind.replace(/_/g, " "), rank: 4, bad: false};
	}
}

/* Draws TEXT with its baseline at X, Y on a light box; U.tmLabels keeps
 * what was drawn since the last redraw (for tests: nothing may overlap). */
function drawLabel(u, text, x, y, color) {
	const ctx = u.ctx, w = ctx.measureText(text).width;
	(u.tmLabels = u.tmLabels || []).push({text, x, y, w, h: 12 * devicePixelRatio});
	ctx.fillStyle = "rgba(255,255,255,0.85)";
	ctx.fillRect(x - 1, y - 10 * devicePixelRatio, w + 2, 12 * devicePixelRatio);
	ctx.fillStyle = color;
	ctx.fillText(text, x, y);
}

/* Marks as alternating bands labelled at the top; events as vertical lines
 * labelled at the bottom, the most important first; a label that would
 * cover another is left out (its line stays). */
export function overlays(run) {
	const events = (run && run.events) || [], marks = (run && run.marks) || [];
	const described = events.map(ev => Object.assign({ev}, describe(ev, events)))
		.sort((a, b) => a.rank - b.rank);
	return {
		hooks: {
			drawClear: [u => {
				const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height, dpr = devicePixelRatio;
				const place = placer(u);
				u.tmLabels = [];
				ctx.save();
				ctx.font = Math.round(10 * dpr) + "px sans-serif";
				for (let i = 0; i < marks.length; i++) {
					const a = u.valToPos(marks[i].t_wall_usec / 1e6, "x", true);
					const bEnd = i + 1 < marks.length ? marks[i + 1].t_wall_usec / 1e6 : u.scales.x.max;
					const b = u.valToPos(bEnd, "x", true);
					ctx.fillStyle = i % 2 ? "rgba(120,140,200,0.08)" : "rgba(120,140,200,0.16)";
					ctx.fillRect(a, top, Math.max(1, b - a), h);
					const at = place(rows(a + 3, ctx.measureText(marks[i].text).width, top + 12 * dpr, 12 * dpr, 2));
					if (at) drawLabel(u, marks[i].text, at.x, at.y, "#334");
				}
				ctx.restore();
			}],
			draw: [u => {
				const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height, dpr = devicePixelRatio;
				const left = u.bbox.left, right = left + u.bbox.width, place = placer(u);
				ctx.save();
				ctx.font = Math.round(10 * dpr) + "px sans-serif";
				/* an event just past the last sample (the kill that ended the
				 * run) belongs at the edge, not off the chart */
				const at = d => {
					const x = u.valToPos(d.ev.t_wall_usec / 1e6, "x", true), slack = 0.03 * (right - left);
					return x < left - slack || x > right + slack ? null : Math.min(right, Math.max(left, x));
				};
				for (const d of described.slice().reverse()) { /* lines: least important below */
					const x = at(d);
					if (x === null) continue;
					ctx.strokeStyle = d.bad ? "#c00" : "#999";
					ctx.lineWidth = d.rank <= 1 ? 2 * dpr : dpr;
					ctx.beginPath();
					ctx.moveTo(x, top);
					ctx.lineTo(x, top + h);
					ctx.stroke();
				}
				for (const d of described) {
					const x = at(d);
					if (!d.text || x === null) continue;
					const w = ctx.measureText(d.text).width;
					const lx = x + 3 + w > right ? x - 3 - w : x + 3;
					const box = place(rows(lx, w, top + h - 4 * dpr, -12 * dpr, 3));
					if (box) drawLabel(u, d.text, box.x, box.y, d.bad ? "#a00" : "#444");
				}
				ctx.restore();
			}],
		},
	};
}

/* Horizontal limit lines and kill markers for the bench chart:
 * LIMITS [{y, color, label}], KILLS [{x, y, color, kind ("OOM kill"), id (the run)}]. */
export function benchMarks(limits, kills) {
	return {
		hooks: {
			draw: [u => {
				const ctx = u.ctx, dpr = devicePixelRatio, left = u.bbox.left, right = left + u.bbox.width;
				const place = placer(u);
				u.tmLabels = [];
				ctx.save();
				ctx.font = Math.round(10 * dpr) + "px sans-serif";
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
					const w = ctx.measureText(l.label).width, lh = 12 * dpr;
					const at = place([{x: right - w - 4 * dpr, y: y - 3 * dpr, w, h: lh}, {x: right - w - 4 * dpr, y: y + lh, w, h: lh},
						{x: left + 4 * dpr, y: y - 3 * dpr, w, h: lh}, {x: left + 4 * dpr, y: y + lh, w, h: lh}]);
					if (at) drawLabel(u, l.label, at.x, at.y, l.color);
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
				}
				for (const k of kills) {
					const x = u.valToPos(k.x, "x", true), y = u.valToPos(k.y, "y", true);
					place.occupy({x: x - r, y: y + r, w: 2 * r, h: 2 * r});
				}
				/* kills whose markers coincide share one label ("OOM kill #1, #7");
				 * each label goes beside its marker, below or above it, else is left out */
				const groups = [];
				for (const k of kills) {
					const x = u.valToPos(k.x, "x", true), y = u.valToPos(k.y, "y", true);
					const g = groups.find(o => Math.abs(o.x - x) < 2 * r && Math.abs(o.y - y) < 2 * r && o.kind === k.kind);
					if (g) g.ids.push(k.id);
					else groups.push({x, y, kind: k.kind, ids: [k.id]});
				}
				for (const g of groups) {
					const x = g.x, y = g.y, label = g.kind + " " + g.ids.map(id => "#" + id).join(", ");
					const w = ctx.measureText(label).width, l = 12 * dpr;
					const at = place([].concat(rows(x + r + 2, w, y + 4 * dpr, l, 3), rows(x + r + 2, w, y - l, -l, 3),
						rows(x - r - 2 - w, w, y + 4 * dpr, l, 3), rows(x - r - 2 - w, w, y - l, -l, 3)));
					if (at) drawLabel(u, label, at.x, at.y, "#a00");
				}
				ctx.restore();
			}],
		},
	};
}

/* ---- making charts ---- */

export function chartWidth(parent) {
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
