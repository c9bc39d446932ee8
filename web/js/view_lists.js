/*
 * Benches and sweeps: their lists (from /api/v1/benches and
 * /api/v1/sweeps) and a sweep's page, where every arm is on one curve as
 * the terminal's `bench --sweep` prints them all together
 * (/api/v1/sweeps/ID).  A sweep's probes (one bench per arm and limit) are
 * listed on its page, not among the benches.
 */
import {api} from "./api.js";
import {el, table} from "./dom.js";
import {dur, when} from "./fmt.js";
import {sweepCurve} from "./view_bench.js";

const span = x => x.ended_wall_usec ? dur(x.ended_wall_usec - x.started_wall_usec) : el("span", {class: "live"}, "running");

/* The benches table (those that are not a sweep's probes); at most MAX rows. */
export function benchesTable(benches, max) {
	const own = benches.filter(b => b.sweep_id === null);
	return el("div", {class: "wide"}, table(["bench", "name", "machine", "started", "duration", "arms", "runs"],
		own.slice(0, max || own.length).map(b => [el("a", {href: "#/bench/" + b.id}, "bench " + b.id), b.name || "",
			b.machine || "", when(b.started_wall_usec), span(b), b.arms.join(", "), b.runs])));
}

export function sweepsTable(sweeps, max) {
	return el("div", {class: "wide"}, table(["sweep", "limit", "machine", "started", "duration", "arms", "benches", "runs"],
		sweeps.slice(0, max || sweeps.length).map(s => [el("a", {href: "#/sweep/" + s.id}, "sweep " + s.id), s.limit,
			s.machine || "", when(s.started_wall_usec), span(s), s.arms.join(", "),
			s.benches.length ? s.benches[0] + "–" + s.benches[s.benches.length - 1] : "", s.runs])));
}

export async function showBenches(page) {
	const benches = await api("/api/v1/benches", page.signal);
	const root = el("div", {}, el("h1", {}, "benches"));
	const own = benches.filter(b => b.sweep_id === null);
	root.appendChild(own.length ? benchesTable(benches) : el("p", {class: "note"}, "no benches"));
	root.appendChild(el("p", {}, el("a", {href: "#/sweeps"}, "sweeps"), " (their probes are on each sweep's page)"));
	page.paint(root);
}

export async function showSweeps(page) {
	const sweeps = await api("/api/v1/sweeps", page.signal);
	const root = el("div", {}, el("h1", {}, "sweeps"));
	root.appendChild(sweeps.length ? sweepsTable(sweeps) : el("p", {class: "note"}, "no sweeps"));
	root.appendChild(el("p", {}, el("a", {href: "#/benches"}, "benches")));
	page.paint(root);
}

export async function showSweep(page, id) {
	const [sw, benches] = await Promise.all([api("/api/v1/sweeps/" + id, page.signal), api("/api/v1/benches", page.signal)]);
	const high = sw.limit === "MemoryHigh";
	const root = el("div");
	root.appendChild(el("h1", {}, "sweep " + sw.id + " — " + sw.limit + ", arms " + sw.arms.map(a => a.arm).join(", ")));
	root.appendChild(el("p", {class: "note"}, (sw.machine ? "on " + sw.machine + ", " : "") + "started " +
		when(sw.started_wall_usec) + " · ", el("a", {href: "#/sweeps"}, "all sweeps")));
	const sec = el("section", {class: "sweep", "data-limit": sw.limit});
	sec.appendChild(el("h2", {}, (high ? "throttle curve" : "survival curve") + ", every arm"));
	root.appendChild(sec);
	root.appendChild(el("h2", {class: "probes"}, "probes (one bench per arm and limit)"));
	root.appendChild(benchesTable(benches.filter(b => sw.benches.includes(b.id)).map(b => Object.assign({}, b, {sweep_id: null}))));
	if (!page.paint(root)) return;
	if (sw.arms.length) sweepCurve(page, sec, sw);
	else sec.appendChild(el("p", {class: "note"}, "no arm has two limits or more yet"));
}
