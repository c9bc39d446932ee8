// The panel's runs table in pages, and a run whose recorder died shown as
// stale (not live): in the table, and in the status line of its own page,
// also when it goes stale while the page follows it.  Needs a server
// holding more than one page of runs whose newest run is stale.
//
//   node runs.mjs URL
//
// URL is the panel address with #token=... when reads need a token.
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [url] = process.argv.slice(2);

const { browser, close } = await launch({ viewport: { width: 1400, height: 1800 } });
// The run ids listed in the runs table (the last table of the home page).
const ids = (page) => page.evaluate(() => {
	const t = [...document.querySelectorAll("main table")].pop();
	return [...t.querySelectorAll('a[href^="#/run/"]')].map((a) => Number(a.textContent));
});
try {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto(url);
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const first = await ids(page);
	first.length === 50 ? ok("the runs table shows a page of 50 runs") : notOk("the runs table shows a page of 50 runs", `${first.length} runs`);
	const stale = await page.evaluate(() => {
		const t = [...document.querySelectorAll("main table")].pop();
		const row = t.querySelectorAll("tr")[1];
		return row ? row.textContent : "";
	});
	/stale/.test(stale) && !/live/.test(stale) ? ok("the dead recorder's run shows as stale") : notOk("the dead recorder's run shows as stale", stale);
	const older = page.locator("text=older runs");
	(await older.count()) === 1 ? ok("an older-runs link") : notOk("an older-runs link", "none");
	await page.evaluate(() => document.body.removeAttribute("data-ready"));
	await older.click();
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const second = await ids(page);
	second.length > 0 && Math.max(...second) < Math.min(...first)
		? ok(`the next page holds older runs (${second.length}, ${Math.max(...second)} down)`) : notOk("the next page holds older runs", JSON.stringify(second));
	(await page.locator("text=newest runs").count()) === 1 ? ok("a link back to the newest runs") : notOk("a link back to the newest runs", "none");
	// the stale run's own page: its status line says so, not "live"
	const statusText = () => page.evaluate(() => document.getElementById("status").textContent);
	await page.evaluate((id) => { document.body.removeAttribute("data-ready"); location.hash = "#/run/" + id; }, first[0]);
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const st = await statusText();
	/^stale/.test(st) && !/live/.test(st) ? ok(`a stale run's page says so in its status line (${st})`)
		: notOk("a stale run's page says so in its status line", st);
	// a run that goes stale while its page follows it: the first answer
	// (before its recorder died, as far as the page knows) says live
	await page.evaluate(() => { document.body.removeAttribute("data-ready"); location.hash = "#/"; });
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const runDoc = new RegExp(`/api/v1/runs/${first[0]}$`);
	let first_answer = true;
	await page.route(runDoc, async (r) => {
		if (!first_answer) return r.continue();
		first_answer = false;
		const resp = await r.fetch();
		const doc = await resp.json();
		await r.fulfill({ response: resp, json: { ...doc, state: "live" } });
	});
	await page.evaluate((id) => { document.body.removeAttribute("data-ready"); location.hash = "#/run/" + id; }, first[0]);
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const before = await statusText();
	let after = before;
	for (let i = 0; i < 80 && !/^stale/.test(after); i++) {
		await page.waitForTimeout(250);
		after = await statusText();
	}
	/^live/.test(before) && /^stale/.test(after) ? ok(`a followed run that goes stale: the status line turns from live to stale (${after})`)
		: notOk("a followed run that goes stale: the status line turns from live to stale", `${before} -> ${after}`);
	await page.unroute(runDoc);
	errors.length === 0 ? ok("no page errors while paging") : notOk("no page errors while paging", errors.join(" | "));
} finally {
	await close();
}
exitWithStatus();
