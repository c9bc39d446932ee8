// A live run's page follows the run, and stops when it is left.
//   node live.mjs URL   (URL: the panel with #token=...&/machine/NAME of a
//                        machine whose latest run is still recording)
// Checks: new samples arrive without a reload, through setData on the same
// chart objects (nothing rebuilt per tick); live polls never overlap, even
// when the server is slower than the tick; leaving the page stops its poll
// and destroys its charts; a live page left before its data arrived never
// paints and never starts polling.  Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch, notOk, ok } from "./tap.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const url = process.argv[2];
const { browser, close } = await launch({ viewport: { width: 1300, height: 1200 } });
const isPoll = (u) => /\/series\?.*from_seq=/.test(u);

// (not page.waitForFunction: it evaluates a string, which the server's CSP forbids)
async function until(page, fn, arg) {
	for (let i = 0; i < 200; i++) {
		if (await page.evaluate(fn, arg)) return;
		await page.waitForTimeout(100);
	}
	throw new Error("timed out waiting for " + fn);
}

try {
	const page = await browser.newPage();
	let loads = 0, inFlight = 0, maxInFlight = 0, polls = 0;
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	page.on("load", () => loads++);
	page.on("request", (r) => { if (isPoll(r.url())) { polls++; inFlight++; maxInFlight = Math.max(maxInFlight, inFlight); } });
	const done = (r) => { if (isPoll(r.url())) inFlight--; };
	page.on("requestfinished", done);
	page.on("requestfailed", done);

	await page.goto(url);
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const runHash = await page.evaluate(() => "#/run/" + /run (\d+)/.exec(document.querySelector("main h1").textContent)[1]);
	const charts = () => page.evaluate(() => {
		const m = window.tmCharts.find((c) => c.key === "memory");
		return { points: m ? m.points : 0, n: window.tmCharts.length, canvases: document.querySelectorAll("main canvas").length };
	});
	await page.evaluate(() => { window.__first = window.tmCharts.map((c) => c.u); });
	const before = await charts();
	await page.waitForTimeout(4500);
	const after = await charts();
	check(after.points > before.points && loads === 1, `live run page grows without reload (${before.points} -> ${after.points} points)`,
		`${loads} loads`);
	const same = await page.evaluate(() => window.tmCharts.length === window.__first.length &&
		window.tmCharts.every((c, i) => c.u === window.__first[i]));
	check(same && after.canvases === before.canvases, "live ticks update the same chart objects (setData, nothing rebuilt)",
		JSON.stringify({ same, before, after }));

	// a server slower than the tick: still one poll at a time
	await page.route((u) => isPoll(u.href), async (r) => {
		await new Promise((res) => setTimeout(res, 3000));
		await r.continue().catch(() => {});
	});
	maxInFlight = inFlight;
	const p0 = polls;
	await page.waitForTimeout(7000);
	check(polls > p0 && maxInFlight <= 1, `live polls never overlap (${polls - p0} polls, at most ${maxInFlight} at a time)`,
		`${polls - p0} polls, ${maxInFlight} at once`);
	await page.unroute((u) => isPoll(u.href));

	// leaving the page: its poll stops, its charts are destroyed
	await page.evaluate(() => { location.hash = "#/"; });
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const p1 = polls;
	await page.waitForTimeout(5000);
	check(polls === p1, "leaving a live page stops its poll", `${polls - p1} polls after leaving`);
	const destroyed = await page.evaluate(() => window.__first.every((u) => !u.root.isConnected && u.root.parentNode === null));
	check(destroyed, "leaving a page destroys its charts", "a chart of the old page is still attached");

	// a live page left before its data arrived: never painted, never polling
	await page.route(/\/api\/v1\/runs\/\d+$/, async (r) => {
		await new Promise((res) => setTimeout(res, 1500));
		await r.continue().catch(() => {});
	});
	await page.evaluate((h) => {
		window.__runPainted = false;
		new MutationObserver(() => {
			const h1 = document.querySelector("main h1");
			if (h1 && h1.textContent.startsWith("run ")) window.__runPainted = true;
		}).observe(document.getElementById("main"), { childList: true, subtree: true });
		location.hash = h;
	}, runHash);
	await page.waitForTimeout(200);
	await page.evaluate(() => { location.hash = "#/?range=all"; });
	await until(page, () => document.body.getAttribute("data-ready") === "1" && location.hash === "#/?range=all");
	const p2 = polls;
	await page.waitForTimeout(5000);
	const painted = await page.evaluate(() => window.__runPainted);
	check(!painted && polls === p2, "a live page left while loading never paints and never polls",
		JSON.stringify({ painted, polls: polls - p2 }));
	check(errors.length === 0, "live page: no page errors", errors.join(" | "));
} finally {
	await close();
}
exitWithStatus();
