// A run page's charts as a person reads them.
//   node charts.mjs FILE[#/run/N] OUT_PNG CHECK...
// FILE is a `report --html` file (opened offline; #/run/N picks a run of a
// bench report).  Always checked: every chart has axis titles, byte axes
// tick on round binary steps (64, 128, 256 MiB), every all-zero chart says
// so and ticks only 0 (one result for all of them), and no two labels drawn
// on a chart cover each other.
// CHECKs:  oom     the run was OOM-killed: its charts say "OOM kill", and the
//                  kill's SIGKILL is not labelled as a separate signal
//          exited  the memory line ends at the process's last real value,
//                  not in a drop to 0
//          zero    at least one chart is all zero (a skip when the run's data are not)
//          marks=N the run has N marks: all listed, some labelled on the chart
//          scraped=NAME  a scraped series (record --scrape) is drawn on a
//                  scraped chart, with values, and gaps (null, not 0) for the
//                  samples that have none
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [target, png, ...checks] = process.argv.slice(2);
const MiB = 1024 * 1024;

const [file, hash = ""] = target.split("#");
const { browser, close } = await launch({ offline: true, viewport: { width: 1300, height: 1000 } });
try {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.resolve(file) + (hash ? "#" + hash : ""));
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	await page.waitForTimeout(300);
	const charts = await page.evaluate(() => window.tmCharts.map((c) => ({
		key: c.key, zero: c.zero, title: c.u.root.querySelector(".u-title")?.textContent || "",
		axes: c.u.axes.map((a) => a.label || ""), ticks: c.u.tmTicks || {}, labels: c.u.tmLabels || [],
		series: c.u.series.map((s) => s.label || ""), data: c.u.data.map((d) => Array.from(d)),
	})));
	check(charts.length > 0 && charts.some((c) => c.key === "memory"), "the run page has its charts", charts.map((c) => c.key).join(","));
	for (const c of charts)
		check(c.axes[0] && c.axes[1], `${c.key}: both axes have a title (${c.axes.slice(0, 2).join(" / ")})`, JSON.stringify(c.axes));
	const mem = charts.find((c) => c.key === "memory");
	if (mem) {
		const t = mem.ticks.y || [];
		const step = t.length > 1 ? (t[1] - t[0]) / MiB : 0;
		const binary = step > 0 && Number.isInteger(Math.log2(step)) && t.every((v) => Number.isInteger(v / MiB / step));
		check(mem.axes[1] === "MiB" && binary, `memory: y ticks on a binary step of ${step} MiB (${t.map((v) => v / MiB).join(", ")})`, JSON.stringify(t));
	}
	/* one result however many charts are all zero (which of a run's charts
	 * are depends on the machine's load: pressure, I/O) */
	const zeros = charts.filter((x) => x.zero);
	const unsaid = zeros.filter((c) => !/0 throughout$/.test(c.title) || JSON.stringify(c.ticks.y) !== "[0]");
	check(!unsaid.length, `every all-zero chart says so and ticks only 0 (${zeros.length}: ${zeros.map((c) => c.key).join(", ") || "none"})`,
		unsaid.map((c) => `${c.key}: ${c.title} ${JSON.stringify(c.ticks.y)}`).join("\n"));
	for (const c of charts) {
		const L = c.labels, hit = [];
		for (let i = 0; i < L.length; i++)
			for (let j = i + 1; j < L.length; j++)
				if (L[i].x < L[j].x + L[j].w && L[j].x < L[i].x + L[i].w && L[i].y - L[i].h < L[j].y && L[j].y - L[j].h < L[i].y)
					hit.push(`${L[i].text} / ${L[j].text}`);
		check(!hit.length, `${c.key}: ${L.length} labels, none covering another`, hit.slice(0, 5).join("\n"));
	}
	for (const want of checks) {
		if (want === "oom") {
			const texts = mem ? mem.labels.map((l) => l.text) : [];
			check(texts.includes("OOM kill") && !texts.some((t) => /signal|SIGKILL/.test(t)),
				"the OOM kill is labelled as an OOM kill, not as a signal", texts.join(", "));
		} else if (want === "exited") {
			const i = mem ? mem.series.findIndex((s) => /^anon/.test(s)) : -1;
			const v = i > 0 ? mem.data[i].filter((x) => x !== null && x !== undefined) : [];
			check(v.length > 1 && v[v.length - 1] > 0, `the exited process's anon ends at ${((v[v.length - 1] || 0) / MiB).toFixed(1)} MiB, not in a drop to 0`,
				JSON.stringify(v.slice(-5)));
		} else if (want === "zero") {
			/* a run's pressure and I/O are 0 when nothing stalled or read, which a
			 * busy machine cannot promise */
			if (charts.some((c) => c.zero)) ok("an all-zero chart was there to check");
			else console.log(`ok - an all-zero chart # SKIP none of this run's charts is all zero (${charts.map((c) => c.key).join(", ")})`);
		} else if (/^marks=\d+$/.test(want)) {
			const n = Number(want.slice(6));
			const listed = await page.evaluate(() => [...document.querySelectorAll("main h2")].find((h) => h.textContent === "marks")?.nextElementSibling?.querySelectorAll("tr").length - 1);
			const onChart = mem ? mem.labels.filter((l) => /^phase /.test(l.text)).length : 0;
			check(listed === n && onChart > 0, `all ${n} marks listed, ${onChart} labelled on the chart where they fit`, `${listed} listed, ${onChart} drawn`);
		} else if (want.startsWith("scraped=")) {
			const name = want.slice(8);
			const c = charts.find((x) => x.key.startsWith("scraped_") && x.series.includes(name));
			const v = c ? c.data[c.series.indexOf(name)] : [];
			const vals = v.filter((x) => x !== null && x !== undefined);
			check(c && vals.length > 1 && vals.length < v.length && !vals.includes(0),
				`scraped ${name} is drawn (${c ? c.key : "no chart"}: ${vals.length} values, ${v.length - vals.length} gaps, no 0)`,
				JSON.stringify(charts.map((x) => [x.key, x.series])));
		} else notOk(`check ${want}`, "unknown check");
	}
	check(errors.length === 0, "no page errors", errors.join(" | "));
	fs.mkdirSync(path.dirname(png), { recursive: true });
	await page.screenshot({ path: png, fullPage: true });
} finally {
	await close();
}
exitWithStatus();
