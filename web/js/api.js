/*
 * Data access: the server's API, or, in a `tidemark report --html` file,
 * the documents embedded in the page (a JSON block with id tm-data, keyed
 * by the API path that would have served each).
 */
const block = document.getElementById("tm-data");

/* The report's embedded data ({route, docs, run_query}), or null in the panel. */
export const reportData = block ? JSON.parse(block.textContent) : null;

/* Thrown when the server wants a read token; the router then asks for one. */
export class TokenNeeded extends Error {}

export function token() {
	return sessionStorage.getItem("tm-token") || "";
}

export function setToken(t) {
	sessionStorage.setItem("tm-token", t);
}

/* The document at PATH.  SIGNAL (an AbortSignal, optional) cancels the
 * request when the page that asked for it is gone.  The HTTP status is
 * checked before the body is read as JSON: an error page from a proxy is
 * reported as its status, not as a JSON syntax error. */
export async function api(path, signal) {
	if (reportData) {
		if (!(path in reportData.docs)) throw new Error("not in this report: " + path);
		return reportData.docs[path];
	}
	const headers = token() ? {Authorization: "Bearer " + token()} : {};
	const r = await fetch(path, {headers, cache: "no-store", signal});
	if (r.status === 401) throw new TokenNeeded("a read token is needed");
	const json = (r.headers.get("Content-Type") || "").startsWith("application/json");
	if (!r.ok) {
		let why = "";
		if (json) why = await r.json().then(b => b && b.error, () => "");
		throw new Error(path + ": HTTP " + r.status + (why ? ": " + why : ""));
	}
	if (!json) throw new Error(path + ": not JSON (" + (r.headers.get("Content-Type") || "no type") + ")");
	return r.json();
}
