/*
 * orchd's status page: the workloads table, one workload's page and the
 * host's figures, drawn from the JSON API with the session cookie and
 * kept live by /v1/events.  Plain JavaScript, no framework: the page is
 * served under a Content-Security-Policy that allows no inline script or
 * style, and every piece of data is inserted as text (createElement,
 * textContent), never parsed as HTML, since workload fields are written
 * by whoever holds the API key.
 */
(function () {
	"use strict";

	var SVGNS = "http://www.w3.org/2000/svg";
	var DAY = 86400000;
	var session = null;
	var workloads = new Map();	/* name -> the API's object */
	var rows = new Map();		/* name -> its <tr> */
	var metrics = null;		/* parsed /metrics, or null */
	var sortKey = "name";
	var sortDir = 1;
	var events = null;
	var refetching = null;
	var current = null;		/* the workload page's name */
	var deleting = null;		/* a workload being deleted: its page
					   is not fetched again */
	var draft = { until: "", mmsg: "" };	/* typed in the page's boxes:
					   kept across redraws */
	var hostTimer = null;
	var samples = [];		/* the host view's samples */

	var COLUMNS = [
		{ key: "name", label: "Name" },
		{ key: "hosts", label: "Hosts" },
		{ key: "driver", label: "Driver" },
		{ key: "state", label: "State" },
		{ key: "memory", label: "Memory", num: true },
		{ key: "last_seen", label: "Last request" },
		{ key: "wakes_today", label: "Wakes today", num: true,
		    title: "Wakes since midnight, UTC" },
		{ key: "wakes", label: "Wakes", num: true,
		    title: "Wakes in all" },
		{ key: "wake_median", label: "Median wake", num: true,
		    title: "Half the wakes took at most this long" },
		{ key: "wake_max", label: "Slowest wake", num: true,
		    title: "The slowest wake took at most this long" },
		{ key: "depends_on", label: "Depends on" }
	];
	/* fields GET adds to a definition: shown apart from it */
	var RUNTIME = ["state", "last_seen", "started_at", "wakes",
	    "wakes_today", "backoff_until", "expires_at", "message", "drift",
	    "keep_warm_until", "maintenance"];

	function $(id) {
		return document.getElementById(id);
	}

	/* el(tag, attributes, children...): strings become text nodes */
	function el(tag, attrs) {
		var n = document.createElement(tag);
		var k, i, c;

		for (k in attrs || {})
			if (Object.prototype.hasOwnProperty.call(attrs, k))
				n.setAttribute(k, attrs[k]);
		for (i = 2; i < arguments.length; i++) {
			c = arguments[i];
			if (c === null || c === undefined)
				continue;
			n.appendChild(typeof c === "object" ? c :
			    document.createTextNode(String(c)));
		}
		return n;
	}

	function svg(tag, attrs) {
		var n = document.createElementNS(SVGNS, tag);
		var k;

		for (k in attrs)
			if (Object.prototype.hasOwnProperty.call(attrs, k))
				n.setAttribute(k, attrs[k]);
		return n;
	}

	function clear(n) {
		while (n.firstChild)
			n.removeChild(n.firstChild);
		return n;
	}

	function say(text) {
		$("live").textContent = text;
	}

	function bytes(n) {
		var u = ["B", "KiB", "MiB", "GiB", "TiB"];
		var i = 0;

		if (n === null || n === undefined || isNaN(n))
			return "";
		while (n >= 1024 && i < u.length - 1) {
			n /= 1024;
			i++;
		}
		return (i === 0 ? n : n.toFixed(1)) + " " + u[i];
	}

	function ago(t) {
		var s;

		if (!t)
			return "never";
		s = Math.round((Date.now() - Date.parse(t)) / 1000);
		if (isNaN(s))
			return String(t);
		if (s < 60)
			return Math.max(s, 0) + " s ago";
		if (s < 3600)
			return Math.floor(s / 60) + " min ago";
		if (s < 86400)
			return Math.floor(s / 3600) + " h ago";
		return Math.floor(s / 86400) + " d ago";
	}

	function secs(s) {
		if (s === null || s === undefined)
			return "";
		return s < 1 ? Math.round(s * 1000) + " ms" : s.toFixed(1) + " s";
	}

	/* api(method, path, body): the answer, its JSON or text read */
	function api(method, path, body) {
		var opt = { method: method, credentials: "same-origin",
		    headers: {} };

		if (method !== "GET") {
			opt.headers["X-CSRF-Token"] = session ? session.csrf : "";
			if (body !== undefined) {
				opt.headers["Content-Type"] = "application/json";
				opt.body = JSON.stringify(body);
			}
		}
		return fetch(path, opt).then(function (r) {
			/* the session is over (the metrics may just be
			   closed to it) */
			if (r.status === 401 && path.indexOf("/v1/") === 0)
				showLogin(false);
			var ct = r.headers.get("Content-Type") || "";
			var p = ct.indexOf("json") >= 0 ? r.json() : r.text();
			return p.then(function (b) {
				return { status: r.status, body: b };
			}, function () {
				return { status: r.status, body: null };
			});
		});
	}

	/* ---- metrics: the Prometheus text format, the few lines we use */

	function parseMetrics(text) {
		var m = {};
		var lines = text.split("\n");
		var re = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/;
		var i, r, lab, w, le;

		for (i = 0; i < lines.length; i++) {
			r = re.exec(lines[i]);
			if (r === null)
				continue;
			lab = r[3] || "";
			w = /workload="((?:[^"\\]|\\.)*)"/.exec(lab);
			le = /le="([^"]*)"/.exec(lab);
			if (!m[r[1]])
				m[r[1]] = [];
			m[r[1]].push({ workload: w ? w[1] : null,
			    le: le ? le[1] : null, labels: lab,
			    value: parseFloat(r[4]) });
		}
		return m;
	}

	function metricSum(name, workload) {
		var s = 0;

		((metrics && metrics[name]) || []).forEach(function (x) {
			if (workload === undefined || x.workload === workload)
				s += x.value;
		});
		return s;
	}

	function metricOne(name, workload) {
		var v = null;

		((metrics && metrics[name]) || []).forEach(function (x) {
			if (x.workload === workload)
				v = x.value;
		});
		return v;
	}

	/* the bucket bound under which a fraction q of the wakes ended */
	function quantile(workload, q) {
		var b = ((metrics && metrics.orchd_wake_duration_seconds_bucket) ||
		    []).filter(function (x) {
			return x.workload === workload;
		});
		var total, i;

		if (b.length === 0)
			return null;
		total = b[b.length - 1].value;
		if (total === 0)
			return null;
		for (i = 0; i < b.length; i++)
			if (b[i].value >= total * q)
				return b[i].le === "+Inf" ? Infinity :
				    parseFloat(b[i].le);
		return null;
	}

	function loadMetrics() {
		return api("GET", "/metrics").then(function (r) {
			metrics = r.status === 200 && typeof r.body === "string" ?
			    parseMetrics(r.body) : null;
			if (metrics)
				sample();
		}, function () {
			metrics = null;
		});
	}

	/* ---- the workloads table */

	function value(w, key) {
		var v;

		switch (key) {
		case "hosts":
		case "depends_on":
			return (w[key] || []).join(" ");
		case "memory":
			return metricOne("orchd_workload_memory_bytes", w.name);
		case "wake_median":
			return quantile(w.name, 0.5);
		case "wake_max":
			return quantile(w.name, 1);
		case "last_seen":
			v = w.last_seen ? Date.parse(w.last_seen) : 0;
			return isNaN(v) ? 0 : v;
		default:
			return w[key] === undefined ? null : w[key];
		}
	}

	function stateCell(w) {
		var td = el("td", {}, el("span",
		    { "class": "st st-" + String(w.state) }, w.state));

		if (w.message && (w.state === "failed" || w.backoff_until))
			td.appendChild(el("span", { "class": "reason" },
			    w.message));
		else if (w.backoff_until)
			td.appendChild(el("span", { "class": "reason" },
			    "backoff until " + w.backoff_until));
		if (w.maintenance)
			td.appendChild(el("span", { "class": "reason maint" },
			    maintText(w.maintenance)));
		return td;
	}

	/* "in maintenance until ...: message", as text, never as markup */
	function maintText(m) {
		return "in maintenance" + (m.until ? " until " +
		    new Date(m.until).toLocaleString() : "") +
		    (m.message ? ": " + m.message : "");
	}

	function wakeText(v) {
		if (v === null)
			return "";
		return v === Infinity ? "> 60 s" : "\u2264 " + secs(v);
	}

	function makeRow(w) {
		var tr = el("tr", { "data-name": w.name });
		var link = el("a", { href: "#/w/" + encodeURIComponent(w.name) },
		    w.name);

		tr.appendChild(el("td", { "class": "name" }, link));
		tr.appendChild(el("td", { "class": "hosts" },
		    (w.hosts || []).join(", ")));
		tr.appendChild(el("td", {}, w.driver || ""));
		tr.appendChild(stateCell(w));
		tr.appendChild(el("td", { "class": "num" },
		    bytes(value(w, "memory"))));
		tr.appendChild(el("td", { title: w.last_seen || "" },
		    ago(w.last_seen)));
		tr.appendChild(el("td", { "class": "num" },
		    w.wakes_today === undefined ? "" : w.wakes_today));
		tr.appendChild(el("td", { "class": "num" },
		    w.wakes === undefined ? "" : w.wakes));
		tr.appendChild(el("td", { "class": "num" },
		    wakeText(value(w, "wake_median"))));
		tr.appendChild(el("td", { "class": "num" },
		    wakeText(value(w, "wake_max"))));
		tr.appendChild(el("td", {}, (w.depends_on || []).join(", ")));
		/* a narrow screen shows each row as a card, labelled */
		Array.prototype.forEach.call(tr.cells, function (td, i) {
			td.setAttribute("data-label", COLUMNS[i].label);
		});
		return tr;
	}

	function matches(w, f) {
		if (f === "")
			return true;
		if (w.name.toLowerCase().indexOf(f) >= 0)
			return true;
		return (w.hosts || []).some(function (h) {
			return h.toLowerCase().indexOf(f) >= 0;
		});
	}

	function compare(a, b) {
		var x = value(a, sortKey), y = value(b, sortKey);

		if (x === y)
			return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
		if (x === null)
			return 1;
		if (y === null)
			return -1;
		return (x < y ? -1 : 1) * sortDir;
	}

	function renderHead() {
		var tr = clear($("thead"));

		COLUMNS.forEach(function (c) {
			var th = el("th", { scope: "col" });
			var b = el("button", { type: "button",
			    "data-key": c.key }, c.label);

			if (c.num)
				th.setAttribute("class", "num");
			if (c.title)
				b.setAttribute("title", c.title);
			if (c.key === sortKey)
				th.setAttribute("aria-sort",
				    sortDir === 1 ? "ascending" : "descending");
			b.addEventListener("click", function () {
				sortDir = sortKey === c.key ? -sortDir : 1;
				sortKey = c.key;
				renderHead();
				renderTable();
				$("thead").querySelector("[data-key=\"" +
				    c.key + "\"]").focus();
			});
			th.appendChild(b);
			tr.appendChild(th);
		});
	}

	function renderTable() {
		var f = $("filter").value.trim().toLowerCase();
		var list = Array.from(workloads.values()).filter(function (w) {
			return matches(w, f);
		}).sort(compare);
		var frag = document.createDocumentFragment();

		rows.clear();
		list.forEach(function (w) {
			var tr = makeRow(w);

			rows.set(w.name, tr);
			frag.appendChild(tr);
		});
		clear($("tbody")).appendChild(frag);
		$("count").textContent = list.length + " of " +
		    workloads.size + " workloads";
	}

	function updateRow(name) {
		var old = rows.get(name);
		var w = workloads.get(name);
		var tr;

		if (!old || !w)
			return;
		tr = makeRow(w);
		old.parentNode.replaceChild(tr, old);
		rows.set(name, tr);
	}

	/*
	 * Every workload, page after page (the API answers at most 10,000
	 * at once), at most 100 pages; answered as one list.
	 */
	function listAll() {
		var all = [];

		function page(after, n) {
			var q = "/v1/workloads?limit=10000";

			if (after)
				q += "&after=" + encodeURIComponent(after);
			return api("GET", q).then(function (r) {
				if (r.status !== 200 || !r.body)
					return r;
				all = all.concat(r.body.workloads || []);
				if (r.body.next && n < 100)
					return page(r.body.next, n + 1);
				return { status: 200, body: { workloads: all } };
			});
		}
		return page("", 1);
	}

	function loadList() {
		return Promise.all([listAll(),
		    loadMetrics()]).then(function (r) {
			if (r[0].status !== 200 || !r[0].body)
				return;
			workloads.clear();
			(r[0].body.workloads || []).forEach(function (w) {
				workloads.set(w.name, w);
			});
			renderTable();
		});
	}

	/* several events at once ask for one list */
	function refetch() {
		if (refetching)
			return;
		refetching = setTimeout(function () {
			refetching = null;
			loadList().then(function () {
				if (current && current !== deleting)
					loadWorkload(current);
			});
		}, 200);
	}

	/*
	 * The metrics behind memory and wake times change with the states:
	 * read again after a burst of events, at most every 5 s.
	 */
	var metricsTimer = null;
	function metricsSoon() {
		if (metricsTimer)
			return;
		metricsTimer = setTimeout(function () {
			loadMetrics().then(function () {
				metricsTimer = null;
				renderTable();
			});
		}, 5000);
	}

	/* ---- the events: live, no polling */

	function onState(ev) {
		var e, w;

		try {
			e = JSON.parse(ev.data);
		} catch {
			return;
		}
		w = workloads.get(e.workload);
		if (!w) {
			refetch();
			return;
		}
		w.state = e.to;
		w.message = e.message;
		if (e.cause && e.cause.kind === "request" && e.time)
			w.last_seen = e.time;
		if (e.to === "running" || e.to === "asleep")
			metricsSoon();
		if (e.to === "running" && e.from === "waking") {
			w.wakes = (w.wakes || 0) + 1;
			w.wakes_today = (w.wakes_today || 0) + 1;
		}
		updateRow(e.workload);
		if (current === e.workload && current !== deleting)
			loadWorkload(current);
	}

	function listen() {
		if (events)
			events.close();
		events = new EventSource("/v1/events");
		events.addEventListener("state", onState);
		events.addEventListener("reset", refetch);
		events.addEventListener("reload", refetch);
		events.addEventListener("open", function () {
			say("");
		});
		events.addEventListener("error", function () {
			if (events.readyState === EventSource.CLOSED) {
				say("Live updates stopped.");
				checkSession();
			} else {
				say("Live updates: reconnecting\u2026");
			}
		});
	}

	/* ---- one workload */

	function causeText(h) {
		var c = h.cause;

		if (!c)
			return h.message || "";
		if (c.kind === "request")
			return "woken by " + (c.method || "") + " " +
			    (c.host || "") + (c.path || "") + " from " +
			    (c.client || "?") + (c.agent ? " (" + c.agent +
			    ")" : "");
		return "woken by " + c.kind;
	}

	function stateClass(s) {
		if (["running", "asleep", "waking", "suspending", "checking",
		    "failed"].indexOf(s) >= 0)
			return "s-" + s;
		return "s-other";
	}

	/* segments of the last 24 h from the transitions, oldest first */
	function segments(hist, now, state) {
		var start = now - DAY;
		var segs = [];
		var at = start, cur = null, i, t;

		for (i = 0; i < hist.length; i++) {
			t = Date.parse(hist[i].time);
			if (isNaN(t))
				continue;
			if (t <= start) {
				cur = hist[i].to;
				continue;
			}
			if (cur === null)
				cur = hist[i].from;
			segs.push({ from: at, to: t, state: cur });
			at = t;
			cur = hist[i].to;
		}
		segs.push({ from: at, to: now, state: cur === null ? state :
		    cur });
		return segs.filter(function (s) {
			return s.to > s.from && s.state;
		});
	}

	function stateChart(hist, state) {
		var now = Date.now();
		var segs = segments(hist, now, state);
		var W = 720, H = 40;
		var root = svg("svg", { viewBox: "0 0 " + W + " " + (H + 18),
		    role: "img" });
		var total = {}, parts = [], seen = {}, legend;

		segs.forEach(function (s) {
			var x = (s.from - now + DAY) / DAY * W;
			var w = Math.max((s.to - s.from) / DAY * W, 0.5);
			var r = svg("rect", { x: x.toFixed(1), y: 0,
			    width: w.toFixed(1), height: H,
			    "class": stateClass(s.state) });
			var t = svg("title", {});

			t.textContent = s.state + " from " +
			    new Date(s.from).toLocaleTimeString() + " to " +
			    new Date(s.to).toLocaleTimeString();
			r.appendChild(t);
			root.appendChild(r);
			total[s.state] = (total[s.state] || 0) + s.to - s.from;
		});
		[["24 h ago", 0, "start"], ["12 h ago", W / 2, "middle"],
		    ["now", W, "end"]].forEach(function (l) {
			var t = svg("text", { x: l[1], y: H + 14,
			    "text-anchor": l[2] });

			t.textContent = l[0];
			root.appendChild(t);
		});
		Object.keys(total).forEach(function (s) {
			parts.push(s + " " + Math.round(total[s] / DAY * 100) +
			    "%");
		});
		root.setAttribute("aria-label", "State over the last 24 hours: " +
		    (parts.join(", ") || "no data"));
		legend = el("ul", { "class": "legend", "aria-hidden": "true" });
		segs.forEach(function (s) {
			var i, sw;

			if (seen[s.state])
				return;
			seen[s.state] = 1;
			i = svg("svg", { viewBox: "0 0 10 10" });
			sw = svg("rect", { width: 10, height: 10,
			    "class": stateClass(s.state) });
			i.appendChild(sw);
			legend.appendChild(el("li", {}, i, s.state));
		});
		return [root, legend];
	}

	/* keep warm, until the time in the box if one is there */
	function warmBody(what) {
		var t;

		if (what !== "warm_on" || draft.until === "")
			return { enabled: what === "warm_on" };
		t = new Date(draft.until);
		return isNaN(t.getTime()) ? { enabled: true } :
		    { enabled: true, until: t.toISOString() };
	}

	/* maintenance, with the message in the box if one is there */
	function maintBody(what) {
		if (what !== "maint_on")
			return { enabled: false };
		return draft.mmsg !== "" ?
		    { enabled: true, message: draft.mmsg } : { enabled: true };
	}

	function act(name, what) {
		var verbs = { wake: "Wake", suspend: "Suspend",
		    warm_on: "Keep warm", warm_off: "Stop keeping warm",
		    maint_on: "Put in maintenance",
		    maint_off: "End maintenance of",
		    restart: "Restart", "delete": "Delete" };
		var p;

		if (!window.confirm(verbs[what] + " " + name + "?"))
			return;
		say(verbs[what] + " " + name + "\u2026");
		var base = "/v1/workloads/" + encodeURIComponent(name);
		if (what === "wake" || what === "suspend")
			p = api("POST", base + "/" + what);
		else if (what === "warm_on" || what === "warm_off")
			p = api("POST", base + "/keepwarm", warmBody(what));
		else if (what === "maint_on" || what === "maint_off")
			p = api("POST", base + "/maintenance", maintBody(what));
		else if (what === "restart")
			p = api("POST", base + "/restart");
		else {
			deleting = name;
			p = api("DELETE", base);
		}
		p.then(function (r) {
			var err = r.body && r.body.error ? ": " + r.body.error :
			    "";

			say(verbs[what] + " " + name + (r.status < 300 ?
			    ": done" : ": failed (" + r.status + ")" + err));
			if (what === "delete" && r.status < 300) {
				location.hash = "#/";
				refetch();
			} else if (r.status < 300) {
				refetch();
			}
			if (what === "delete" && r.status >= 300)
				deleting = null;
		}, function () {
			if (what === "delete")
				deleting = null;
			say(verbs[what] + " " + name + ": the request failed");
		});
	}

	/*
	 * A box's text is the draft's, not the element's: an event may redraw
	 * the buttons at any time, or a fetch fail, and what was typed stays.
	 */
	function keepTyped(input, key) {
		input.value = draft[key];
		["input", "change"].forEach(function (t) {
			input.addEventListener(t, function () {
				draft[key] = input.value;
			});
		});
	}

	function renderActions(w) {
		var box = $("actions");
		var had = box.contains(document.activeElement) ?
		    document.activeElement.getAttribute("data-action") : null;
		var list = [["wake", "Wake"], ["suspend", "Suspend"],
		    [w.keep_warm ? "warm_off" : "warm_on",
		    w.keep_warm ? "Stop keeping warm" : "Keep warm"],
		    ["restart", "Restart"],
		    [w.maintenance ? "maint_off" : "maint_on",
		    w.maintenance ? "End maintenance" : "Maintenance"]];

		clear(box);
		if (!session || session.readonly) {
			box.hidden = true;
			return;
		}
		box.hidden = false;
		if (w.source === "api")
			list.push(["delete", "Delete"]);
		list.forEach(function (a) {
			var b = el("button", { type: "button", "data-action": a[0],
			    "class": a[0] === "delete" ? "danger" : "" }, a[1]);

			b.addEventListener("click", function () {
				act(w.name, a[0]);
			});
			box.appendChild(b);
			/* keep warm takes an optional time it lapses at */
			if (a[0] === "warm_on") {
				box.appendChild(el("label", {},
				    "until (optional)", el("input", {
				    id: "warm-until",
				    type: "datetime-local" })));
				keepTyped($("warm-until"), "until");
			}
			/* maintenance takes an optional message for clients */
			if (a[0] === "maint_on") {
				box.appendChild(el("label", {},
				    "message (optional)", el("input", {
				    id: "maint-msg", type: "text",
				    maxlength: "255" })));
				keepTyped($("maint-msg"), "mmsg");
			}
			/* redrawn by an event: the keyboard stays put */
			if (had === a[0] || (had && had.indexOf("warm") === 0 &&
			    a[0].indexOf("warm") === 0) ||
			    (had && had.indexOf("maint") === 0 &&
			    a[0].indexOf("maint") === 0))
				b.focus();
		});
	}

	function renderDefinition(w) {
		var dl = clear($("definition"));
		var drift = w.drift || [];

		Object.keys(w).sort().forEach(function (k) {
			var v = w[k];

			if (RUNTIME.indexOf(k) >= 0 || k === "name")
				return;
			dl.appendChild(el("dt", {}, k));
			dl.appendChild(el("dd", {}, typeof v === "string" ? v :
			    JSON.stringify(v)));
		});
		$("drift").textContent = drift.length === 0 ?
		    "No drift: the running instance has this definition." :
		    "Drift: changed since its instance started: " +
		    drift.join(", ") + ".";
	}

	function renderHistory(hist) {
		var tb = clear($("history").tBodies[0]);

		if (hist.length === 0)
			tb.appendChild(el("tr", {}, el("td", { colspan: 5 },
			    "No transitions recorded yet.")));

		hist.slice().reverse().forEach(function (h) {
			tb.appendChild(el("tr", {},
			    el("td", { title: h.time }, h.time ?
			    new Date(h.time).toLocaleString() : ""),
			    el("td", {}, h.from || ""), el("td", {}, h.to || ""),
			    el("td", {}, h.reason || ""),
			    el("td", {}, causeText(h))));
		});
	}

	function accessText(r) {
		var b = r.body;

		if (r.status !== 200 || !b)
			return "(no access log: " + r.status + ")";
		if (!b.access_log)
			return "(no access log: \"access log\" is not set in " +
			    "orchd.conf)";
		if (!b.lines || b.lines.length === 0)
			return "(no request yet)";
		return b.lines.join("\n");
	}

	function loadWorkload(name) {
		var base = "/v1/workloads/" + encodeURIComponent(name);

		return Promise.all([api("GET", base), api("GET", base +
		    "/history"), api("GET", base + "/logs?tail=100"),
		    api("GET", base + "/access?limit=100")]).then(
		    function (r) {
			var w = r[0].body, hist, st, c;

			if (current !== name)
				return;
			/* a passing failure keeps the page as it is */
			if (r[0].status !== 200 && r[0].status !== 404) {
				say("Could not fetch " + name + " (" +
				    r[0].status + "); the page may be behind.");
				return;
			}
			if (r[0].status !== 200 || !w) {
				$("wl-h").textContent = name;
				$("wl-state").textContent = "No such workload.";
				clear($("actions"));
				return;
			}
			hist = r[1].status === 200 && r[1].body ?
			    r[1].body.history || [] : [];
			$("wl-h").textContent = w.name;
			st = clear($("wl-state"));
			st.appendChild(document.createTextNode("State: "));
			st.appendChild(el("span", { "class": "st st-" +
			    String(w.state) }, w.state));
			st.appendChild(document.createTextNode(
			    (w.keep_warm ? ", kept warm" : "") +
			    (w.keep_warm && w.keep_warm_until ? " until " +
			    new Date(w.keep_warm_until).toLocaleString() : "") +
			    (w.message ? "; " + w.message : "") +
			    (w.maintenance ? "; " + maintText(w.maintenance) :
			    "") +
			    "; last request " + ago(w.last_seen) + "."));
			renderActions(w);
			c = stateChart(hist, w.state);
			clear($("chart")).appendChild(c[0]);
			$("chart").appendChild(c[1]);
			renderHistory(hist);
			renderDefinition(w);
			$("logs").textContent = r[2].status === 200 ?
			    String(r[2].body || "(no output)") :
			    "(no log: " + r[2].status + ")";
			$("access").textContent = accessText(r[3]);
		});
	}

	/* ---- the host */

	function lineChart(series, max, labels) {
		var W = 720, H = 160;
		var root = svg("svg", { viewBox: "0 0 " + W + " " + (H + 18),
		    role: "img", "aria-label": labels.aria });

		root.appendChild(svg("line", { x1: 0, y1: H, x2: W, y2: H,
		    "class": "axis" }));
		if (labels.budget)
			root.appendChild(svg("line", { x1: 0, y1: 2, x2: W,
			    y2: 2, "class": "budget" }));
		series.forEach(function (s) {
			var pts = s.points.map(function (p, i) {
				var x = s.points.length < 2 ? W :
				    i / (s.points.length - 1) * W;

				return x.toFixed(1) + "," + (H - (max > 0 ?
				    p / max * (H - 4) : 0)).toFixed(1);
			});

			if (pts.length > 0)
				root.appendChild(svg("polyline", {
				    points: pts.join(" "), "class": s.cls }));
		});
		var t = svg("text", { x: 0, y: H + 14 });
		t.textContent = labels.x;
		root.appendChild(t);
		return root;
	}

	function fact(dl, k, v) {
		dl.appendChild(el("dt", {}, k));
		dl.appendChild(el("dd", {}, v));
	}

	/* one point of the host's figures, from the metrics just read */
	function sample() {
		var now = Date.now();
		var prev = samples.length > 0 ? samples[samples.length - 1] :
		    null;
		var s = { t: now,
		    used: metricSum("orchd_memory_in_use_bytes"),
		    budget: metricSum("orchd_memory_budget_bytes"),
		    wakes: metricSum("orchd_wakes_total"),
		    reqs: metricSum("orchd_requests_total"),
		    wph: null, rps: null };

		if (prev && now - prev.t < 1000)
			return;
		if (prev && now > prev.t) {
			s.wph = Math.max(s.wakes - prev.wakes, 0) * 3600000 /
			    (now - prev.t);
			s.rps = Math.max(s.reqs - prev.reqs, 0) * 1000 /
			    (now - prev.t);
		}
		samples.push(s);
		if (samples.length > 720)
			samples.shift();
	}

	/*
	 * orchd's last day, a minute a point (GET /v1/host/history), as
	 * the charts' points: wakes per hour over the hour to each minute
	 */
	function historyPoints(hist) {
		var j = 0, w = 0;

		return hist.map(function (h, i) {
			var t = Date.parse(h.time);

			w += h.wakes;
			while (j < i && Date.parse(hist[j].time) <= t - 3600000)
				w -= hist[j++].wakes;
			return { used: h.memory_in_use, budget: h.memory_budget,
			    wph: w, rps: h.requests / 60 };
		});
	}

	function hostSample() {
		return Promise.all([loadMetrics(), api("GET",
		    "/v1/host/history")]).then(function (r) {
			var dl = clear($("hostfacts"));
			var hist = r[1].status === 200 && r[1].body ?
			    r[1].body.samples || [] : [];
			var s, saved = 0, mh = 0, wph, rps;

			if (metrics === null || samples.length === 0) {
				$("host-note").textContent = "The metrics are " +
				    "not available to this session.";
				return;
			}
			s = samples[samples.length - 1];
			wph = s.wph;
			rps = s.rps;
			workloads.forEach(function (w) {
				var est = metricOne(
				    "orchd_workload_memory_estimate_bytes",
				    w.name) || metricOne(
				    "orchd_workload_memory_bytes", w.name) || 0;

				if (w.state === "asleep")
					saved += est;
				mh += est * (metricOne(
				    "orchd_workload_asleep_seconds_total",
				    w.name) || 0) / 3600;
			});
			fact(dl, "Memory in use", bytes(s.used));
			fact(dl, "Memory budget", s.budget > 0 ? bytes(s.budget) :
			    "none");
			fact(dl, "Memory saved now by sleeping workloads",
			    bytes(saved));
			fact(dl, "Memory-hours saved by sleeping",
			    (mh / 1073741824).toFixed(2) + " GiB\u00b7h");
			fact(dl, "Time asleep, all workloads", (metricSum(
			    "orchd_workload_asleep_seconds_total") / 3600)
			    .toFixed(1) + " h");
			fact(dl, "Wakes since start", String(s.wakes));
			fact(dl, "Wakes per hour", wph === null ? "(measuring)" :
			    wph.toFixed(1));
			fact(dl, "Requests per second", rps === null ?
			    "(measuring)" : rps.toFixed(2));
			$("host-note").textContent = "From /metrics, read " +
			    "every 10 s while this view is open; the charts " +
			    (hist.length >= 2 ? "from orchd's last day, a " +
			    "point a minute (" + hist.length + " minutes)." :
			    "from the " + samples.length + " samples since " +
			    "the page was loaded, until orchd has two " +
			    "minutes of its own.");
			drawHost(hist);
		});
	}

	function drawHost(hist) {
		var max = 0, rmax = 0;
		var day = hist.length >= 2;
		var pts = day ? historyPoints(hist) : samples;
		var since = day ? "over the last " + (hist.length / 60)
		    .toFixed(1) + " h" : "since the page was loaded";

		pts.forEach(function (s) {
			max = Math.max(max, s.used, s.budget);
			rmax = Math.max(rmax, s.wph || 0, s.rps || 0);
		});
		clear($("memchart")).appendChild(lineChart([{ cls: "line",
		    points: pts.map(function (s) { return s.used; }) }],
		    max, { budget: pts.some(function (s) {
			return s.budget > 0 && s.budget >= max;
		    }), x: "memory in use (line), budget (dashed), " + since,
		    aria: "Memory in use " + since + ", now " +
		    bytes(pts.length ? pts[pts.length - 1].used : 0) }));
		clear($("ratechart")).appendChild(lineChart([{ cls: "line",
		    points: pts.map(function (s) { return s.wph || 0; }) },
		    { cls: "line2", points: pts.map(function (s) {
			return s.rps || 0; }) }], rmax, { x: "wakes per hour " +
		    "(blue), requests per second (orange), " + since,
		    aria: "Wakes per hour and requests per second " +
		    since }));
	}

	/* ---- views */

	function show(id) {
		["login", "list", "workload", "host"].forEach(function (s) {
			$(s).hidden = s !== id;
		});
		$("nav-list").removeAttribute("aria-current");
		$("nav-host").removeAttribute("aria-current");
		if (id === "list")
			$("nav-list").setAttribute("aria-current", "page");
		if (id === "host")
			$("nav-host").setAttribute("aria-current", "page");
	}

	function route() {
		var h = location.hash;
		var m = /^#\/w\/(.+)$/.exec(h);

		if (!session)
			return;
		if (hostTimer) {
			clearInterval(hostTimer);
			hostTimer = null;
		}
		if (m) {
			if (current !== decodeURIComponent(m[1]))
				draft = { until: "", mmsg: "" };
			current = decodeURIComponent(m[1]);
			deleting = null;
			show("workload");
			$("wl-h").textContent = current;
			document.title = current + " \u2013 orchd status";
			loadWorkload(current);
		} else if (h === "#/host") {
			current = null;
			show("host");
			document.title = "Host \u2013 orchd status";
			hostSample();
			hostTimer = setInterval(hostSample, 10000);
		} else {
			current = null;
			show("list");
			document.title = "Workloads \u2013 orchd status";
		}
	}

	function showLogin(failed) {
		session = null;
		if (events) {
			events.close();
			events = null;
		}
		show("login");
		$("nav").hidden = true;
		$("who").hidden = true;
		$("login-failed").hidden = !failed;
		document.title = "Log in \u2013 orchd status";
	}

	function start(s) {
		session = s;
		$("nav").hidden = false;
		$("who").hidden = false;
		$("role").textContent = s.readonly ? "Read-only session" :
		    "Signed in";
		document.body.classList.toggle("readonly", !!s.readonly);
		renderHead();
		route();
		loadList().then(listen);
	}

	function checkSession() {
		return api("GET", "/ui/session").then(function (r) {
			if (r.status === 200 && r.body && r.body.csrf) {
				if (!session)
					start(r.body);
				return;
			}
			showLogin(/[?&]login=failed/.test(location.search));
		}, function () {
			say("The server did not answer.");
		});
	}

	/*
	 * The form posts itself without this script; with it, the answer
	 * stays in the page: a wrong key is said in the form, and the
	 * key's field is emptied either way.
	 */
	function submitLogin(ev) {
		var key = $("key");
		var body = new URLSearchParams();

		ev.preventDefault();
		body.set("key", key.value);
		key.value = "";
		$("login-failed").hidden = true;
		fetch("/ui/login", { method: "POST", credentials: "same-origin",
		    body: body }).then(function (r) {
			/* the server's 303 goes back to /ui/, with
			   ?login=failed after a wrong key */
			if (r.ok && !/[?&]login=failed/.test(r.url)) {
				checkSession();
				return;
			}
			$("login-failed").textContent = r.status === 429 ?
			    "Too many wrong keys: wait a minute." :
			    "That key was not accepted.";
			$("login-failed").hidden = false;
			key.focus();
		}, function () {
			say("The server did not answer.");
		});
	}

	function logout() {
		api("POST", "/ui/logout").then(function () {
			location.replace("/ui/#/");
			showLogin(false);
		});
	}

	document.addEventListener("DOMContentLoaded", function () {
		$("filter").addEventListener("input", renderTable);
		$("logout").addEventListener("click", logout);
		$("login").querySelector("form").addEventListener("submit",
		    submitLogin);
		window.addEventListener("hashchange", function () {
			route();
			$("main").focus();
		});
		checkSession();
	});
}());
