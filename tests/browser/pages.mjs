// The panel's benches and sweeps, on a real `tidemark serve`.
//   node pages.mjs URL RECORD_RUN BENCH_ID SWEEP_TXT
// URL: the server (read access public); RECORD_RUN: the newest run that is
// no bench's; BENCH_ID: a bench made after it (its runs are the newest);
// SWEEP_TXT: what `bench --sweep` printed ("ARM: smallest ..." then each
// arm's rows; "the runs are in benches A-B").  Checks:
//   - the home page's charts show the recording, not the newer bench run:
//     the machine's "latest recording" is RECORD_RUN, and the overlay's
//     time axis lies within that run;
//   - the home page lists the bench and the sweep (not the sweep's probes)
//     and links to all of them;
//   - #/benches lists the bench and no probe; #/sweeps lists the sweep with
//     every arm the terminal printed;
//   - #/sweep/ID draws every arm on one survival curve and one peak curve,
//     and shows each arm's rows as the terminal printed them;
//   - a probe's bench page links to its sweep, another bench's to none.
// Prints TAP lines; exits 1 on failure.
import { check, exitWithStatus, launch } from "./tap.mjs";
import fs from "node:fs";

const [url, recordRun, benchId, sweepFile] = process.argv.slice(2);
const norm = (s) => s.replace(/\s+/g, " ").trim();

const want = {};
let arm = null, first = null, last = null;
for (const l of fs.readFileSync(sweepFile, "utf8").split("\n")) {
	const r = /^the runs are in benches (\d+)-(\d+)/.exec(l);
	if (r) [first, last] = [Number(r[1]), Number(r[2])];
	const m = /^(\S+): /.exec(l);
	if (m) { arm = m[1]; want[arm] = []; continue; }
	if (arm && /^  \d/.test(l)) want[arm].push(norm(l));
	if (!l.trim()) arm = null;
}
const arms = Object.keys(want);

const { browser, close } = await launch({ viewport: { width: 1300, height: 1000 } });
const open = async (page, hash) => {
	await page.goto(url + "/" + hash);
	await page.waitForSelector("body[data-ready]", { timeout: 20000 });
	await page.waitForTimeout(300);
	return page.evaluate(() => document.body.getAttribute("data-ready"));
};
const links = (page, sel) => page.evaluate((s) => [...document.querySelectorAll(s)].map((a) => a.getAttribute("href")), sel);
try {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));

	check(await open(page, "#/") === "1", "the home page is drawn", "");
	const home = await page.evaluate(() => ({
		latest: [...document.querySelectorAll("main table")][0].querySelector("td:nth-child(3)").textContent,
		overlay: (() => {
			const c = window.tmCharts.find((x) => x.key === "overlay");
			return c ? { min: c.u.data[0][0], max: c.u.data[0][c.u.data[0].length - 1], series: c.u.series.length - 1 } : null;
		})(),
	}));
	const run = await (await fetch(`${url}/api/v1/runs/${recordRun}`)).json();
	const bench = await (await fetch(`${url}/api/v1/bench/${benchId}`)).json();
	const newest = Math.max(...bench.runs.map((r) => r.id));
	const end = (run.ended_wall_usec + run.interval_usec) / 1e6;
	check(home.latest === "run " + recordRun && newest > Number(recordRun),
		`the machine's latest recording is run ${recordRun}, not bench run ${newest}`, JSON.stringify(home));
	check(home.overlay && home.overlay.series === 1 && home.overlay.min >= run.started_wall_usec / 1e6 - 1 && home.overlay.max <= end,
		"the overlay draws the recording's time span only", JSON.stringify({ overlay: home.overlay, run: [run.started_wall_usec / 1e6, end] }));
	const homeBenches = await links(page, "h2.benches + div table a");
	const homeSweeps = await links(page, "h2.sweeps + div table a");
	check(homeBenches.includes("#/bench/" + benchId) && !homeBenches.some((h) => { const n = Number(h.split("/").pop()); return n >= first && n <= last; }),
		`the home page lists bench ${benchId} and none of the sweep's probes ${first}-${last}`, JSON.stringify(homeBenches));
	check(homeSweeps.includes("#/sweep/" + first), `the home page lists sweep ${first}`, JSON.stringify(homeSweeps));
	const more = await links(page, "main a");
	check(more.includes("#/benches") && more.includes("#/sweeps"), "the home page links to all benches and all sweeps", JSON.stringify(more.filter((h) => !/run/.test(h))));

	check(await open(page, "#/benches") === "1", "#/benches is drawn", "");
	const benches = await links(page, "main table a");
	check(benches.includes("#/bench/" + benchId) && benches.length === 1, `#/benches lists bench ${benchId} and no probe`, JSON.stringify(benches));

	check(await open(page, "#/sweeps") === "1", "#/sweeps is drawn", "");
	const sweeps = await page.evaluate(() => [...document.querySelectorAll("main table tr")].slice(1).map((tr) => [...tr.children].map((c) => c.textContent)));
	check(sweeps.length === 1 && sweeps[0][0] === "sweep " + first && sweeps[0][5] === arms.join(", "),
		`#/sweeps lists one sweep with arms ${arms.join(", ")}`, JSON.stringify(sweeps));

	check(await open(page, "#/sweep/" + first) === "1", `#/sweep/${first} is drawn`, await page.evaluate(() => document.querySelector("main").textContent.slice(0, 200)));
	const sw = await page.evaluate(() => ({
		charts: window.tmCharts.map((c) => ({ key: c.key, series: c.u.series.slice(1).map((s) => s.label),
			points: c.u.series.slice(1).map((s, i) => c.u.data[i + 1].filter((v) => v !== null && v !== undefined).length) })),
		curves: Object.fromEntries([...document.querySelectorAll("table.curve")].map((t) => [t.dataset.arm,
			[...t.querySelectorAll("tr")].slice(1).map((tr) => [...tr.children].map((c) => c.textContent).join(" "))])),
		probes: [...document.querySelectorAll("h2.probes + div table a")].map((a) => a.getAttribute("href")),
	}));
	for (const key of ["sweep", "sweep_peak"]) {
		const c = sw.charts.find((x) => x.key === key);
		// a peak the runs did not measure is n/a in the terminal and no point
		// on the peak chart (never drawn as 0)
		const rows = (a) => (key === "sweep" ? want[a] : want[a].filter((l) => !/ \d+\/\d+ n\/a( |$)/.test(l)));
		check(c && JSON.stringify(c.series) === JSON.stringify(arms) && c.points.every((n, i) => n === rows(arms[i]).length),
			`${key}: every arm (${arms.join(", ")}) on one chart, a point per limit the terminal printed`,
			JSON.stringify({ chart: c, rows: arms.map((a) => rows(a).length), terminal: arms.map((a) => want[a]) }));
	}
	for (const a of arms) {
		const got = (sw.curves[a] || []).map(norm);
		check(got.length === want[a].length && got.every((r, i) => r === want[a][i]), `${a}: the sweep page has the terminal's ${want[a].length} rows`,
			want[a].map((t, i) => (t === got[i] ? "  " : "≠ ") + t + (t === got[i] ? "" : "\n  shown: " + got[i])).join("\n"));
	}
	check(sw.probes.length === last - first + 1, `the sweep page lists its ${last - first + 1} probes`, JSON.stringify(sw.probes));

	check(await open(page, "#/bench/" + last) === "1", `a probe's page (bench ${last}) is drawn`, "");
	const up = await links(page, "p.probe a");
	check(up.includes("#/sweep/" + first), `bench ${last}'s page links to its sweep ${first}`, JSON.stringify(up));
	check(await open(page, "#/bench/" + benchId) === "1" && !(await links(page, "p.probe a")).length,
		`bench ${benchId} (no sweep's) links to no sweep`, "");
	check(!errors.length, "no page errors", errors.join(" | "));
} finally {
	await close();
}
exitWithStatus();
