// A live run's page gets new samples without a reload.
//   node live.mjs URL   (URL: the panel with #token=...&/machine/NAME)
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const url = process.argv[2];
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "tm-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
	executablePath: "/usr/bin/chromium", headless: true, viewport: { width: 1300, height: 1200 },
	args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let failed = 0;
try {
	const page = await browser.newPage();
	let loads = 0;
	page.on("load", () => loads++);
	await page.goto(url);
	await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
	const points = async () => (await page.evaluate(() => window.tmCharts)).find((c) => c.key === "memory")?.points ?? 0;
	const before = await points();
	await page.waitForTimeout(3500);
	const after = await points();
	if (after > before && loads === 1) console.log(`ok - live run page grows without reload (${before} -> ${after} points)`);
	else { failed++; console.log(`not ok - live run page grows without reload\n# ${before} -> ${after} points, ${loads} loads`); }
} finally {
	await browser.close();
	fs.rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
