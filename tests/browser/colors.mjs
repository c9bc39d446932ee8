// Arm colours follow the arm's name: the same arm has the same colour in
// every bench, whatever its place, and the arms of one bench differ.
//   node colors.mjs REPORT_A.html REPORT_B.html   (two `report --bench N --html` files)
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const files = process.argv.slice(2);
const { browser, close } = await launch({ offline: true });
try {
	const page = await browser.newPage();
	const seen = [];
	for (const f of files) {
		await page.goto("file://" + path.resolve(f));
		await page.waitForSelector("body[data-ready]", { timeout: 20000 });
		// arm name -> colour, from the table's header and from the chart's series
		seen.push(await page.evaluate(() => {
			const table = [...document.querySelectorAll("table.bench tr:first-child th .swatch")].map((s) =>
				[s.parentNode.textContent.replace(/ \((control|ref)\)/g, ""), getComputedStyle(s).backgroundColor]);
			const chart = window.tmCharts.find((c) => c.key === "bench");
			const series = chart ? chart.u.series.slice(1).map((s) => [s.label.replace(/ #\d+$/, ""), s._stroke || s.stroke]) : [];
			return { table, series: series.map(([n, c]) => [n, typeof c === "function" ? c() : c]) };
		}));
	}
	const colourOf = (s) => Object.fromEntries(s.table);
	for (const [i, s] of seen.entries()) {
		const cols = s.table.map((x) => x[1]);
		check(cols.length > 1 && new Set(cols).size === cols.length, `bench ${i + 1}: each arm its own colour`, JSON.stringify(s.table));
	}
	const a = colourOf(seen[0]), b = colourOf(seen[1]);
	const common = Object.keys(a).filter((n) => n in b);
	check(common.length >= 2 && common.every((n) => a[n] === b[n]), `the same arm, the same colour in both benches (${common.join(", ")})`,
		JSON.stringify({ a, b }));
	const rgb = (hex) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;
	const wrong = seen.flatMap((s) => s.series.filter(([n, c]) => rgb(c) !== colourOf(s)[n]));
	check(seen.every((s) => s.series.length) && !wrong.length, "every run's line has its arm's colour", JSON.stringify(wrong));
} finally {
	await close();
}
exitWithStatus();
