/*
 * Routing: one Page per visit of a route.  Each route change starts a new
 * render generation; a page whose generation is not the current one is
 * stale: it may not paint (its fetches are aborted, and paint() refuses),
 * its poll stops, and its charts are destroyed.
 */
import {reportData, setToken, TokenNeeded} from "./api.js";
import {el, status} from "./dom.js";
import {showBench} from "./view_bench.js";
import {showCompare, showHome, showMachine} from "./view_home.js";
import {showBenches, showSweep, showSweeps} from "./view_lists.js";
import {showRun} from "./view_run.js";

const main = document.getElementById("main");
let generation = 0;
let current = null;

class Page {
	constructor() {
		this.gen = ++generation;
		this.charts = [];
		this.timer = null;
		this.aborter = new AbortController();
		this.signal = this.aborter.signal;
	}

	get stale() {
		return this.gen !== generation;
	}

	/* Puts NODE in place of the previous page's content; false (and nothing
	 * painted) when this page is stale. */
	paint(node) {
		if (this.stale) return false;
		main.replaceChildren(node);
		return true;
	}

	track(chart) {
		if (this.stale) {
			chart.u.destroy();
			return;
		}
		this.charts.push(chart);
		window.tmCharts.push(chart.entry);
	}

	/* Calls FN every MS after the previous call has finished (calls never
	 * overlap), until the page is left or FN returns false. */
	poll(fn, ms) {
		const next = () => {
			if (!this.stale) this.timer = setTimeout(step, ms);
		};
		const step = async () => {
			this.timer = null;
			if (this.stale) return;
			let more = true;
			try {
				more = (await fn()) !== false;
			} finally {
				if (more) next();
			}
		};
		next();
	}

	close() {
		this.aborter.abort();
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		for (const c of this.charts) c.u.destroy();
		this.charts = [];
	}
}

function askToken() {
	const input = el("input", {type: "password", placeholder: "tm_…", autocomplete: "off"});
	const form = el("form", {class: "token"}, el("p", {}, "This server needs a read token (tidemark serve token add --read NAME)."),
		input, el("button", {type: "submit"}, "Use token"));
	form.addEventListener("submit", ev => {
		ev.preventDefault();
		setToken(input.value.trim());
		route();
	});
	main.replaceChildren(form);
}

/* The path to show: the address's #/..., or in a report its own page. */
function pathOf() {
	const h = location.hash.slice(1);
	if (reportData) return h.startsWith("/") && h !== "/" ? h : reportData.route;
	return h || "/";
}

export async function route() {
	if (current) current.close();
	const page = current = new Page();
	window.tmCharts = [];
	document.body.removeAttribute("data-ready");
	/* #token=TOKEN or #token=TOKEN&/run/12: kept for this tab, taken off the address */
	const tok = /^#token=([A-Za-z0-9_]+)(?:&(\/.*))?$/.exec(location.hash);
	if (tok) {
		setToken(tok[1]);
		history.replaceState(null, "", location.pathname + "#" + (tok[2] || "/"));
	}
	const path = pathOf();
	let m;
	status("");
	try {
		if ((m = /^\/run\/(\d+)$/.exec(path))) await showRun(page, m[1]);
		else if ((m = /^\/machine\/(.+)$/.exec(path))) await showMachine(page, decodeURIComponent(m[1]));
		else if ((m = /^\/compare\/([\d,]+)$/.exec(path))) await showCompare(page, m[1]);
		else if ((m = /^\/bench\/(\d+)$/.exec(path))) await showBench(page, m[1]);
		else if (path === "/benches") await showBenches(page);
		else if (path === "/sweeps") await showSweeps(page);
		else if ((m = /^\/sweep\/(\d+)$/.exec(path))) await showSweep(page, m[1]);
		else if ((m = /^\/(?:\?(.*))?$/.exec(path))) {
			const q = new URLSearchParams(m[1] || "");
			await showHome(page, q.get("range"), q.get("before"));
		}
		else throw new Error("no such page: " + path);
		if (!page.stale) document.body.setAttribute("data-ready", "1");
	} catch (e) {
		if (page.stale) return; /* an aborted fetch of a page that was left */
		if (e instanceof TokenNeeded) askToken();
		else page.paint(el("p", {class: "err"}, e.message));
		document.body.setAttribute("data-ready", "error");
	}
}

export function start() {
	window.tmCharts = [];
	window.addEventListener("hashchange", route);
	route();
}
