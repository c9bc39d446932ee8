/*
 * The part of a bench's page for a bench with a parameter (`bench --param
 * N=...`): the footprint against N by arm, one chart per memory figure of
 * the table, each arm's medians per value (a value where the arm has none
 * is a gap, never 0) and its least-squares line, with the cost per unit
 * and the growth exponent as the C table gives them (the table's JSON,
 * param.fits; nothing is recomputed here).
 */
import {armColor, byteValue, makeChart, yAxis, yScale} from "./charts.js";
import {el} from "./dom.js";

/* The median of FIGURE for arm AI in the table of one value, or null. */
function medianOf(table, ai, figure) {
	const a = table && table.arms && table.arms[ai];
	const f = a && a.figures && a.figures[figure];
	return f && f.n > 0 && f.median !== null ? f.median : null;
}

/* The figures the text table has a block of, in bytes (the footprints). */
function byteFigures(table) {
	const rows = (table.text && table.text.rows) || [];
	return rows.filter(r => r.kind === "title" && r.figure && /_bytes$/.test(r.figure))
		.map(r => ({figure: r.figure, label: r.label}));
}

function chartOf(page, sec, p, table, fig) {
	const arms = table.arms.map(a => a.name);
	const xs = p.values;
	const fits = arms.map(name => p.fits.find(f => f.arm === name && f.figure === fig.figure) || null);
	const data = [xs];
	const series = [];
	arms.forEach((name, ai) => {
		data.push(p.by_value.map(v => medianOf(v.table, ai, fig.figure)));
		series.push({label: name, stroke: armColor(name), width: 2, points: {show: true, size: 8},
			spanGaps: false, value: byteValue});
	});
	arms.forEach((name, ai) => {
		const f = fits[ai];
		const ok = f && f.slope_per_unit !== null && f.intercept !== null;
		data.push(xs.map(x => ok ? f.intercept + f.slope_per_unit * x : null));
		series.push({label: name + " fit", stroke: armColor(name), width: 1, dash: [4, 4],
			points: {show: false}, value: byteValue});
	});
	const lo = Math.min(...xs), hi = Math.max(...xs);
	const logX = lo > 0 && hi / lo >= 100;
	const h = makeChart(page, sec, fig.label.replace(/ MiB$/, "") + " against " + p.name, series, data, {
		key: "param:" + fig.figure, height: 280,
		axes: [{label: p.name + (logX ? " (log scale)" : ""), labelSize: 20}, yAxis("MiB", true)],
		scales: {x: logX ? {time: false, distr: 3} : {time: false}, y: yScale(true)},
	});
	h.entry.figure = fig.figure;
	h.entry.logX = logX;
	const box = el("ul", {class: "notes param-fits", "data-figure": fig.figure});
	arms.forEach((name, ai) => {
		const f = fits[ai];
		if (f) box.appendChild(el("li", {"data-arm": name}, name + ": per " + p.name + " " + f.slope_text +
			"; fixed part " + f.intercept_text + "; growth exponent " + f.exponent_text));
	});
	sec.appendChild(box);
}

/* The section, or nothing for a bench without a parameter. */
export function paramSection(page, root, b) {
	const table = b.table, p = table && table.param;
	if (!p || !p.values || !p.values.length) return;
	const sec = el("section", {class: "param"});
	sec.appendChild(el("h2", {}, "footprint against " + p.name + " (" + p.spec + ")"));
	root.appendChild(sec);
	for (const fig of byteFigures(table)) chartOf(page, sec, p, table, fig);
}
