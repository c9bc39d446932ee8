// The survival curve and the advice in a `report --bench N --html` file,
// opened offline: each arm's curve table has the rows `bench --sweep`
// printed for it (limit, survived k/n, peak anon MiB, wall s), the curve is
// plotted per arm (limit on x in MiB on binary steps, k/n on y), and the
// advice shows the recommended arm's MemoryMax as `advise` printed it.
// A MemoryHigh sweep's section (data-limit="MemoryHigh") has the terminal's
// rate /min, psi mem and throttled columns too, and its chart plots, per
// arm, the progress rate and the memory pressure against the ceiling, with
// the limits where runs were throttled as the terminal's rows say.
//
//   node sweep.mjs FILE SWEEP_TXT ADVISE_TXT OUT_PNG   (the sweep and the
//       advice as the terminal printed them)
//   node sweep.mjs --no-sweep FILE [ADVISE_TXT]        (a bench without a
//       sweep: no curve section at all; with ADVISE_TXT, every refusal
//       line `advise` printed is in the advice section)
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const noSweep = args[0] === "--no-sweep";
const [file, sweepFile, adviseFile, png] = noSweep ? [args[1], null, args[2]] : args;
const norm = (s) => s.replace(/\s+/g, " ").trim();

const { browser, close } = await launch({ offline: true, viewport: { width: 1300, height: 1000 } });
try {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.resolve(file));
	await page.waitForSelector("h2", { timeout: 15000 });
	await page.waitForTimeout(300);
	const shown = await page.evaluate(() => ({
		sweep: !!document.querySelector("section.sweep"),
		limit: (document.querySelector("section.sweep") || {dataset: {}}).dataset.limit || null,
		curves: Object.fromEntries([...document.querySelectorAll("table.curve")].map((t) => [t.dataset.arm,
			[...t.querySelectorAll("tr")].slice(1).map((tr) => [...tr.children].map((c) => c.textContent).join(" "))])),
		advice: [...document.querySelectorAll(".advice-arm")].map((a) => ({ arm: a.dataset.arm, text: a.textContent,
			rows: [...a.querySelectorAll("table.advice tr")].map((tr) => [...tr.children].map((c) => c.textContent)) })),
		chart: (() => { const c = (window.tmCharts || []).find((c) => c.key === "sweep"); return c ? JSON.parse(JSON.stringify(c)) : null; })(),
		ticks: (() => { const c = (window.tmCharts || []).find((c) => c.key === "sweep"); return c && c.u.tmTicks ? c.u.tmTicks.x : null; })(),
	}));
	check(!errors.length, "no script errors", errors.join("\n"));
	if (noSweep) {
		check(!shown.sweep, "a bench without a sweep has no curve section", "a section.sweep is shown");
		if (adviseFile) {
			const refusals = fs.readFileSync(adviseFile, "utf8").split("\n").map(norm)
				.filter((l) => /^(no advice: |refused: )|: 0\/\d+ survived: no profile$/.test(l));
			const text = norm(await page.evaluate(() => document.querySelector("section.advice").textContent));
			check(refusals.length && refusals.every((l) => text.includes(l)), `the advice section shows the refusal: ${refusals.join("; ")}`, text);
		}
	} else {
		// the terminal's curve rows, per arm: "ARM: smallest ..." then a header, then rows
		const want = {};
		let arm = null;
		for (const l of fs.readFileSync(sweepFile, "utf8").split("\n")) {
			const m = /^(\S+): /.exec(l);
			if (m) { arm = m[1]; want[arm] = []; continue; }
			if (arm && /^  \d/.test(l)) want[arm].push(norm(l));
			if (!l.trim()) arm = null;
		}
		for (const a of Object.keys(want)) {
			const got = (shown.curves[a] || []).map(norm);
			const same = got.length === want[a].length && got.every((r, i) => r === want[a][i]);
			check(same, `${a}: the curve table has the terminal's ${want[a].length} rows`,
				want[a].map((t, i) => (t === got[i] ? "  " : "≠ ") + t + (t === got[i] ? "" : "\n  shown: " + got[i])).join("\n"));
		}
		check(Object.keys(want).length > 0 && Object.keys(shown.curves).length === Object.keys(want).length,
			"one curve table per swept arm", JSON.stringify(Object.keys(shown.curves)));
		const MiB = 1048576;
		if (shown.limit === "MemoryHigh") {
			const arms = Object.keys(want);
			const series = (shown.chart && shown.chart.series) || [];
			check(arms.every((a) => series.includes(a + " rate /min") && series.includes(a + " psi mem %")),
				"the MemoryHigh curve plots each arm's progress rate and memory pressure", JSON.stringify(series));
			// the terminal's throttled column: "k/n" last; a limit with k > 0 was held in limbo
			const limitOf = (row) => Math.round(parseFloat(row) * MiB);
			const termThrottled = Object.fromEntries(arms.map((a) => [a, want[a]
				.filter((r) => !/ 0\/\d+$/.test(r)).map(limitOf)]));
			const chartThrottled = Object.fromEntries(((shown.chart && shown.chart.throttled) || []).map((t) => [t.arm, t.limits]));
			check(arms.every((a) => JSON.stringify(termThrottled[a]) === JSON.stringify(chartThrottled[a])) &&
				arms.some((a) => termThrottled[a].length > 0),
				"the chart marks the limits where runs were held in throttle limbo, as the terminal says",
				JSON.stringify({terminal: termThrottled, chart: chartThrottled}));
		}
		check(shown.chart && shown.ticks && shown.ticks.length > 1 &&
			shown.ticks.every((t) => t % MiB === 0 && Number.isInteger(Math.log2(shown.ticks[1] - shown.ticks[0]))),
			"the curve is plotted with the limit on binary MiB steps", JSON.stringify(shown.ticks));
		// the advice: the recommended arm's MemoryMax, as `advise` printed it
		const adv = fs.readFileSync(adviseFile, "utf8").split("\n");
		const rec = adv.find((l) => /<- recommended$/.test(l));
		const recArm = rec && rec.split(":")[0];
		const from = adv.indexOf(rec);
		const mm = adv.slice(from).find((l) => /^ +MemoryMax +/.test(l));
		const value = mm && mm.trim().split(/\s+/)[1];
		const a = shown.advice.find((x) => x.arm === recArm);
		const row = a && a.rows.find((r) => r[0] === "MemoryMax");
		check(a && /<- recommended/.test(a.text) && row && row[1] === value && norm(row[2]) === norm(mm.trim().split(/\s+/).slice(2).join(" ")),
			`the advice shows ${recArm}'s recommended MemoryMax ${value} with its rule`, JSON.stringify(row) + " want " + mm);
		if (png) await page.locator("section.sweep").screenshot({ path: png });
	}
} finally {
	await close();
}
exitWithStatus();
