/*
 * The status page in a real browser: Debian's chromium driven by
 * puppeteer-core (no browser download), against a live orchd that
 * regress/e2e/browser.sh started.  It logs in, reads the table, sees a
 * row turn "running" from /v1/events, wakes one with the button, checks
 * the read-only key, logout, an expired session, the console (no errors,
 * no CSP violation), axe-core, the page's weight and its speed with 1,000
 * workloads, and replays the attacks: a cross-site form POST, a request
 * without the CSRF token, a cookie replayed after logout, /ui/../,
 * session fixation, and workload fields holding <script> and quotes.
 * Prints "N passed, N failed".
 *
 * The environment: BASE (the API listener's URL), GW (the gateway's),
 * KEY, ROKEY, OUT (a directory for screenshots), UI (the ui/ directory),
 * NAMES ("live wake xss", the workloads browser.sh made), XSS (the text
 * put in xss's description), EXPIRE_COOKIE (a session cookie made at the
 * start, "name=value"), EXPIRE_AT (when it expires, epoch seconds),
 * SHOT (where to copy the README's screenshot, optional).
 */
"use strict";

const fs = require("fs");
const http = require("http");
const net = require("net");
const path = require("path");
const zlib = require("zlib");
const { execFileSync } = require("child_process");
const puppeteer = require("puppeteer-core");

const env = process.env;
const BASE = env.BASE;
const APIBASE = env.APIBASE || BASE;
const [LIVE, WAKE, XSSWL] = env.NAMES.split(" ");
const OUT = env.OUT;
let passed = 0, failed = 0;

function ok(cond, desc, extra) {
	if (cond) {
		passed++;
		console.log("ok - " + desc);
	} else {
		failed++;
		console.log("not ok - " + desc + (extra ? " (" + extra + ")" :
		    ""));
	}
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* a raw HTTP/1.1 request, the target sent as given (no normalizing) */
function raw(port, text) {
	return new Promise((resolve) => {
		const s = net.connect(port, "127.0.0.1");
		let buf = "";
		s.setTimeout(10000, () => s.destroy());
		s.on("connect", () => s.write(text));
		s.on("data", (d) => { buf += d; });
		s.on("close", () => resolve(buf));
		s.on("error", () => resolve(buf));
	});
}

/* req(method, url, {headers, body}): {status, headers, body} */
function req(method, url, opt) {
	opt = opt || {};
	return new Promise((resolve) => {
		const u = new URL(url);
		const r = http.request({ host: u.hostname, port: u.port,
		    path: u.pathname + u.search, method,
		    headers: opt.headers || {}, timeout: 30000 }, (res) => {
			let b = "";
			res.on("data", (d) => { b += d; });
			res.on("end", () => resolve({ status: res.statusCode,
			    headers: res.headers, body: b }));
		});
		r.on("error", (e) => resolve({ status: 0, body: String(e) }));
		r.on("timeout", () => r.destroy());
		r.end(opt.body);
	});
}

function bearer(method, p, body) {
	return req(method, APIBASE + p, { headers: { Authorization: "Bearer " +
	    env.KEY, "Content-Type": "application/json" }, body });
}

async function apiState(name) {
	const r = await bearer("GET", "/v1/workloads/" + name);
	try {
		return JSON.parse(r.body).state;
	} catch {
		return null;
	}
}

async function login(page, key) {
	await page.goto(BASE + "/ui/", { waitUntil: "load" });
	await page.waitForSelector("#key", { visible: true, timeout: 20000 });
	await page.type("#key", key);
	await page.click("#login button[type=submit]");
	await page.waitForFunction(() => !document.getElementById("nav")
	    .hidden, { timeout: 20000 });
}

/* the page has asked /ui/session and shows the form or the app */
async function settled(page) {
	await page.waitForFunction(() => !document.getElementById("login")
	    .hidden || !document.getElementById("nav").hidden,
	    { timeout: 20000 });
}

async function apiJSON(name) {
	const r = await bearer("GET", "/v1/workloads/" + name);
	try {
		return JSON.parse(r.body);
	} catch {
		return {};
	}
}

/* the page's button for action, confirmed; then until done() */
async function clickAction(page, action, done) {
	await page.waitForSelector("[data-action=" + action + "]",
	    { timeout: 20000 });
	page.once("dialog", (d) => d.accept());
	/* clicked where it is found: an event may redraw the buttons */
	await page.$eval("[data-action=" + action + "]", (b) => {
		setTimeout(() => b.click(), 0);
	});
	return waitFor(done, 15000);
}

/* as a user types: the page keeps what an input event told it */
async function typeIn(page, sel, text) {
	await page.$eval(sel, (i, v) => {
		i.value = v;
		i.dispatchEvent(new Event("input"));
	}, text);
}

/*
 * The page is fetched again while the API answers 503 (the next GET of
 * the workload only): the box and the buttons stay, the text typed too.
 */
async function typedSurvives(page, name, sel, text) {
	const want = "/v1/workloads/" + encodeURIComponent(name);
	let failed = 0;
	const fail = (r) => {
		if (r.isInterceptResolutionHandled())
			return;
		if (!failed && r.method() === "GET" &&
		    new URL(r.url()).pathname === want) {
			failed = 1;
			r.respond({ status: 503, contentType: "application/json",
			    body: "{\"error\": \"busy\"}" });
		} else
			r.continue();
	};
	await page.setRequestInterception(true);
	page.on("request", fail);
	await page.evaluate(() => window.dispatchEvent(
	    new HashChangeEvent("hashchange")));
	const seen = await waitFor(async () => failed === 1, 5000);
	await sleep(300);
	const kept = await page.evaluate((s) => {
		const i = document.querySelector(s);
		return i !== null ? i.value : null;
	}, sel);
	page.off("request", fail);
	await page.setRequestInterception(false);
	return seen && kept === text;
}

async function rowState(page, name) {
	return page.evaluate((n) => {
		const tr = document.querySelector("#tbody tr[data-name=\"" +
		    n + "\"]");
		const s = tr && tr.querySelector(".st");
		return s ? s.textContent : null;
	}, name);
}

async function waitFor(fn, ms) {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		if (await fn())
			return true;
		await sleep(50);
	}
	return false;
}

const EXPECTED = new RegExp("^Failed to load resource: the server " +
    "responded with a status of (40[13]|503) ");

/* console errors, page errors and CSP violations of a page */
function watch(page, log) {
	/* the 401s, 403s and the 503 the tests ask for (a session asked
	   before the login, forged actions, a failed fetch) are the
	   browser's network lines, not the page's errors */
	page.on("console", (m) => {
		if (m.type() === "error" && !EXPECTED.test(m.text()))
			log.push("console: " + m.text());
	});
	page.on("pageerror", (e) => log.push("pageerror: " + e.message));
	page.evaluateOnNewDocument(() => {
		document.addEventListener("securitypolicyviolation", (e) => {
			window.__csp = (window.__csp || 0) + 1;
			console.error("CSP violation: " + e.violatedDirective);
		});
	});
}

async function shot(page, name) {
	const f = path.join(OUT, name + ".png");
	await page.screenshot({ path: f, fullPage: true });
	return f;
}

async function axe(page, what) {
	const src = fs.readFileSync(require.resolve("axe-core/axe.min.js"),
	    "utf8");
	/* evaluated by the DevTools protocol, which the page's CSP
	   does not govern: nothing is added to the page itself */
	await page.evaluate(src);
	const res = await page.evaluate(async () => {
		const r = await window.axe.run(document, { resultTypes:
		    ["violations"] });
		return r.violations.map((v) => ({ id: v.id, impact: v.impact,
		    n: v.nodes.length, node: v.nodes[0] &&
		    v.nodes[0].target.join(" ") }));
	});
	const bad = res.filter((v) => v.impact === "serious" ||
	    v.impact === "critical");
	ok(bad.length === 0, "axe-core: no serious or critical violation " +
	    "on " + what, JSON.stringify(bad));
	if (res.length > bad.length)
		console.log("# axe-core, lesser, on " + what + ": " +
		    JSON.stringify(res.filter((v) => bad.indexOf(v) < 0)));
}

function lint() {
	const bin = path.join(__dirname, "node_modules/.bin/eslint");
	const files = fs.readdirSync(env.UI).filter((f) => f.endsWith(".js"))
	    .map((f) => path.join(env.UI, f));
	try {
		/*
		 * From the tree's top, whatever node's own directory: eslint
		 * skips a file outside its base path with a mere warning,
		 * which --max-warnings 0 makes a failure.
		 */
		execFileSync(bin, ["-c", path.join(__dirname,
		    "eslint.config.js"), "--max-warnings", "0", ...files],
		    { stdio: "pipe", cwd: path.join(__dirname, "..", "..") });
		ok(true, "eslint: ui/*.js clean");
	} catch (e) {
		ok(false, "eslint: ui/*.js clean", String(e.stdout));
	}
}

function weight() {
	let total = 0;
	for (const f of fs.readdirSync(env.UI))
		total += zlib.gzipSync(fs.readFileSync(path.join(env.UI, f)),
		    { level: 9 }).length;
	console.log("# figure: ui_gzip_bytes " + total + " bytes");
	ok(total < 100 * 1024, "the page's files, gzipped, under 100 KB (" +
	    total + " bytes)");
}

/* 1,000 workloads made up and answered in place of /v1/workloads */
function many(n) {
	const w = [];
	const st = ["asleep", "running", "waking", "failed"];
	for (let i = 0; i < n; i++)
		w.push({ name: "perf-" + String(i).padStart(4, "0"),
		    hosts: ["perf-" + i + ".test", "alt-" + i + ".test"],
		    driver: i % 2 ? "docker" : "process", state: st[i % 4],
		    message: i % 4 === 3 ? "exited with status 1" : null,
		    last_seen: new Date(Date.now() - i * 60000).toISOString(),
		    wakes: i % 17, keep_warm: false, source: "api",
		    depends_on: i % 10 ? [] : ["perf-0000"] });
	return JSON.stringify({ workloads: w });
}

async function thousand(browser) {
	const ctx = await browser.createBrowserContext();
	const page = await ctx.newPage();
	const log = [];
	watch(page, log);
	await page.setViewport({ width: 1920, height: 1080 });
	await login(page, env.KEY);
	await page.setRequestInterception(true);
	const body = many(1000);
	page.on("request", (r) => {
		if (new URL(r.url()).pathname === "/v1/workloads")
			r.respond({ status: 200, contentType: "application/json",
			    body });
		else
			r.continue();
	});
	const t0 = Date.now();
	await page.reload({ waitUntil: "domcontentloaded" });
	const shown = await waitFor(async () => (await page.$$eval(
	    "#tbody tr", (t) => t.length)) === 1000, 15000);
	const ms = Date.now() - t0;
	console.log("# figure: render_1000_ms " + ms + " ms");
	ok(shown && ms < 5000, "1,000 workloads: the table shows them all " +
	    "in under 5 s (" + ms + " ms)");
	const f = await page.evaluate(() => {
		const t = performance.now();
		const i = document.getElementById("filter");
		i.value = "perf-09";
		i.dispatchEvent(new Event("input"));
		const n = document.querySelectorAll("#tbody tr").length;
		document.querySelector("[data-key=state]").click();
		return { n, ms: performance.now() - t };
	});
	console.log("# figure: filter_sort_1000_ms " + Math.round(f.ms) +
	    " ms");
	ok(f.n === 100 && f.ms < 1000, "1,000 workloads: filtering and " +
	    "sorting take under 1 s (" + Math.round(f.ms) + " ms, " + f.n +
	    " rows)");
	ok(log.length === 0, "1,000 workloads: no console error",
	    log.join("; "));
	await ctx.close();
}

/* the session browser.sh made at the start, past its timeout */
async function expired(browser) {
	/* an expired session, one page open on it */
	const ctx = await browser.createBrowserContext();
	const page = await ctx.newPage();
	const eq = env.EXPIRE_COOKIE.indexOf("=");
	await page.setCookie({ name: env.EXPIRE_COOKIE.slice(0, eq),
	    value: env.EXPIRE_COOKIE.slice(eq + 1), url: BASE });
	await page.goto(BASE + "/ui/", { waitUntil: "load" });
	await settled(page);
	const before = await page.$eval("#list", (l) => !l.hidden);
	const wait = Number(env.EXPIRE_AT) * 1000 + 1500 - Date.now();
	if (wait > 0) {
		console.log("# waiting " + Math.ceil(wait / 1000) +
		    " s for the first session to expire");
		await sleep(wait);
	}
	let r = await req("GET", BASE + "/v1/workloads", { headers:
	    { Cookie: env.EXPIRE_COOKIE } });
	ok(r.status === 401, "an expired session's cookie: 401 (" +
	    r.status + ")");
	r = await req("GET", BASE + "/ui/session", { headers:
	    { Cookie: env.EXPIRE_COOKIE } });
	ok(r.status === 401, "... and /ui/session says 401 (" + r.status +
	    ")");
	await page.click("#tbody tr[data-name=\"" + LIVE + "\"] a");
	ok(before && await waitFor(() => page.$eval("#login", (l) =>
	    !l.hidden), 10000), "a page open when its session expires " +
	    "shows the login form at its next request");
	await ctx.close();
}

/* the table with MANY more workloads made through the real API */
async function realMany(browser, n) {
	const ctx = await browser.createBrowserContext();
	const page = await ctx.newPage();
	const log = [];
	watch(page, log);
	await page.setViewport({ width: 1920, height: 1080 });
	await login(page, env.KEY);
	const t0 = Date.now();
	await page.reload({ waitUntil: "domcontentloaded" });
	const shown = await waitFor(async () => (await page.$$eval(
	    "#tbody tr", (t) => t.length)) >= n, 20000);
	const ms = Date.now() - t0;
	console.log("# figure: render_api_" + n + "_ms " + ms + " ms");
	ok(shown && ms < 10000, n + " workloads made through the API: the " +
	    "table shows them in under 10 s (" + ms + " ms)");
	ok(log.length === 0, n + " workloads: no console error",
	    log.join("; "));
	await ctx.close();
}

async function main() {
	const args = ["--headless=new", "--disable-gpu",
	    "--disable-dev-shm-usage"];
	/* chromium's sandbox refuses to start as root */
	if (process.getuid && process.getuid() === 0)
		args.push("--no-sandbox");
	lint();
	weight();
	const browser = await puppeteer.launch({ executablePath:
	    env.CHROMIUM || "/usr/bin/chromium", headless: true, args });
	try {
		await run(browser);
		await thousand(browser);
		if (Number(env.MANY) > 0)
			await realMany(browser, Number(env.MANY));
		await expired(browser);
	} finally {
		await browser.close();
	}
}

async function run(browser) {
	const ctx = await browser.createBrowserContext();
	const page = await ctx.newPage();
	const log = [];
	watch(page, log);
	await page.setViewport({ width: 1920, height: 1080 });

	/* session fixation: a cookie planted before the login */
	await page.goto(BASE + "/ui/", { waitUntil: "load" });
	await settled(page);
	ok(await page.$eval("#login", (s) => !s.hidden),
	    "no session: the login form");
	await shot(page, "login");
	const planted = (await page.cookies()).map((c) => c.name);

	/* a wrong key */
	await page.type("#key", "wrong-key-0123456789abcdef0123456789");
	await page.click("#login button[type=submit]");
	ok(await waitFor(() => page.$eval("#login-failed", (p) => !p.hidden),
	    10000) && await page.$eval("#key", (k) => k.value === ""),
	    "a wrong key: the form says so, and is emptied");

	for (const n of ["sid", "orchd_ui", "orchd_session", "session"])
		await page.setCookie({ name: n, value: "a".repeat(32),
		    url: BASE });
	await login(page, env.KEY);
	ok(await page.$eval("#list", (s) => !s.hidden),
	    "log in with the API key: the table");
	const cookies = await page.cookies();
	const sess = cookies.filter((c) => c.value !== "a".repeat(32));
	ok(sess.length > 0 && sess.every((c) => c.httpOnly),
	    "the session cookie is HttpOnly", JSON.stringify(cookies));
	ok(sess.length > 0 && sess.every((c) => c.sameSite === "Strict"),
	    "the session cookie is SameSite=Strict");
	const fixed = await req("GET", BASE + "/ui/session", { headers:
	    { Cookie: "sid=" + "a".repeat(32) + "; orchd_ui=" +
	    "a".repeat(32) + "; orchd_session=" + "a".repeat(32) +
	    "; session=" + "a".repeat(32) } });
	ok(fixed.status === 401, "session fixation: the planted cookie is " +
	    "no session after the login (" + fixed.status + ")");
	void planted;

	await page.waitForSelector("#tbody tr[data-name=\"" + XSSWL + "\"]",
	    { timeout: 20000 });
	const names = await page.$$eval("#tbody tr", (t) => t.map((r) =>
	    r.getAttribute("data-name")));
	ok([LIVE, WAKE, XSSWL].every((n) => names.indexOf(n) >= 0),
	    "the table lists the test workloads", names.join(" "));
	const heads = await page.$$eval("#thead th", (t) => t.map((h) =>
	    h.textContent));
	ok(["Wakes today", "Median wake", "Slowest wake"].every((h) =>
	    heads.indexOf(h) >= 0), "... with wakes today, the median and " +
	    "the slowest wake", heads.join("|"));

	/* live: a request with curl wakes LIVE, the row follows */
	await page.evaluate(() => { window.__noReload = 1; });
	ok(await rowState(page, LIVE) === "asleep", "... " + LIVE +
	    " shows asleep");
	const t0 = Date.now();
	const woke = req("GET", env.GW + "/", { headers: { Host: LIVE +
	    ".test" } });
	const turned = await waitFor(async () => await rowState(page,
	    LIVE) === "running", 2000 + 10000);
	const ms = Date.now() - t0;
	await woke;
	console.log("# figure: row_running_ms " + ms + " ms");
	ok(turned && ms <= 2000 + 1500, "a request wakes " + LIVE +
	    ": its row turns running within 2 s of the wake (" + ms +
	    " ms, the wake itself included)");
	ok(await page.evaluate(() => window.__noReload === 1),
	    "... without a reload");

	/* filter and sort */
	await page.type("#filter", XSSWL);
	const filtered = await page.$$eval("#tbody tr", (t) => t.length);
	ok(filtered === 1, "the filter by name leaves one row (" + filtered +
	    ")");
	await page.$eval("#filter", (i) => { i.value = ""; });
	await page.type("#filter", WAKE + ".test");
	ok(await page.$$eval("#tbody tr", (t) => t.length) === 1,
	    "the filter by host leaves one row");
	await page.$eval("#filter", (i) => { i.value = ""; i.dispatchEvent(
	    new Event("input")); });
	await page.click("[data-key=name]");
	const desc = await page.$$eval("#tbody tr", (t) => t.map((r) =>
	    r.getAttribute("data-name")));
	ok(desc.join() === desc.slice().sort().reverse().join(),
	    "a second click on Name sorts it descending");
	/* the pictures show the test's own three, not the MANY */
	await page.type("#filter", "ui-");
	await shot(page, "workloads-1920");
	await axe(page, "the workloads table");
	await page.emulateMediaFeatures([{ name: "prefers-color-scheme",
	    value: "dark" }]);
	await axe(page, "the workloads table, dark");
	await shot(page, "workloads-dark");
	await page.emulateMediaFeatures([{ name: "prefers-color-scheme",
	    value: "light" }]);

	/* XSS: the fields with <script> and quotes are text */
	await page.goto(BASE + "/ui/#/w/" + XSSWL, { waitUntil:
	    "load" });
	await page.waitForSelector("#definition dd", { timeout: 20000 });
	const x = await page.evaluate((t) => ({
		ran: window.__xss,
		scripts: document.scripts.length,
		imgs: document.querySelectorAll("main img").length,
		text: Array.from(document.querySelectorAll("#definition dd"))
		    .some((d) => d.textContent.indexOf(t) >= 0)
	}), env.XSS);
	ok(x.ran === undefined && x.scripts === 1 && x.imgs === 0,
	    "XSS: a description with <script> and an <img onerror> ran " +
	    "nothing and added no element", JSON.stringify(x));
	ok(x.text, "XSS: ... and shows as text, quotes and all");
	await shot(page, "workload-xss");

	/* the access log: the request that woke LIVE, as the log has it */
	await page.goto(BASE + "/ui/#/w/" + LIVE, { waitUntil: "load" });
	ok(await waitFor(() => page.$eval("#access", (p) =>
	    /"GET \/ HTTP\/1\.1" 200 /.test(p.textContent)), 10000),
	    "a workload's page: its last access-log lines, the request " +
	    "that woke it among them", await page.$eval("#access", (p) =>
	    p.textContent));

	/* the wake button */
	await page.goto(BASE + "/ui/#/w/" + WAKE, { waitUntil:
	    "load" });
	await page.waitForSelector("[data-action=wake]", { timeout: 20000 });
	ok(await apiState(WAKE) === "asleep", "... " + WAKE + " is asleep");
	page.once("dialog", (d) => d.accept());
	await page.click("[data-action=wake]");
	ok(await waitFor(async () => await apiState(WAKE) === "running",
	    15000), "the wake button, confirmed, wakes " + WAKE);
	ok(await waitFor(() => page.$eval("#wl-state .st", (s) =>
	    s.textContent === "running"), 5000),
	    "... and its page says running");
	const chart = await page.evaluate(() => {
		const c = document.querySelector("#chart > svg");
		return c ? { label: c.getAttribute("aria-label"),
		    rects: c.querySelectorAll("rect").length } : null;
	});
	ok(chart && chart.rects >= 2 && /running/.test(chart.label),
	    "its 24 h chart, SVG drawn by the page, labelled for a screen " +
	    "reader", JSON.stringify(chart));
	const hist = await page.$$eval("#history tbody td", (t) =>
	    t.map((d) => d.textContent).join("|"));
	ok(/waking/.test(hist) && /woken by api/.test(hist),
	    "its history, with the cause of the wake", hist);
	await shot(page, "workload-1920");
	await axe(page, "a workload's page");

	/* the other buttons: declined, nothing; keep warm on and off,
	   suspend, wake again; delete */
	page.once("dialog", (d) => d.dismiss());
	await page.$eval("[data-action=suspend]", (b) => {
		setTimeout(() => b.click(), 0);
	});
	await sleep(500);
	ok(await apiState(WAKE) === "running", "a declined confirmation " +
	    "does nothing");
	ok(await clickAction(page, "warm_on", async () => (await apiJSON(
	    WAKE)).keep_warm === true), "the keep warm button keeps " + WAKE +
	    " warm");
	ok(await clickAction(page, "warm_off", async () => (await apiJSON(
	    WAKE)).keep_warm === false), "... and the button that stops it");
	/* keep warm until an hour from now, typed in the page's box */
	const later = new Date(Date.now() + 3600000);
	const local = new Date(later.getTime() - later.getTimezoneOffset() *
	    60000).toISOString().slice(0, 16);
	await page.waitForSelector("#warm-until", { timeout: 20000 });
	await typeIn(page, "#warm-until", local);
	ok(await clickAction(page, "warm_on", async () => {
		const w = await apiJSON(WAKE);
		return w.keep_warm === true && typeof w.keep_warm_until ===
		    "string" && Math.abs(Date.parse(w.keep_warm_until) -
		    later.getTime()) < 61000;
	}), "keep warm with a time in the box: kept warm until then " +
	    "(keep_warm_until)", JSON.stringify(await apiJSON(WAKE)));
	ok(await waitFor(() => page.$eval("#wl-state", (s) =>
	    / until /.test(s.textContent)), 5000),
	    "... and its page says until when");
	await shot(page, "workload-warm-until");
	ok(await clickAction(page, "warm_off", async () => (await apiJSON(
	    WAKE)).keep_warm === false), "... stopped again");
	/* restart: POST .../restart, its history says so */
	ok(await clickAction(page, "restart", async () => {
		const r = await bearer("GET", "/v1/workloads/" + WAKE +
		    "/history");
		return /restarted through the API/.test(r.body) &&
		    await apiState(WAKE) === "running";
	}), "the restart button restarts " + WAKE + " (POST .../restart, " +
	    "its history says so)");
	/* maintenance with a message typed in the box: shown as text */
	const mmsg = "<script>window.pwned=1</script> back at 18:00";
	await page.waitForSelector("#maint-msg", { timeout: 20000 });
	await typeIn(page, "#maint-msg", mmsg);
	/* a fetch of its page that fails (503 once) keeps what was typed */
	ok(await typedSurvives(page, WAKE, "#maint-msg", mmsg),
	    "a failed fetch of the page keeps the message typed and the " +
	    "buttons");
	ok(await clickAction(page, "maint_on", async () => {
		const w = await apiJSON(WAKE);
		return w.maintenance && w.maintenance.message === mmsg;
	}), "the maintenance button puts " + WAKE + " in maintenance, " +
	    "with the message typed", JSON.stringify(await apiJSON(WAKE)));
	ok(await waitFor(async () => await apiState(WAKE) === "asleep",
	    15000), "... it is suspended");
	ok(await waitFor(() => page.$eval("#wl-state", (s, m) =>
	    s.textContent.indexOf("in maintenance: " + m) >= 0 &&
	    s.querySelector("script") === null, mmsg), 5000) &&
	    await page.evaluate(() => window.pwned === undefined),
	    "... its page says so, the message as text, never run");
	ok(await clickAction(page, "maint_off", async () => (await apiJSON(
	    WAKE)).maintenance === null), "... and the button that ends it");
	ok(await clickAction(page, "suspend", async () => await apiState(
	    WAKE) === "asleep"), "the suspend button suspends " + WAKE);
	ok(await clickAction(page, "wake", async () => await apiState(
	    WAKE) === "running"), "... and wake wakes it again");
	await page.goto(BASE + "/ui/#/w/" + XSSWL, { waitUntil: "load" });
	ok(await clickAction(page, "delete", async () => (await bearer("GET",
	    "/v1/workloads/" + XSSWL)).status === 404) && await waitFor(
	    async () => await page.$(
	    "#tbody tr[data-name=\"" + XSSWL + "\"]") === null &&
	    !await page.$eval("#list", (l) => l.hidden), 5000),
	    "the delete button deletes " + XSSWL + ", gone from the table");

	/* the README's picture: the table after the wakes, 1280 wide */
	await page.setViewport({ width: 1280, height: 420 });
	await page.goto(BASE + "/ui/#/", { waitUntil: "load" });
	await page.$eval("#filter", (i) => { i.value = "ui-"; i.dispatchEvent(
	    new Event("input")); });
	await sleep(500);
	await page.screenshot({ path: path.join(OUT, "readme.png") });
	if (env.SHOT)
		fs.copyFileSync(path.join(OUT, "readme.png"), env.SHOT);
	await page.setViewport({ width: 1920, height: 1080 });

	/* the host */
	await page.goto(BASE + "/ui/#/host", { waitUntil: "load" });
	await page.waitForSelector("#hostfacts dt, #host-note",
	    { timeout: 20000 });
	await sleep(500);
	const host = await page.evaluate(() => ({
		facts: Array.from(document.querySelectorAll("#hostfacts dt"))
		    .map((d) => d.textContent),
		charts: document.querySelectorAll("#memchart svg polyline, " +
		    "#ratechart svg polyline").length
	}));
	const note = await page.$eval("#host-note", (n) => n.textContent);
	ok(/orchd's last day|until orchd has two minutes/.test(note),
	    "the host view's charts: orchd's day from /v1/host/history, or " +
	    "the page's samples until it has two minutes", note);
	ok(host.facts.indexOf("Memory in use") >= 0 &&
	    host.facts.indexOf("Wakes per hour") >= 0 &&
	    host.facts.indexOf("Memory saved now by sleeping workloads") >= 0 &&
	    host.charts >= 2, "the host view: memory, savings and wakes " +
	    "from /metrics, with the session's cookie, drawn in SVG",
	    JSON.stringify(host));
	await shot(page, "host-1920");
	await axe(page, "the host view");

	/* 360 px wide */
	await page.setViewport({ width: 360, height: 740 });
	for (const [h, n] of [["#/", "workloads"], ["#/w/" + WAKE,
	    "workload"], ["#/host", "host"]]) {
		await page.goto(BASE + "/ui/" + h, { waitUntil: "load" });
		await sleep(300);
		const sw = await page.evaluate(() =>
		    document.documentElement.scrollWidth);
		ok(sw <= 362, "360 px: the " + n + " page does not scroll " +
		    "sideways (" + sw + ")");
		await shot(page, n + "-360");
	}
	await page.setViewport({ width: 1920, height: 1080 });

	/* keyboard: the first Tab stops are the skip link and the nav */
	await page.goto(BASE + "/ui/#/", { waitUntil: "load" });
	await page.reload({ waitUntil: "load" });
	await settled(page);
	const order = [];
	for (let i = 0; i < 4; i++) {
		await page.keyboard.press("Tab");
		order.push(await page.evaluate(() => document.activeElement.id ||
		    document.activeElement.textContent.trim()));
	}
	ok(order[0] === "Skip to content" && order[1] === "nav-list",
	    "keyboard: Tab goes to the skip link, then the views",
	    order.join(","));

	/* CSRF: POSTs with the cookie but without the token */
	const cookie = (await page.cookies()).filter((c) => c.value !==
	    "a".repeat(32)).map((c) => c.name + "=" + c.value).join("; ");
	const sessJ = JSON.parse((await req("GET", BASE + "/ui/session",
	    { headers: { Cookie: cookie } })).body);
	let r = await req("POST", BASE + "/v1/workloads/" + LIVE + "/suspend",
	    { headers: { Cookie: cookie } });
	ok(r.status === 403, "CSRF: an action with the cookie and no token " +
	    "is 403 (" + r.status + ")");
	r = await req("POST", BASE + "/v1/workloads/" + LIVE + "/suspend",
	    { headers: { Cookie: cookie, "X-CSRF-Token": "0" +
	    sessJ.csrf.slice(1) } });
	ok(r.status === 403, "CSRF: ... and with a wrong token (" + r.status +
	    ")");
	ok(await apiState(LIVE) === "running", "CSRF: ... " + LIVE +
	    " still runs");

	/* a cross-site form POST from a page of another origin */
	const evil = http.createServer((q, s) => {
		s.writeHead(200, { "Content-Type": "text/html" });
		s.end("<form id=f method=post action=\"" + BASE +
		    "/v1/workloads/" + LIVE + "/suspend\" enctype=text/plain>" +
		    "<input name=x value=y></form><form id=g method=post " +
		    "action=\"" + BASE + "/ui/logout\"></form><script>" +
		    "document.getElementById('f').submit()</script>");
	});
	await new Promise((res) => evil.listen(0, "127.0.0.1", res));
	const evilPage = await ctx.newPage();
	let xstatus = null;
	evilPage.on("response", (res) => {
		if (res.url().indexOf("/suspend") >= 0)
			xstatus = res.status();
	});
	await evilPage.goto("http://127.0.0.1:" + evil.address().port + "/",
	    { waitUntil: "load" }).catch(() => {});
	await waitFor(() => xstatus !== null, 5000);
	ok(xstatus === 403 || xstatus === 401, "cross-site form POST " +
	    "without the token: refused (" + xstatus + ")");
	ok(await apiState(LIVE) === "running", "... and " + LIVE +
	    " still runs");
	await evilPage.close();
	evil.close();
	r = await req("GET", BASE + "/ui/session", { headers: { Cookie:
	    cookie } });
	ok(r.status === 200, "... and the session is still there (" +
	    r.status + ")");

	/* /ui/../ */
	const port = new URL(BASE).port;
	for (const t of ["/ui/../etc/passwd", "/ui/%2e%2e/etc/passwd",
	    "/ui/..%2fv1/workloads", "/ui/app.js/../../v1/workloads"]) {
		const a = await raw(port, "GET " + t + " HTTP/1.1\r\nHost: " +
		    "a\r\nConnection: close\r\nCookie: " + cookie + "\r\n\r\n");
		const st = a.split(" ")[1];
		ok(st !== "200" && a.indexOf("root:") < 0 &&
		    a.indexOf("\"workloads\"") < 0, "GET " + t + ": no file, " +
		    "no API (" + st + ")");
	}

	/* read-only: no buttons, a forged POST is 403 */
	const ro = await browser.createBrowserContext();
	const rpage = await ro.newPage();
	const rlog = [];
	watch(rpage, rlog);
	await rpage.setViewport({ width: 1920, height: 1080 });
	await login(rpage, env.ROKEY);
	ok(await rpage.$eval("#list", (s) => !s.hidden) &&
	    await rpage.$eval("#role", (s) => s.textContent) ===
	    "Read-only session", "the read-only key logs in, read-only");
	await rpage.goto(BASE + "/ui/#/w/" + WAKE, { waitUntil:
	    "load" });
	await rpage.waitForSelector("#definition dd", { timeout: 20000 });
	ok(await rpage.$$eval("#main button", (b) => b.filter((x) =>
	    x.offsetParent !== null).length) === 0 &&
	    await rpage.$$eval("[data-action]", (b) => b.length) === 0,
	    "read-only: no action button");
	await shot(rpage, "workload-readonly");
	const forged = await rpage.evaluate(async (n) => {
		const s = await (await fetch("/ui/session")).json();
		const a = await fetch("/v1/workloads/" + n + "/suspend",
		    { method: "POST", credentials: "same-origin",
		    headers: { "X-CSRF-Token": s.csrf } });
		const b = await fetch("/v1/workloads/" + n, { method: "DELETE",
		    credentials: "same-origin",
		    headers: { "X-CSRF-Token": s.csrf } });
		return [s.readonly, a.status, b.status];
	}, WAKE);
	ok(forged[0] === true && forged[1] === 403 && forged[2] === 403,
	    "read-only: a forged suspend and delete with its token are 403",
	    JSON.stringify(forged));
	ok(await apiState(WAKE) === "running", "read-only: ... " + WAKE +
	    " still runs");
	ok(rlog.length === 0, "read-only: no console error",
	    rlog.join("; "));
	await ro.close();

	/* logout, and the cookie replayed after it */
	await page.goto(BASE + "/ui/#/", { waitUntil: "load" });
	await page.click("#logout");
	ok(await waitFor(() => page.$eval("#login", (s) => !s.hidden), 5000),
	    "log out: the login form again");
	r = await req("GET", BASE + "/v1/workloads", { headers:
	    { Cookie: cookie } });
	ok(r.status === 401, "the cookie replayed after logout: 401 (" +
	    r.status + ")");
	r = await req("GET", BASE + "/ui/session", { headers:
	    { Cookie: cookie } });
	ok(r.status === 401, "... and no session (" + r.status + ")");

	/* the console */
	const csp = log.filter((l) => l.indexOf("Content Security") >= 0 ||
	    l.indexOf("CSP") >= 0);
	ok(csp.length === 0, "no CSP violation", csp.join("; "));
	const errs = log.filter((l) => csp.indexOf(l) < 0);
	ok(errs.length === 0, "no console error", errs.join("; "));

	/* the page's weight as the browser received it */
	const cdp = await page.createCDPSession();
	await cdp.send("Network.enable");
	await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
	let bytes = 0;
	cdp.on("Network.loadingFinished", (e) => { bytes += e.encodedDataLength; });
	await page.goto(BASE + "/ui/", { waitUntil: "load" });
	console.log("# figure: page_transferred_bytes " + bytes + " bytes");
	ok(bytes > 0 && bytes < 100 * 1024, "the login page as transferred: " +
	    bytes + " bytes, under 100 KB");
	await ctx.close();
}

main().catch((e) => {
	failed++;
	console.log("not ok - the browser test ran to its end (" +
	    (e && e.stack || e) + ")");
}).finally(() => {
	console.log(passed + " passed, " + failed + " failed");
	process.exitCode = failed ? 1 : 0;
});
