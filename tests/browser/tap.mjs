// What every browser test here shares: its TAP lines and its browser.
//   import { ok, notOk, check, launch, exitWithStatus } from "./tap.mjs";
// A reason (WHY) is printed with every one of its lines behind "# ", so no
// line of it can read as a result to tests/run.sh.  launch() starts Debian's
// chromium headless with a profile of its own (OPTS: offline, viewport, ...
// for launchPersistentContext); close() ends it and removes the profile.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let failed = 0;
export const ok = (n) => console.log(`ok - ${n}`);
export const notOk = (n, why) => {
	failed++;
	console.log(`not ok - ${n}\n# ${String(why).replace(/\n/g, "\n# ")}`);
};
export const check = (cond, n, why) => (cond ? ok(n) : notOk(n, why));

export async function launch(opts = {}) {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "tm-chromium-"));
	const browser = await chromium.launchPersistentContext(profile, {
		executablePath: "/usr/bin/chromium", headless: true, ...opts,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	const close = async () => {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	};
	return { browser, close };
}

// Exits 1 when a check failed, 0 otherwise.
export function exitWithStatus() {
	process.exit(failed ? 1 : 0);
}
