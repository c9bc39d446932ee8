// The bench table in a browser is the terminal's table: every row with the
// same label and cells, every header line, the legend and every note.
//
//   node bench.mjs report FILE TERM OUT_DIR   a `report --bench N --html` file,
//                                             opened offline
//   node bench.mjs panel URL TERM OUT_DIR     the panel's #/bench/N page (URL
//                                             ends in it); also: a page left
//                                             while it loads never paints
//
// TERM is what `tidemark report --bench N` printed.  Also checked: the anon
// chart marks each killed run and draws the limit; run links open the run.
// Prints TAP lines; exits 1 on failure.  Screenshots go to OUT_DIR.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [mode, target, termFile, outDir] = process.argv.slice(2);
const norm = (s) => s.replace(/\s+/g, " ").trim();

// The terminal's table: header lines, a blank line, the rows, a blank line,
// the legend and notes.  (More than 4 arms print several blocks of rows.)
const blocks = fs.readFileSync(termFile, "utf8").split(/\n\s*\n/).map((b) => b.split("\n").filter((l) => l.trim()));
const termHeader = blocks[0].map(norm);
// (a figure not known is n/a in the terminal, — in HTML: docs/output.md)
const dash = (l) => l.replace(/(^| )n\/a(?= |$)/g, "$1—");
const termRows = blocks.slice(1, -1).flat().map(norm).map(dash);
const termNotes = blocks[blocks.length - 1].map(norm);
if (blocks.length !== 3) notOk("terminal table has one block of rows", `${blocks.length} blocks: use at most 4 arms`);

const { browser, close } = await launch({ offline: mode === "report", viewport: { width: 1300, height: 1000 } });

async function tableChecks(page, where) {
	const shown = await page.evaluate(() => ({
		rows: [...document.querySelectorAll("table.bench tr")].map((tr) => [...tr.children].map((c) => c.textContent).join(" ")),
		header: [...document.querySelectorAll(".benchhead > *")].map((e) => e.textContent),
		notes: [...document.querySelectorAll("p.legend, ul.notes li")].map((e) => e.textContent),
	}));
	const rows = shown.rows.map(norm);
	const same = rows.length === termRows.length && rows.every((r, i) => r === termRows[i]);
	check(same, `${where}: the table has the terminal's ${termRows.length} rows, same labels and cells`,
		termRows.map((t, i) => (t === rows[i] ? "  " : "≠ ") + t + (t === rows[i] ? "" : "\n  shown: " + rows[i])).join("\n"));
	for (const want of ["survived", "killed at anon MiB", "heap at kill MiB"])
		check(rows.some((r) => r.startsWith(want + " ")), `${where}: row '${want}'`, rows.join("\n"));
	check(rows.some((r) => /\(\d+ oom-killed\)/.test(r)), `${where}: survival says how many were oom-killed`, rows[1]);
	const header = shown.header.map(norm);
	const missingHead = termHeader.filter((l) => !header.includes(l));
	check(!missingHead.length, `${where}: bench name, command, arms' environment and limits as the terminal says them`, missingHead.join("\n"));
	const notes = shown.notes.map(norm);
	const missing = termNotes.filter((l) => !notes.includes(l));
	check(!missing.length && notes.length === termNotes.length, `${where}: the legend and all ${termNotes.length} notes`,
		"missing: " + missing.join("\n") + "\nshown: " + notes.join("\n"));
}

async function chartChecks(page, where, killed) {
	const c = (await page.evaluate(() => window.tmCharts)).find((x) => x.key === "bench");
	check(c && c.points > 0, `${where}: anon by arm is drawn`, JSON.stringify(c));
	check(c && c.kills === killed, `${where}: each of the ${killed} killed runs is marked`, JSON.stringify(c));
	check(c && Array.isArray(c.limits) && c.limits.some((l) => /^memory\.max \d/.test(l)), `${where}: the memory limit is drawn`, JSON.stringify(c));
}

// (page.waitForFunction would evaluate a string in the page, which the
// server's Content-Security-Policy forbids)
async function until(page, fn, arg) {
	for (let i = 0; i < 200; i++) {
		if (await page.evaluate(fn, arg)) return;
		await page.waitForTimeout(100);
	}
	throw new Error("timed out waiting for " + fn);
}
const benchShown = () => (document.querySelector("main h1")?.textContent || "").startsWith("bench ");
const waitBench = (page) => until(page, benchShown);

async function runLink(page, where) {
	const href = await page.evaluate(() => document.querySelector('a[href^="#/run/"]')?.getAttribute("href"));
	await page.click(`a[href="${href}"]`);
	await until(page, (h) => location.hash === h && !!document.body.getAttribute("data-ready"), href);
	const res = await page.evaluate(() => ({ h1: document.querySelector("main h1")?.textContent || "",
		ready: document.body.getAttribute("data-ready"), keys: window.tmCharts.map((c) => c.key) }));
	const id = href.replace("#/run/", "");
	check(res.ready === "1" && res.h1.startsWith(`run ${id} `) && res.keys.includes("memory"),
		`${where}: a run link opens that run with its charts`, JSON.stringify(res));
	await page.goBack();
	await waitBench(page);
}

// In the panel: start loading a run page whose data is slow, leave it for
// the bench before it arrives; the run page must never appear.
async function staleCheck(page, benchUrl) {
	await page.waitForSelector('a[href^="#/run/"]', { timeout: 20000 });
	const runId = await page.evaluate(() => document.querySelector('a[href^="#/run/"]').getAttribute("href").slice(6));
	await page.route(new RegExp(`/api/v1/runs/${runId}(/series.*)?$`), async (r) => {
		await new Promise((res) => setTimeout(res, 1500));
		await r.continue().catch(() => {});
	});
	await page.goto(benchUrl.replace(/#.*/, `#/run/${runId}`));
	await page.waitForTimeout(200);
	await page.evaluate(() => {
		window.__runPainted = false;
		new MutationObserver(() => {
			const h = document.querySelector("main h1");
			if (h && h.textContent.startsWith("run ")) window.__runPainted = true;
		}).observe(document.getElementById("main"), { childList: true, subtree: true });
	});
	await page.evaluate((h) => { location.hash = h; }, new URL(benchUrl).hash);
	await waitBench(page);
	await page.waitForTimeout(4000); /* the slow run data (two requests) has arrived by now */
	const res = await page.evaluate(() => ({ painted: window.__runPainted, h1: document.querySelector("main h1").textContent }));
	check(!res.painted && res.h1.startsWith("bench "), "panel: a page left while loading never paints over the next", JSON.stringify(res));
	await page.unroute(new RegExp(`/api/v1/runs/${runId}(/series.*)?$`));
}

// A proxy's error page is reported as its HTTP status, not as broken JSON.
async function statusCheck(page, benchUrl) {
	const api = new URL(benchUrl).hash.replace("#", "/api/v1");
	await page.route((u) => u.pathname === api, (r) => r.fulfill({ status: 502, contentType: "text/html", body: "<html><h1>502 Bad Gateway</h1></html>" }));
	await page.evaluate(() => { document.body.removeAttribute("data-ready"); location.hash = "#/"; });
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	await page.evaluate((h) => { document.body.removeAttribute("data-ready"); location.hash = h; }, new URL(benchUrl).hash);
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	const res = await page.evaluate(() => ({ ready: document.body.getAttribute("data-ready"), text: document.querySelector("main").textContent }));
	check(res.ready === "error" && /HTTP 502/.test(res.text) && !/JSON/.test(res.text), "panel: an HTTP error is reported as its status, before any JSON parsing",
		JSON.stringify(res));
	await page.unroute((u) => u.pathname === api);
}

try {
	const page = await browser.newPage();
	const errors = [], requests = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
	page.on("request", (r) => { if (!/^(file|data):/.test(r.url())) requests.push(r.url()); });
	const url = mode === "report" ? "file://" + path.resolve(target) : target;
	await page.goto(url);
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	const ready = await page.getAttribute("body", "data-ready");
	check(ready === "1", `${mode}: bench page renders`, await page.textContent("main"));
	const killed = Number((termRows[1].match(/\((\d+) oom-killed/) || [0, 0])[1]);
	await tableChecks(page, mode);
	await chartChecks(page, mode, killed);
	fs.mkdirSync(outDir, { recursive: true });
	await page.screenshot({ path: path.join(outDir, `bench-${mode}.png`), fullPage: true });
	await runLink(page, mode);
	if (mode === "report") check(requests.length === 0, "report: loads nothing from the network", requests.join(" "));
	else await staleCheck(page, url);
	check(errors.length === 0, `${mode}: no page errors`, errors.join(" | "));
	if (mode === "panel") await statusCheck(page, url); /* (the browser logs the 502 it answers) */
} finally {
	await close();
}
exitWithStatus();
