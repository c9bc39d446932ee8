// Opens a `tidemark report --html` file in headless chromium with the
// network cut off and checks that it draws its charts from the inlined data;
// with ROW, that its summary table shows that row once and what it says.
//   node report.mjs FILE OUT_DIR [CHART_KEY (memory; bench for a bench report)] [ROW]
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [file, outDir, key = "memory", row] = process.argv.slice(2);
const { browser, close } = await launch({ offline: true, viewport: { width: 1300, height: 1600 } });
try {
	const page = await browser.newPage();
	const errors = [], requests = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url()); });
	await page.goto("file://" + path.resolve(file));
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	const charts = await page.evaluate(() => window.tmCharts);
	const mem = charts.find((c) => c.key === key);
	mem && mem.points > 0 ? ok(`HTML report draws the ${key} chart (${mem.points} points)`) : notOk(`HTML report draws the ${key} chart`, JSON.stringify(charts));
	requests.length === 0 ? ok("HTML report loads nothing from the network") : notOk("HTML report loads nothing", requests.join(" "));
	const safe = await page.evaluate(() => window.__pwned === undefined);
	safe ? ok("HTML report: collector text inert") : notOk("HTML report: collector text inert", "script from data ran");
	if (row) {
		const cells = await page.evaluate((name) => [...document.querySelectorAll("tr")]
			.filter((tr) => tr.cells.length === 2 && tr.cells[0].textContent === name)
			.map((tr) => tr.cells[1].textContent), row);
		cells.length === 1 ? ok(`HTML report's summary: ${row} = ${cells[0]}`) : notOk(`HTML report's summary shows ${row} once`, JSON.stringify(cells));
	}
	errors.length === 0 ? ok("HTML report: no page errors") : notOk("HTML report: no page errors", errors.join(" | "));
	fs.mkdirSync(outDir, { recursive: true });
	await page.screenshot({ path: path.join(outDir, `report-${key}.png`), fullPage: true });
} finally {
	await close();
}
exitWithStatus();
