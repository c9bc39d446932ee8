// Times opening a panel page in headless chromium until its charts are drawn.
//   node open.mjs URL   -> prints seconds (median of 3 fresh loads)
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
const require = createRequire(new URL("../../tests/browser/package.json", import.meta.url));
const { chromium } = require("playwright-core");
const url = process.argv[2];
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "tm-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
	executablePath: "/usr/bin/chromium", headless: true, viewport: { width: 1400, height: 1200 },
	args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const times = [];
for (let i = 0; i < 3; i++) {
	const page = await browser.newPage();
	const t0 = Date.now();
	await page.goto(url);
	await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
	times.push((Date.now() - t0) / 1000);
	/* let the page finish its slower requests (a run's summary) before the
	 * next load, so loads do not queue behind each other on the server */
	await page.waitForLoadState("networkidle", { timeout: 60000 });
	await page.close();
}
await browser.close();
fs.rmSync(profile, { recursive: true, force: true });
times.sort((a, b) => a - b);
console.log(times[1].toFixed(3));
