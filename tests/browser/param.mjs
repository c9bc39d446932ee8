// A bench with a parameter in a `report --bench N --html` file, opened
// offline: the table shows the terminal's rows (per value, per N, growth
// exponent), and the footprint against N is plotted by arm, one chart per
// memory figure, each arm's points the medians of the bench's JSON at each
// value (null where the arm has none: a gap, never 0), x the values of N.
//
//   node param.mjs FILE TABLE_TXT TABLE_JSON OUT_PNG
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [file, txtFile, jsonFile, png] = process.argv.slice(2);
const norm = (s) => s.replace(/\s+/g, " ").trim();

const want = JSON.parse(fs.readFileSync(jsonFile, "utf8"));
const { browser, close } = await launch({ offline: true, viewport: { width: 1300, height: 1000 } });
try {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.resolve(file));
	await page.waitForSelector("section.param", { timeout: 15000 });
	await page.waitForTimeout(300);
	const shown = await page.evaluate(() => ({
		rows: [...document.querySelectorAll("table.bench tr")].map((tr) => [...tr.children].map((c) => c.textContent).join(" ")),
		charts: (window.tmCharts || []).filter((c) => c.key.startsWith("param:")).map((c) => ({
			key: c.key, figure: c.figure, logX: c.logX, title: c.u.root.querySelector(".u-title").textContent,
			labels: c.u.series.slice(1).map((s) => s.label), data: c.u.data.map((d) => Array.from(d)),
			w: c.u.bbox.width, h: c.u.bbox.height })),
		fits: Object.fromEntries([...document.querySelectorAll("ul.param-fits")].map((u) => [u.dataset.figure,
			[...u.querySelectorAll("li")].map((li) => li.textContent)])),
	}));
	check(!errors.length, "no script errors", errors.join("\n"));
	// the terminal's per-value and fit lines, in the page's table
	// (a figure not known is n/a in the terminal, — in HTML: docs/output.md)
	const dash = (l) => (/^N=/.test(l) ? l.replace(/(^| )n\/a(?= |$)/g, "$1—") : l);
	const lines = fs.readFileSync(txtFile, "utf8").split("\n").filter((l) => /^  (N=|per N|growth exponent)/.test(l)).map(norm).map(dash);
	const rows = new Set(shown.rows.map(norm));
	const missing = lines.filter((l) => !rows.has(l));
	check(lines.length > 6 && !missing.length, `the table has the terminal's ${lines.length} per-value and fit lines`, missing.slice(0, 5).join("\n"));
	const p = want.param;
	const arms = want.arms.map((a) => a.name);
	const heap = shown.charts.find((c) => c.figure === "heap_peak_bytes");
	const anon = shown.charts.find((c) => c.figure === "peak_anon_bytes");
	check(heap && anon, "a chart of peak anon and of heap peak against N", JSON.stringify(shown.charts.map((c) => c.key)));
	for (const c of shown.charts) {
		const xsOk = JSON.stringify(c.data[0]) === JSON.stringify(p.values);
		const med = arms.map((_, ai) => p.by_value.map((v) => {
			const f = v.table.arms[ai].figures[c.figure];
			return f && f.n > 0 ? f.median : null;
		}));
		const same = arms.every((_, ai) => JSON.stringify(c.data[1 + ai]) === JSON.stringify(med[ai]));
		check(xsOk && same && c.labels.slice(0, arms.length).join() === arms.join(),
			`${c.figure}: x is N (${p.values.join(", ")}), one series per arm, the JSON's medians`,
			JSON.stringify({ x: c.data[0], got: c.data.slice(1, 1 + arms.length), want: med }));
	}
	check(heap && heap.logX && heap.w > 300 && heap.h > 150, "N spanning two decades is on a log axis, the chart is drawn",
		JSON.stringify(heap && { logX: heap.logX, w: heap.w, h: heap.h }));
	const fit = p.fits.find((f) => f.arm === arms[0] && f.figure === "heap_peak_bytes");
	const li = (shown.fits.heap_peak_bytes || [])[0] || "";
	check(fit && li.includes(fit.slope_text) && li.includes(fit.exponent_text),
		`the chart says ${arms[0]}'s cost per N and growth exponent as the table: ${fit && fit.slope_text}`, li);
	// the fit line: intercept + slope N at each value
	const fitSeries = heap && heap.data[1 + arms.length];
	check(fitSeries && fitSeries.every((y, i) => Math.abs(y - (fit.intercept + fit.slope_per_unit * p.values[i])) < 1),
		"the fit is drawn as the least-squares line", JSON.stringify(fitSeries));
	if (png) await page.locator("section.param").screenshot({ path: png });
} finally {
	await close();
}
exitWithStatus();
