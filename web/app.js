/*
 * tidemark panel: machines and runs, a run's live charts, machines side by
 * side and overlaid, benches.  Plain JS + uPlot, no build step.
 *
 * Everything that came from a collector (names, commands, marks, event
 * details) is put into the page with textContent or drawn on a canvas,
 * never parsed as HTML.  The same file renders `tidemark report --html`
 * files: then the data comes from a JSON block in the page, not the API.
 */
(function () {
	"use strict";

	const MiB = 1024 * 1024;
	const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
		"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];
	const LIVE_MS = 2000;
	const report = document.getElementById("tm-data");
	const reportData = report ? JSON.parse(report.textContent) : null;
	const main = document.getElementById("main");
	let timers = [];
	window.tmCharts = []; /* for tests: {key, machine, points} per chart */

	/* ---- small DOM helpers (text only) ---- */
	function el(tag, attrs, ...kids) {
		const e = document.createElement(tag);
		for (const k in attrs || {}) {
			if (k === "class") e.className = attrs[k];
			else if (k === "href") e.setAttribute("href", attrs[k]);
			else e.setAttribute(k, attrs[k]);
		}
		for (const kid of kids) {
			if (kid === null || kid === undefined) continue;
			e.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
		}
		return e;
	}
	function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
	function mib(b) { return b === null || b === undefined ? "—" : (b / MiB).toFixed(1) + " MiB"; }
	function when(usec) { return usec ? new Date(usec / 1000).toLocaleString() : "—"; }
	function dur(usec) {
		if (usec === null || usec === undefined) return "—";
		const s = usec / 1e6;
		return s < 120 ? s.toFixed(1) + " s" : s < 7200 ? (s / 60).toFixed(1) + " min" : (s / 3600).toFixed(1) + " h";
	}
	function status(text, cls) {
		const s = document.getElementById("status");
		if (!s) return;
		clear(s);
		s.appendChild(el("span", {class: cls || ""}, text));
	}
	function table(headers, rows) {
		const t = el("table", {}, el("tr", {}, ...headers.map(h => el("th", {}, h))));
		for (const r of rows)
			t.appendChild(el("tr", {}, ...r.map(c => c instanceof Node ? el("td", {}, c) :
				el("td", {class: typeof c === "number" ? "num" : ""}, c))));
		return t;
	}

	/* ---- data access: the API, or the report's embedded data ---- */
	function token() { return sessionStorage.getItem("tm-token") || ""; }
	async function api(path) {
		if (reportData) {
			if (!(path in reportData.docs)) throw new Error("not in this report: " + path);
			return reportData.docs[path];
		}
		const h = token() ? {Authorization: "Bearer " + token()} : {};
		const r = await fetch(path, {headers: h, cache: "no-store"});
		if (r.status === 401) { askToken(); throw new Error("a read token is needed"); }
		const body = await r.json();
		if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
		return body;
	}
	function askToken() {
		clear(main);
		const input = el("input", {type: "password", placeholder: "tm_…", autocomplete: "off"});
		const form = el("form", {class: "token"}, el("p", {}, "This server needs a read token (tidemark serve token add --read NAME)."), input, el("button", {type: "submit"}, "Use token"));
		form.addEventListener("submit", ev => {
			ev.preventDefault();
			sessionStorage.setItem("tm-token", input.value.trim());
			route();
		});
		main.appendChild(form);
	}

	/* ---- series helpers ---- */
	function col(doc, name, which) {
		const s = doc.series[name];
		return s ? s[which || "max"] : null;
	}
	/* Per-second rate of a counter from per-bucket maxima (the last value in each bucket). */
	function rate(doc, name, scale) {
		const v = col(doc, name);
		if (!v) return null;
		const out = new Array(v.length).fill(null);
		for (let i = 1; i < v.length; i++)
			if (v[i] !== null && v[i - 1] !== null && doc.t[i] > doc.t[i - 1])
				out[i] = Math.max(0, (v[i] - v[i - 1]) / (doc.t[i] - doc.t[i - 1])) * (scale || 1);
		return out;
	}
	function sum(a, b) {
		if (!a) return b;
		if (!b) return a;
		return a.map((x, i) => x === null || b[i] === null ? null : x + b[i]);
	}
	function usable(limit) {
		/* no limit is stored as -1 (or, from some kernels, a huge number): no line */
		if (!limit) return null;
		const v = limit.map(x => x !== null && x >= 0 && x < 2 ** 52 ? x : null);
		return v.some(x => x !== null) ? v : null;
	}
	function progressAt(doc) {
		if (!doc.progress || !doc.progress.length) return null;
		const out = new Array(doc.t.length).fill(null);
		let j = 0, last = null;
		for (let i = 0; i < doc.t.length; i++) {
			while (j < doc.progress.length && doc.progress[j][0] <= doc.t[i] + doc.bucket_usec / 1e6) last = doc.progress[j++][1];
			out[i] = last;
		}
		return out;
	}

	/* ---- uPlot plugins: events as markers, marks as labelled bands ---- */
	function overlays(run) {
		const events = (run && run.events) || [], marks = (run && run.marks) || [];
		return {
			hooks: {
				drawClear: [u => {
					const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
					ctx.save();
					ctx.font = Math.round(10 * devicePixelRatio) + "px sans-serif";
					for (let i = 0; i < marks.length; i++) {
						const a = u.valToPos(marks[i].t_wall_usec / 1e6, "x", true);
						const bEnd = i + 1 < marks.length ? marks[i + 1].t_wall_usec / 1e6 : u.scales.x.max;
						const b = u.valToPos(bEnd, "x", true);
						ctx.fillStyle = i % 2 ? "rgba(120,140,200,0.08)" : "rgba(120,140,200,0.16)";
						ctx.fillRect(a, top, Math.max(1, b - a), h);
						ctx.fillStyle = "#334";
						ctx.fillText(marks[i].text, a + 3, top + 12 * devicePixelRatio);
					}
					ctx.restore();
				}],
				draw: [u => {
					const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
					ctx.save();
					ctx.font = Math.round(10 * devicePixelRatio) + "px sans-serif";
					for (const ev of events) {
						const x = u.valToPos(ev.t_wall_usec / 1e6, "x", true);
						if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
						const bad = /oom|kill|max|throttle|signal/.test(ev.kind);
						ctx.strokeStyle = bad ? "#c00" : "#777";
						ctx.fillStyle = ctx.strokeStyle;
						ctx.beginPath();
						ctx.moveTo(x, top);
						ctx.lineTo(x, top + h);
						ctx.stroke();
						ctx.beginPath();
						ctx.arc(x, top + 4 * devicePixelRatio, 3 * devicePixelRatio, 0, 2 * Math.PI);
						ctx.fill();
						ctx.fillText(ev.kind, x + 3, top + h - 4);
					}
					ctx.restore();
				}],
			},
		};
	}

	function chartWidth() { return Math.max(480, Math.min(1200, main.clientWidth - 40)); }

	function makeChart(parent, title, series, data, opts) {
		const box = el("div", {class: "chart"});
		parent.appendChild(box);
		const o = Object.assign({
			title: title,
			width: opts.width || chartWidth(),
			height: opts.height || 220,
			series: [{}].concat(series),
			axes: opts.axes || [{}, {size: 70, values: opts.fmt ? (u, v) => v.map(opts.fmt) : undefined}],
			scales: opts.scales || {x: {time: true}},
			bands: opts.bands || [],
			plugins: opts.plugins || [],
		}, {});
		const u = new uPlot(o, data, box);
		window.tmCharts.push({key: opts.key || title, machine: opts.machine || null, points: data[0].length});
		return u;
	}

	/* ---- a run's charts ---- */
	/* Stacked from the bottom: heap live (when the shim ran), the rest of anon
	 * (retained by the allocator), page cache; limits as lines; progress on
	 * its own axis. */
	function memoryData(doc) {
		const anon = col(doc, "cg_anon_bytes") || col(doc, "proc_rss_anon_bytes");
		const file = col(doc, "cg_file_bytes") || col(doc, "proc_rss_file_bytes");
		const heap = col(doc, "heap_live_bytes");
		return [doc.t, heap, anon, sum(anon, file), usable(col(doc, "cg_high_bytes")),
			usable(col(doc, "cg_max_bytes")), progressAt(doc)];
	}
	function memoryChart(parent, doc, run, machine) {
		const d = memoryData(doc);
		const heap = !!d[1];
		const series = [
			{label: "heap live", stroke: "#9467bd", fill: "rgba(148,103,189,0.35)", value: (u, v) => mib(v), show: heap},
			{label: heap ? "anon (heap + retained)" : "anon", stroke: "#1f77b4", fill: heap ? undefined : "rgba(31,119,180,0.35)", value: (u, v) => mib(v)},
			{label: "anon + file", stroke: "#2ca02c", value: (u, v) => mib(v)},
			{label: "memory.high", stroke: "#ff7f0e", dash: [8, 4], value: (u, v) => mib(v), show: !!d[4]},
			{label: "memory.max", stroke: "#d62728", dash: [8, 4], value: (u, v) => mib(v), show: !!d[5]},
			{label: "progress", stroke: "#444", scale: "progress", show: !!d[6]},
		];
		const bands = [{series: [3, 2], fill: "rgba(44,160,44,0.25)"}];
		if (heap) bands.push({series: [2, 1], fill: "rgba(31,119,180,0.35)"});
		const data = d.map(a => a || new Array(doc.t.length).fill(null));
		return makeChart(parent, "memory — " + (machine || ""), series, data, {
			key: "memory", machine: machine,
			fmt: v => (v / MiB).toFixed(0) + " MiB",
			bands: bands,
			scales: {x: {time: true}, progress: {auto: true}},
			axes: [{}, {size: 80, values: (u, v) => v.map(x => (x / MiB).toFixed(0) + " MiB")},
				{scale: "progress", side: 1, grid: {show: false}, size: 60}],
			plugins: [overlays(run)],
		});
	}
	function rateCharts(parent, doc, run, machine) {
		const cpu = rate(doc, "cg_cpu_usage_usec", 1e-6) || rate(doc, "proc_utime_usec", 1e-6);
		const thr = rate(doc, "cg_cpu_throttled_usec", 1e-6);
		const charts = [];
		const nul = () => new Array(doc.t.length).fill(null);
		if (cpu)
			charts.push(makeChart(parent, "CPU (cores)", [{label: "used", stroke: "#1f77b4"}, {label: "throttled", stroke: "#d62728", show: !!thr}],
				[doc.t, cpu, thr || nul()], {key: "cpu", machine, height: 160, plugins: [overlays(run)]}));
		const psi = [["cg_psi_mem_some_usec", "mem some"], ["cg_psi_mem_full_usec", "mem full"],
			["cg_psi_io_some_usec", "io some"], ["cg_psi_io_full_usec", "io full"],
			["host_psi_mem_some_usec", "host mem some"]].filter(p => doc.series[p[0]]);
		if (psi.length)
			charts.push(makeChart(parent, "pressure (% of time stalled)", psi.map((p, i) => ({label: p[1], stroke: COLORS[i]})),
				[doc.t].concat(psi.map(p => rate(doc, p[0], 1e-4))), {key: "psi", machine, height: 160, plugins: [overlays(run)]}));
		const rd = rate(doc, "cg_io_read_bytes") || rate(doc, "proc_read_bytes");
		const wr = rate(doc, "cg_io_write_bytes") || rate(doc, "proc_write_bytes");
		/* the heap shim's allocation rate (a process that exits takes its share
		 * out of the sum: that is not a negative rate, hence max(0, ...)) */
		const alloc = rate(doc, "heap_alloc_bytes");
		if (alloc)
			charts.push(makeChart(parent, "heap allocation (MiB/s)", [{label: "allocated", stroke: "#9467bd"}],
				[doc.t, alloc], {key: "heap_alloc", machine, height: 160,
					fmt: v => (v / MiB).toFixed(1), plugins: [overlays(run)]}));
		if (rd || wr)
			charts.push(makeChart(parent, "I/O (MiB/s)", [{label: "read", stroke: "#2ca02c"}, {label: "write", stroke: "#d62728"}],
				[doc.t, rd || nul(), wr || nul()], {key: "io", machine, height: 160,
					fmt: v => (v / MiB).toFixed(1), plugins: [overlays(run)]}));
		return charts;
	}

	function runInfo(run) {
		const cmd = Array.isArray(run.command) ? run.command.join(" ") : "";
		return table(["machine", "run", "started", "ended", "outcome", "samples", "cgroup", "command"],
			[[run.machine || "", String(run.id), when(run.started_wall_usec),
				run.ended_wall_usec ? when(run.ended_wall_usec) : el("span", {class: "live"}, "live"),
				run.outcome || "", run.sample_count, run.cgroup_path || "", cmd]]);
	}
	function summaryTable(s) {
		if (!s) return el("p", {class: "note"}, "no summary");
		const rows = [["peak anon", mib(s.peak_anon_bytes)], ["held anon at end", mib(s.held_anon_bytes)],
			["median file", mib(s.median_file_bytes)], ["peak memory.current", mib(s.peak_current_bytes)],
			["peak heap live", mib(s.heap_peak_bytes ?? s.heap_live_peak_bytes)],
			["heap allocated", s.heap_alloc_bytes == null ? "—" : mib(s.heap_alloc_bytes) + " in " + s.heap_allocs + " allocations"],
			["retention at end", mib(s.retention_end_bytes)], ["memory.max", s.limit_max_bytes > 0 ? mib(s.limit_max_bytes) : "none"],
			["memory.high events", s.high_events ?? "—"], ["OOM kills", s.oom_kills ?? "—"],
			["CPU", dur(s.cpu_usec)], ["PSI memory some", dur(s.psi_mem_some_usec)],
			["duration", dur(s.duration_usec)], ["samples (late)", s.samples + " (" + s.late_samples + ")"]];
		return table(["figure", "value"], rows);
	}
	function eventsTable(run) {
		if (!run.events.length) return el("p", {class: "note"}, "no events");
		return table(["time", "event", "pid", "value", "detail"],
			run.events.slice(0, 200).map(e => [when(e.t_wall_usec), e.kind, e.pid, e.value, e.detail || ""]));
	}

	/* Appends new buckets from a live update: the last old bucket may grow. */
	function merge(doc, upd) {
		if (!upd.t.length) return false;
		let keep = doc.t.length;
		while (keep > 0 && doc.t[keep - 1] >= upd.t[0] - 1e-6) keep--;
		doc.t = doc.t.slice(0, keep).concat(upd.t);
		for (const name in upd.series) {
			const s = doc.series[name] || {min: new Array(keep).fill(null), max: new Array(keep).fill(null)};
			s.min = s.min.slice(0, keep).concat(upd.series[name].min);
			s.max = s.max.slice(0, keep).concat(upd.series[name].max);
			doc.series[name] = s;
		}
		for (const name in doc.series)
			if (!(name in upd.series)) {
				doc.series[name].min = doc.series[name].min.slice(0, keep).concat(new Array(upd.t.length).fill(null));
				doc.series[name].max = doc.series[name].max.slice(0, keep).concat(new Array(upd.t.length).fill(null));
			}
		doc.progress = (doc.progress || []).concat(upd.progress || []);
		doc.last_seq = upd.last_seq;
		return true;
	}

	async function showRun(id) {
		const run = await api("/api/v1/runs/" + id);
		let doc = await api("/api/v1/runs/" + id + "/series?points=1500");
		clear(main);
		main.appendChild(el("h1", {}, "run " + run.id + " on " + (run.machine || "?")));
		main.appendChild(runInfo(run));
		const charts = el("div");
		main.appendChild(charts);
		let built = [];
		function draw() {
			clear(charts);
			window.tmCharts = [];
			built = [memoryChart(charts, doc, run, run.machine)].concat(rateCharts(charts, doc, run, run.machine));
		}
		draw();
		main.appendChild(el("h2", {}, "summary"));
		const sumBox = el("div", {}, el("p", {class: "note"}, "computing…"));
		main.appendChild(sumBox);
		main.appendChild(el("h2", {}, "events"));
		main.appendChild(eventsTable(run));
		/* the summary reads every sample: fetched after the charts are up */
		api("/api/v1/runs/" + id + "/summary").then(s => { clear(sumBox); sumBox.appendChild(summaryTable(s.summary)); },
			e => { clear(sumBox); sumBox.appendChild(el("p", {class: "err"}, e.message)); });
		if (!run.ended_wall_usec && !reportData) {
			status("live", "live");
			const tick = async () => {
				const lastT = doc.t.length ? Math.round(doc.t[doc.t.length - 1] * 1e6) : doc.t0_usec;
				const from = doc.t0_usec + Math.floor((lastT - doc.t0_usec) / doc.bucket_usec) * doc.bucket_usec;
				try {
					const upd = await api("/api/v1/runs/" + id + "/series?points=5000&from=" + from +
						"&bucket_usec=" + doc.bucket_usec + "&from_seq=" + Math.max(0, doc.last_seq + 1));
					if (merge(doc, upd)) draw();
					status("live · " + doc.t.length + " points", "live");
				} catch (e) { status("live update failed: " + e.message, "err"); }
			};
			timers.push(setInterval(tick, LIVE_MS));
		}
		return built;
	}

	/* ---- machines: side by side and overlaid on one time axis ---- */
	const RANGES = {"1h": 3600e6, "24h": 86400e6, "all": 0};

	async function showHome(range) {
		range = range in RANGES ? range : "24h";
		const machines = await api("/api/v1/machines");
		const runs = await api("/api/v1/runs");
		clear(main);
		main.appendChild(el("h1", {}, "machines"));
		main.appendChild(table(["machine", "runs", "latest run", "last push", ""],
			machines.map(m => [m.name, m.runs, el("a", {href: "#/run/" + m.latest_run_id}, "run " + m.latest_run_id),
				when(m.last_push_wall_usec), el("a", {href: "#/machine/" + encodeURIComponent(m.name)}, "live view")])));
		if (machines.length) {
			const pick = el("p", {class: "note"}, "range: ");
			for (const r of Object.keys(RANGES))
				pick.appendChild(r === range ? el("b", {}, r + " ") : el("a", {href: "#/?range=" + r}, r + " "));
			main.appendChild(el("h2", {}, "latest run of each machine, one time axis"));
			main.appendChild(pick);
			await machinesCharts(main, machines.map(m => m.latest_run_id), machines.map(m => m.name), RANGES[range]);
		}
		main.appendChild(el("h1", {}, "runs"));
		const boxes = [];
		const go = el("button", {type: "button"}, "compare selected runs on one time axis");
		go.addEventListener("click", () => {
			const ids = boxes.filter(b => b.checked).map(b => b.value);
			if (ids.length) location.hash = "#/compare/" + ids.join(",");
		});
		main.appendChild(go);
		main.appendChild(table(["", "run", "machine", "started", "duration", "outcome", "samples", "bench/arm"],
			runs.slice(0, 500).map(r => {
				const box = el("input", {type: "checkbox", value: String(r.id)});
				boxes.push(box);
				return [box, el("a", {href: "#/run/" + r.id}, String(r.id)), r.machine || "", when(r.started_wall_usec),
					r.ended_wall_usec ? dur(r.ended_wall_usec - r.started_wall_usec) : el("span", {class: "live"}, "live"),
					r.outcome || "", r.sample_count,
					r.bench_id ? el("a", {href: "#/bench/" + r.bench_id}, r.bench_id + "/" + (r.arm || "")) : ""];
			})));
	}

	/* Each run's last RANGE usec (0: all of it), overlaid and side by side. */
	async function machinesCharts(parent, ids, names, range) {
		const runs = await Promise.all(ids.map(id => api("/api/v1/runs/" + id)));
		const docs = await Promise.all(runs.map(r => {
			const end = r.ended_wall_usec || Date.now() * 1000;
			const from = range && end - range > r.started_wall_usec ? "&from=" + Math.round(end - range) : "";
			return api("/api/v1/runs/" + r.id + "/series?points=800" + from);
		}));
		/* overlaid: anon of every machine on one wall-time axis */
		const tables = docs.map(d => [d.t, col(d, "cg_anon_bytes") || col(d, "proc_rss_anon_bytes") || new Array(d.t.length).fill(null)]);
		const joined = tables.length > 1 ? uPlot.join(tables) : tables[0];
		makeChart(parent, "anon memory, all machines", names.map((n, i) => ({label: n, stroke: COLORS[i % COLORS.length], value: (u, v) => mib(v)})),
			joined, {key: "overlay", fmt: v => (v / MiB).toFixed(0) + " MiB", height: 240});
		/* side by side: each machine's memory chart, same x range */
		const lo = Math.min(...docs.map(d => d.t.length ? d.t[0] : Infinity));
		const hi = Math.max(...docs.map(d => d.t.length ? d.t[d.t.length - 1] : -Infinity));
		const grid = el("div", {class: "grid"});
		parent.appendChild(grid);
		docs.forEach((d, i) => {
			const u = memoryChart(grid, d, runs[i], names[i]);
			u.setSize({width: Math.max(420, chartWidth() / Math.min(2, docs.length) - 20), height: 200});
			if (isFinite(lo) && isFinite(hi) && hi > lo) u.setScale("x", {min: lo, max: hi});
		});
	}

	async function showMachine(name) {
		const machines = await api("/api/v1/machines");
		const m = machines.find(x => x.name === name);
		if (!m) throw new Error("no machine " + name);
		return showRun(m.latest_run_id);
	}

	async function showCompare(list) {
		const ids = list.split(",").map(Number).filter(n => n > 0).slice(0, 10);
		const runs = await Promise.all(ids.map(id => api("/api/v1/runs/" + id)));
		clear(main);
		main.appendChild(el("h1", {}, "runs " + ids.join(", ") + " on one time axis"));
		await machinesCharts(main, ids, runs.map(r => (r.machine || "?") + " #" + r.id), 0);
	}

	/* ---- bench: the comparison table and per-arm overlays ---- */
	function fmtFig(key, v) {
		if (v === null || v === undefined) return "—";
		if (/_bytes$/.test(key)) return (v / MiB).toFixed(1);
		if (/_usec$/.test(key)) return (v / 1e6).toFixed(2) + " s";
		return +v.toPrecision(4);
	}
	/* docs/bench.md: {arms:[{name, runs, survived, figures:{key:{median,min,max,ratio}}}]} */
	function benchTable(t) {
		if (!t || !Array.isArray(t.arms) || !t.arms.length || !t.arms[0].figures) return genericTable(t);
		const keys = Object.keys(t.arms[0].figures);
		const rows = [["runs survived"].concat(t.arms.map(a => a.survived + "/" + a.runs))];
		for (const k of keys)
			rows.push([k.replace(/_bytes$/, " (MiB)")].concat(t.arms.map(a => {
				const f = a.figures[k] || {};
				if (!f.n) return "—";
				const r = f.ratio !== null && f.ratio !== undefined && !a.control ? " ×" + f.ratio.toFixed(2) : "";
				return fmtFig(k, f.median) + " [" + fmtFig(k, f.min) + "–" + fmtFig(k, f.max) + "]" + r;
			})));
		return table(["figure"].concat(t.arms.map(a => a.name + (a.control ? " (control)" : ""))), rows);
	}
	function genericTable(t) {
		if (!t) return el("p", {class: "note"}, "no comparison table for this bench");
		const rows = Array.isArray(t) ? t : (t.rows || t.arms || []);
		if (!rows.length || typeof rows[0] !== "object") return el("pre", {}, JSON.stringify(t, null, 1));
		const keys = Object.keys(rows[0]);
		return table(keys, rows.map(r => keys.map(k => {
			const v = r[k];
			return v === null || v === undefined ? "—" : typeof v === "object" ? JSON.stringify(v) : typeof v === "number" ? +v.toPrecision(6) : String(v);
		})));
	}
	async function showBench(id) {
		const b = await api("/api/v1/bench/" + id);
		clear(main);
		main.appendChild(el("h1", {}, "bench " + id));
		main.appendChild(benchTable(b.table));
		const arms = [...new Set(b.runs.map(r => r.arm || "?"))];
		const docs = await Promise.all(b.runs.map(r => api("/api/v1/runs/" + r.id + "/series?points=600&metrics=cg_anon_bytes,proc_rss_anon_bytes,cg_file_bytes")));
		/* time since each run's start, so arms run one after another overlay */
		const tables = docs.map((d, i) => [d.t.map(t => t - b.runs[i].started_wall_usec / 1e6),
			col(d, "cg_anon_bytes") || col(d, "proc_rss_anon_bytes") || new Array(d.t.length).fill(null)]);
		if (!tables.length) return;
		const joined = tables.length > 1 ? uPlot.join(tables) : tables[0];
		makeChart(main, "anon by arm (time since run start)", b.runs.map(r => ({
			label: (r.arm || "?") + " #" + r.id, stroke: COLORS[arms.indexOf(r.arm || "?") % COLORS.length], value: (u, v) => mib(v),
		})), joined, {key: "bench", scales: {x: {time: false}}, fmt: v => (v / MiB).toFixed(0) + " MiB", height: 300});
		main.appendChild(table(["run", "arm", "outcome", "samples"],
			b.runs.map(r => [el("a", {href: "#/run/" + r.id}, String(r.id)), r.arm || "", r.outcome || "", r.sample_count])));
	}

	/* ---- routing ---- */
	async function route() {
		timers.forEach(clearInterval);
		timers = [];
		window.tmCharts = [];
		const h = location.hash;
		/* #token=TOKEN or #token=TOKEN&/run/12: kept for this tab, taken off the address */
		const tok = /^#token=([A-Za-z0-9_]+)(?:&(\/.*))?$/.exec(h);
		if (tok) {
			sessionStorage.setItem("tm-token", tok[1]);
			history.replaceState(null, "", location.pathname + "#" + (tok[2] || "/"));
		}
		const path = reportData ? reportData.route : (location.hash.slice(1) || "/");
		let m;
		status("");
		try {
			if ((m = /^\/run\/(\d+)$/.exec(path))) await showRun(m[1]);
			else if ((m = /^\/machine\/(.+)$/.exec(path))) await showMachine(decodeURIComponent(m[1]));
			else if ((m = /^\/compare\/([\d,]+)$/.exec(path))) await showCompare(m[1]);
			else if ((m = /^\/bench\/(\d+)$/.exec(path))) await showBench(m[1]);
			else if ((m = /^\/(?:\?range=(\w+))?$/.exec(path))) await showHome(m[1]);
			else throw new Error("no such page: " + path);
			document.body.setAttribute("data-ready", "1");
		} catch (e) {
			if (!/read token/.test(e.message)) {
				clear(main);
				main.appendChild(el("p", {class: "err"}, e.message));
			}
			document.body.setAttribute("data-ready", "error");
		}
	}
	if (!reportData) window.addEventListener("hashchange", route);
	route();
})();
