// Charts and pages as a person reads them, at 800 and 1400 px wide.
//   node layout.mjs OUT_DIR NAME=URL...
// Each URL (a panel page on a real `tidemark serve`, or a `report --html`
// file as file:///...) is opened at both widths; on every chart:
//   - every label drawn (events, marks, kills) lies outside the plotted
//     area: no label box contains a plotted point of any series;
//   - no two labels cover each other;
//   - every kind of thing drawn in the plot that is not a series (event
//     lines, mark spans, limit lines, kill crosses) has its entry in the
//     chart's key, and every series is in the legend; a late sample (the
//     recorder missed its interval) draws no line;
// and the page has no horizontal overflow.  Screenshots: OUT_DIR/NAME-WIDTH.png.
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch } from "./tap.mjs";
import fs from "node:fs";
import path from "node:path";

const [outDir, ...pages] = process.argv.slice(2);
const WIDTHS = [800, 1400];

/* What the page's charts drew, in canvas pixels. */
function collect() {
	return window.tmCharts.map((c) => {
		const u = c.u, b = u.bbox, pts = [];
		for (let i = 1; i < u.series.length; i++) {
			const s = u.series[i];
			if (!s.show) continue;
			const xs = u.data[0], ys = u.data[i] || [];
			for (let j = 0; j < xs.length; j++) {
				if (ys[j] === null || ys[j] === undefined || xs[j] === null) continue;
				const x = u.valToPos(xs[j], "x", true), y = u.valToPos(ys[j], s.scale || "y", true);
				if (x >= b.left && x <= b.left + b.width && y >= b.top - 1 && y <= b.top + b.height + 1)
					pts.push([x, y, s.label]);
			}
		}
		const legend = [...u.root.querySelectorAll(".u-legend .u-series .u-label")].map((e) => e.textContent);
		const key = [...u.root.querySelectorAll(".tm-key [data-kind]")].map((e) => e.getAttribute("data-kind"));
		return {
			key: c.key, labels: u.tmLabels || [], drawn: u.tmDrawn || [], keyed: key, pts, lines: u.tmLines || [],
			series: u.series.slice(1).filter((s) => s.show).map((s) => s.label), legend,
			plot: { top: b.top, left: b.left, width: b.width, height: b.height },
		};
	});
}

const covers = (l, p) => p[0] >= l.x && p[0] <= l.x + l.w && p[1] >= l.y - l.h && p[1] <= l.y;
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y - a.h < b.y && b.y - b.h < a.y;

const { browser, close } = await launch({ viewport: { width: 1400, height: 1000 } });
try {
	fs.mkdirSync(outDir, { recursive: true });
	for (const spec of pages) {
		const [name, url] = [spec.slice(0, spec.indexOf("=")), spec.slice(spec.indexOf("=") + 1)];
		for (const width of WIDTHS) {
			const page = await browser.newPage();
			await page.setViewportSize({ width, height: 1000 });
			const errors = [];
			page.on("pageerror", (e) => errors.push(String(e)));
			await page.goto(url);
			await page.waitForSelector("body[data-ready]", { timeout: 20000 });
			await page.waitForTimeout(400);
			const at = `${name} at ${width} px`;
			const ready = await page.evaluate(() => document.body.getAttribute("data-ready"));
			check(ready === "1", `${at}: the page is drawn`, await page.evaluate(() => document.querySelector("main").textContent.slice(0, 300)));
			const charts = await page.evaluate(collect);
			const labels = charts.reduce((n, c) => n + c.labels.length, 0);
			const onData = [], onEach = [], unkeyed = [], unlegended = [];
			for (const c of charts) {
				for (const l of c.labels) {
					const p = c.pts.find((q) => covers(l, q));
					if (p) onData.push(`${c.key}: "${l.text}" [${l.x.toFixed(0)},${(l.y - l.h).toFixed(0)} ${l.w.toFixed(0)}x${l.h.toFixed(0)}] covers ${p[2]} at ${p[0].toFixed(0)},${p[1].toFixed(0)}`);
					if (l.y - l.h < 0) onData.push(`${c.key}: "${l.text}" is cut at the canvas top (${l.y - l.h})`);
				}
				for (let i = 0; i < c.labels.length; i++)
					for (let j = i + 1; j < c.labels.length; j++)
						if (overlap(c.labels[i], c.labels[j])) onEach.push(`${c.key}: "${c.labels[i].text}" / "${c.labels[j].text}"`);
				for (const k of c.drawn) if (!c.keyed.includes(k)) unkeyed.push(`${c.key}: ${k} (key: ${c.keyed.join(", ")})`);
				for (const l of c.lines) if (!c.keyed.includes(l.key) || l.kind === "late") unkeyed.push(`${c.key}: a ${l.kind} line (key: ${c.keyed.join(", ")})`);
				if (c.labels.length && !c.keyed.length) unkeyed.push(`${c.key}: ${c.labels.length} labels (${c.labels.map((l) => l.text).join(", ")}) and no key`);
				for (const s of c.series) if (!c.legend.includes(s)) unlegended.push(`${c.key}: ${s}`);
			}
			check(!onData.length, `${at}: ${labels} labels on ${charts.length} charts, none over a plotted point`, onData.slice(0, 8).join("\n"));
			check(!onEach.length, `${at}: no label covers another`, onEach.slice(0, 8).join("\n"));
			check(!unkeyed.length && !unlegended.length, `${at}: everything drawn is in the chart's key or legend (${charts.map((c) => c.drawn.length + c.series.length).reduce((a, b) => a + b, 0)} kinds)`,
				unkeyed.concat(unlegended).join("\n"));
			const over = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
				wide: [...document.querySelectorAll("main *")].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 &&
					!e.closest(".wide")).slice(0, 3).map((e) => e.tagName + "." + e.className + " right " + Math.round(e.getBoundingClientRect().right)) }));
			check(over.scroll <= over.client, `${at}: no horizontal overflow (page ${over.scroll} px in ${over.client})`, JSON.stringify(over));
			check(!errors.length, `${at}: no page errors`, errors.join(" | "));
			await page.screenshot({ path: path.join(outDir, `${name}-${width}.png`), fullPage: true });
			await page.close();
		}
	}
} finally {
	await close();
}
exitWithStatus();
