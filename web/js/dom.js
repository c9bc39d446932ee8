/*
 * DOM helpers.  Everything that came from a collector (names, commands,
 * marks, event details) goes into the page as text nodes, never as HTML.
 */
export function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const k in attrs || {}) {
		if (k === "class") e.className = attrs[k];
		else e.setAttribute(k, attrs[k]);
	}
	for (const kid of kids) {
		if (kid === null || kid === undefined) continue;
		e.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
	}
	return e;
}

export function clear(node) {
	while (node.firstChild) node.removeChild(node.firstChild);
}

/* A table: HEADERS (strings) and ROWS of cells (text, numbers or nodes). */
export function table(headers, rows) {
	const t = el("table", {}, el("tr", {}, ...headers.map(h => el("th", {}, h))));
	for (const r of rows)
		t.appendChild(el("tr", {}, ...r.map(c => c instanceof Node ? el("td", {}, c) :
			el("td", {class: typeof c === "number" ? "num" : ""}, c))));
	return t;
}

export function status(text, cls) {
	const s = document.getElementById("status");
	if (!s) return;
	clear(s);
	s.appendChild(el("span", {class: cls || ""}, text));
}

/* A run that has not ended: "live", or "stale" (no sample for several
 * intervals: its recorder died or cannot reach the server), from the API's
 * state; ENDED is what to show for an ended run. */
export function runState(run, ended) {
	if (run.ended_wall_usec) return ended;
	if (run.state === "stale")
		return el("span", {class: "stale", title: "no sample for several intervals; last at " +
			(run.last_sample_wall_usec ? new Date(run.last_sample_wall_usec / 1000).toLocaleString() : "never")}, "stale");
	return el("span", {class: "live"}, "live");
}
