// Opens the tidemark panel in Debian's chromium (headless, via
// playwright-core) and checks what a person would see.
//
//   node panel.mjs URL OUT_DIR MACHINE...
//
// URL is the panel address with #token=... when reads need a token.  Checks:
// the home page shows each MACHINE with a chart holding data points; no
// script from collector data ran (window.__pwned); the page logged no
// errors.  Saves OUT_DIR/panel.png.  Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [url, outDir, ...machines] = process.argv.slice(2);

// A persistent context is how playwright passes a fresh --user-data-dir.
const { browser, close } = await launch({ viewport: { width: 1400, height: 1800 } });
try {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
	await page.goto(url);
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	const ready = await page.getAttribute("body", "data-ready");
	ready === "1" ? ok("panel home page renders") : notOk("panel home page renders", `data-ready=${ready}: ${await page.textContent("main")}`);
	const charts = await page.evaluate(() => window.tmCharts);
	for (const m of machines) {
		const c = charts.find((x) => x.key === "memory" && x.machine === m);
		if (c && c.points > 0) ok(`panel shows machine ${m} with ${c.points} points`);
		else notOk(`panel shows machine ${m}`, JSON.stringify(charts));
	}
	const overlay = charts.find((x) => x.key === "overlay");
	overlay && overlay.points > 0 ? ok("machines overlaid on one time axis") : notOk("machines overlaid on one time axis", JSON.stringify(charts));
	const canvases = await page.locator("canvas").count();
	canvases >= machines.length + 1 ? ok(`charts drawn (${canvases} canvases)`) : notOk("charts drawn", `${canvases} canvases`);
	const text = await page.textContent("main");
	for (const m of machines)
		text.includes(m) ? ok(`machine name ${m} listed`) : notOk(`machine name ${m} listed`, text.slice(0, 300));
	fs.mkdirSync(outDir, { recursive: true });
	await page.screenshot({ path: path.join(outDir, "panel.png"), fullPage: true });

	// Two runs picked in the runs table, compared on one time axis.
	await page.evaluate(() => { document.body.removeAttribute("data-ready"); });
	const boxes = page.locator('input[type="checkbox"]');
	await boxes.nth(0).check();
	await boxes.nth(1).check();
	await page.click("text=compare selected runs");
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	const cmp = await page.evaluate(() => ({ hash: location.hash, charts: window.tmCharts }));
	const ov = cmp.charts.find((x) => x.key === "overlay");
	/^#\/compare\/\d+,\d+$/.test(cmp.hash) && ov && ov.points > 0 && cmp.charts.filter((x) => x.key === "memory").length === 2
		? ok(`two runs compared on one time axis (${cmp.hash})`) : notOk("two runs compared on one time axis", JSON.stringify(cmp));
	await page.goto(url.replace(/#.*/, "#/"));
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });

	// A run page: memory, CPU, PSI and I/O panels; hostile text stays text.
	const run = await page.evaluate(() => document.querySelector('a[href^="#/run/"]').getAttribute("href"));
	await page.evaluate((h) => { document.body.removeAttribute("data-ready"); location.hash = h; }, run);
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	const keys = (await page.evaluate(() => window.tmCharts)).map((c) => c.key);
	for (const k of ["memory", "cpu", "psi", "io", "heap_alloc"])
		keys.includes(k) ? ok(`run page has the ${k} panel`) : notOk(`run page has the ${k} panel`, keys.join(","));
	await page.screenshot({ path: path.join(outDir, "run.png"), fullPage: true });
	const pwned = await page.evaluate(() => window.__pwned === undefined && !document.querySelector("main img, main script, main iframe"));
	pwned ? ok("collector text rendered inert") : notOk("collector text rendered inert", "an element or script from data appeared");
	errors.length === 0 ? ok("no page errors") : notOk("no page errors", errors.join(" | "));
} finally {
	await close();
}
exitWithStatus();
