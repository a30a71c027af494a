// Side-by-side benchmark on two real third-party applications that
// examples/mediawiki and examples/phpmyadmin set up on loopback (Debian's
// MediaWiki 1.39 on SQLite, Debian's phpMyAdmin 5.2 over MariaDB): each
// business action as ONE toolwright call of those deployments, the same
// action scripted through Playwright MCP's primitive tools (a call per step,
// element refs read from its snapshots, as an agent must drive it), and the
// floor: the Playwright library (playwright-core) doing the same action with
// the fewest round trips on the same Chromium with the same flags.
//
// Method (as realsite.mjs): one untimed warm-up run per side, whose answers
// must agree; then --runs runs per side, alternating the order every round,
// each after the same pause (--gap) and once no side's processes are busy
// (lib.mjs settle); medians. Each app is signed in once, untimed, on every
// side (toolwright: its sign_in tool, an env: given environment the other
// tools run in; Playwright MCP: its one page; the floor: one context per
// app), except the sign-in actions, which start signed out each run. The
// env: temporary reads (MediaWiki read and search) and the sign-ins (a new
// environment) start cold on every side: Playwright MCP's browser closed and
// reopened, the floor's page in a new context, untimed, as toolwright's new
// environment has an empty cache.
// Anything an action needs beforehand (a page to delete, a table to drop)
// is made untimed before each run.
//
//   node realapps.mjs --toolwright BIN [--runs 5] [--gap 1000] [--chromium PATH] [--out FILE] [--only TEXT]
//
// The apps must be running: examples/bench/realapps.sh starts them (and
// stops them after), builds toolwright and writes the RESULTS.md section.

import { readFileSync, writeFileSync, mkdtempSync, rmSync, statSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { textOf, round, recorder, ref, settle, realApps, startAppServer, toolwrightCall as toolwright, startPlaywrightMCP, startFloorBrowser, alternate, medians, defaultChromium, stepTimes } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");

function parseArgs(argv) {
  const o = { toolwright: "", md: "", merge: "", runs: 5, gap: 1000, chromium: "", out: "", only: "", wiki: "http://127.0.0.1:18301", pma: "http://127.0.0.1:18303", "pma-state": "/var/tmp/toolwright-apps/phpmyadmin" };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, "");
    if (!(k in o)) throw new Error(`unknown flag ${argv[i]}`);
    o[k] = argv[++i];
  }
  o.runs = Number(o.runs);
  o.gap = Number(o.gap);
  if (!o.toolwright) throw new Error("need --toolwright BIN");
  if (!o.chromium) o.chromium = defaultChromium();
  return o;
}
const opt = parseArgs(process.argv.slice(2));
const W = opt.wiki, P = opt.pma;
const MW = realApps.mediawiki, PMA = realApps.phpmyadmin;
const beacon = join(repo, "examples", "mediawiki", "uploads", "lighthouse-beacon.png");

// ---- Playwright MCP ------------------------------------------------------------

/** Runs script(rec, snap) on Playwright MCP, timed; its return value is the answer. */
async function playwright(client, script) {
  const rec = recorder(client);
  const snap = async () => textOf(await rec.call("browser_snapshot", {}));
  const t0 = performance.now();
  try {
    rec.run.data = await script(rec, snap);
  } catch (e) {
    // A failed run must not leave a dialog (a beforeunload after typing) blocking the next ones.
    await client.callTool({ name: "browser_handle_dialog", arguments: { accept: true } }).catch(() => {});
    throw e;
  }
  rec.run.ms = performance.now() - t0;
  return rec.run;
}

/**
 * Untimed: Playwright MCP's browser closed and opened again on about:blank, so the timed run starts
 * on a new context with an empty cache, as toolwright's env: temporary calls and its sign_in (a new
 * environment) do. It signs Playwright MCP out: the action signs it in again afterwards, untimed.
 */
const pwCold = async (client) => {
  await client.callTool({ name: "browser_close", arguments: {} });
  const r = await client.callTool({ name: "browser_navigate", arguments: { url: "about:blank" } });
  if (r.isError) throw new Error(`Playwright MCP: about:blank: ${textOf(r).slice(0, 300)}`);
};

/** The refs of every `- ROLE [ref=X]` line (named or not), in snapshot order. */
function refsOf(snapshot, role) {
  const out = [];
  for (const line of snapshot.split("\n")) {
    const m = new RegExp(`^\\s*- ${role}(?: "[^"]*")? \\[ref=([^\\]]+)\\]`).exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}
/**
 * The ref of the first textbox after the table cell "COL" (the value box of an insert form's
 * row for that column), as an agent reads the form: by the column's name, not by position
 * (phpMyAdmin's console adds a textbox of its own once its script has run).
 */
function boxOfColumn(snapshot, col) {
  const lines = snapshot.split("\n");
  const at = lines.findIndex((l) => l.trimStart().startsWith(`- cell ${JSON.stringify(col)} [ref=`));
  for (let i = at + 1; at >= 0 && i < lines.length; i++) {
    const m = /^\s*- textbox(?: "[^"]*")? \[ref=([^\]]+)\]/.exec(lines[i]);
    if (m) return m[1];
  }
  throw new Error(`Playwright MCP: no value box for the column ${col} in the snapshot`);
}
/** The texts of `- ROLE "TEXT"` lines matching re. */
function named(snapshot, role, re) {
  const out = [];
  for (const line of snapshot.split("\n")) {
    const m = new RegExp(`^\\s*- ${role} "((?:[^"\\\\]|\\\\.)*)"`).exec(line);
    if (m && re.test(m[1])) out.push(JSON.parse(`"${m[1]}"`));
  }
  return out;
}
const has = (snapshot, role, name) => { try { ref(snapshot, role, name); return true; } catch { return false; } };

/** Waits (another call each time) until the snapshot holds pred, as an agent polls a page that is still loading. */
async function snapUntil(rec, snap, pred, what) {
  let s = "";
  for (let i = 0; i < 20; i++) {
    s = await snap();
    if (pred(s)) return s;
    await rec.call("browser_wait_for", { time: 0.5 });
  }
  // What showed instead, for whoever reads the log (the table keeps the first line).
  if (process.env.RA_DEBUG) console.error("at the failure: " + textOf(await rec.call("browser_run_code_unsafe", { code: "async (page) => page.url() + ' pages ' + page.context().pages().map((p) => p.url()).join(' ') + ' cookies ' + (await page.context().cookies()).map((c) => c.name).join(' ')" })).slice(0, 600));
  console.error(`Playwright MCP: ${what} never showed; the last snapshot began:\n${process.env.RA_DEBUG ? s : s.slice(0, 1500)}`);
  throw new Error(`Playwright MCP: ${what} never showed`);
}

// ---- the floor -------------------------------------------------------------------

/**
 * The floor fills and submits a form in one script, but as the page sees a person (and toolwright's fill
 * and click) do it: each field focused, its value set, input and change fired; each box to tick clicked;
 * then the button focused (the last field loses the focus, as to a press) and clicked. Setting values
 * silently skipped the app's own handlers (MediaWiki's edit stash, phpMyAdmin's checks), so the floor did
 * less than the action. fields: [css, value] pairs.
 */
const typeAndSubmit = (page, fields, button, ticks = []) => page.evaluate(([fs, b, ts]) => {
  for (const [css, v] of fs) {
    const el = document.querySelector(css);
    el.focus();
    el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }
  for (const css of ts) if (!document.querySelector(css).checked) document.querySelector(css).click();
  const btn = document.querySelector(b);
  btn.focus();
  btn.click();
}, [fields, button, ticks]);
/** phpMyAdmin's insert form names a column's value box after the MD5 of the column's name. */
const pmaBox = (col) => `#insertForm [name="fields[multi_edit][0][${createHash("md5").update(col).digest("hex")}]"]`;

/** Signs a page in with the fewest round trips: the form filled and submitted by one script, then the next document. */
async function floorSignIn(page, app) {
  // Each document is used once parsed (DOMContentLoaded), as sign_in does:
  // the forms and the signed-in pages' markers are in their HTML.
  const dcl = { waitUntil: "domcontentloaded" };
  if (app === "mw") {
    await page.goto(`${W}/index.php?title=Special:UserLogin`, dcl);
    await Promise.all([page.waitForURL((u) => !u.href.includes("UserLogin"), dcl),
      typeAndSubmit(page, [["#wpName1", MW.user], ["#wpPassword1", MW.password]], "#wpLoginAttempt")]);
    return page.evaluate(() => document.querySelector("#pt-userpage a")?.textContent ?? "");
  }
  await page.goto(`${P}/index.php`, dcl);
  await Promise.all([page.waitForNavigation(dcl),
    typeAndSubmit(page, [["#input_username", PMA.user], ["#input_password", PMA.password]], "#input_go")]);
  await page.waitForSelector("#li_pma_version");
  return "signed in";
}

/** Times script(page) on a kept page (or, with fresh, a new context closed afterwards). */
async function floor(page, script) {
  const t0 = performance.now();
  const data = await script(page);
  return { calls: 0, bytes: 0, ms: performance.now() - t0, data };
}
/** Times script(page) on a page of a new context made beforehand, untimed (as toolwright's spare environment): an empty cache. */
async function floorCold(browser, script) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await ctx.newPage();
    const t0 = performance.now();
    const data = await script(page);
    return { calls: 0, bytes: 0, ms: performance.now() - t0, data };
  } finally {
    await ctx.close();
  }
}
async function floorFresh(browser, script) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const t0 = performance.now();
    const page = await ctx.newPage();
    const data = await script(page);
    return { calls: 0, bytes: 0, ms: performance.now() - t0, data };
  } finally {
    await ctx.close();
  }
}

// ---- untimed preparation -------------------------------------------------------------

const sql = (q) => execFileSync("mariadb", ["--no-defaults", `--socket=${opt["pma-state"]}/mysql.sock`, "-uroot", "-e", q]);

// ---- the actions -----------------------------------------------------------------------

const pwSignInMW = async (rec, snap) => {
  await rec.call("browser_navigate", { url: `${W}/index.php?title=Special:UserLogin` });
  const s = await snap();
  await rec.call("browser_type", { element: "Username", target: ref(s, "textbox", "Username"), text: MW.user });
  await rec.call("browser_type", { element: "Password", target: ref(s, "textbox", "Password"), text: MW.password });
  await rec.call("browser_click", { element: "Log in button", target: ref(s, "button", "Log in") });
  const after = await snapUntil(rec, snap, (x) => has(x, "link", MW.user), "the user link");
  return has(after, "link", MW.user) ? MW.user : "";
};
const pwSignInPMA = async (rec, snap) => {
  await rec.call("browser_navigate", { url: `${P}/index.php` });
  // A loaded machine may snapshot the page before its sign-in form shows: snapshots again until
  // it does, as an agent would (the form's boxes were missing from the first one at load 20).
  const form = (x) => has(x, "textbox", "Username:") && has(x, "textbox", "Password:") && has(x, "button", "Log in");
  const home = (x) => /Version information: 5\./.test(x);
  // Already signed in (the untimed sign-in after the sign-in action's own runs, which leave this
  // app signed in and the other signed out): nothing to do, as an agent would see.
  const s = await snapUntil(rec, snap, (x) => form(x) || home(x), "the sign-in form");
  if (!form(s)) return "signed in";
  await rec.call("browser_type", { element: "Username", target: ref(s, "textbox", "Username:"), text: PMA.user });
  await rec.call("browser_type", { element: "Password", target: ref(s, "textbox", "Password:"), text: PMA.password });
  await rec.call("browser_click", { element: "Log in button", target: ref(s, "button", "Log in") });
  await snapUntil(rec, snap, home, "the home page");
  return "signed in";
};

function actions(ctx) {
  const { twMW, twPMA, pwc, floorBrowser, pages } = ctx;
  let n = 0;
  // Uploaded files are named anew in each run of the bench: the wiki refuses a file identical to
  // the one a title already has ("an exact duplicate"), which an earlier run left there.
  const stamp = Date.now().toString(36);
  return [
    // ---- MediaWiki ----
    {
      name: "MediaWiki: sign in", app: "mw",
      tw: async () => {
        const r = await toolwright(twMW.client, "sign_in", { purpose: `bench${++n}` });
        await twMW.client.callTool({ name: "close_environment", arguments: { env_id: r.data.env_id } }); // untimed, after
        return r;
      },
      twAnswer: (d) => d.user === "[redacted:mw_user]" ? MW.user : d.user,
      // A sign-in starts cold on every side: toolwright's sign_in opens a new environment and the
      // floor signs in in a new context, so Playwright MCP's browser is closed and opened again.
      pwPrep: () => pwCold(pwc),
      pw: () => playwright(pwc, pwSignInMW),
      floor: () => floorFresh(floorBrowser, (page) => floorSignIn(page, "mw")),
    },
    {
      name: "MediaWiki: read a page", app: "mw",
      tw: () => toolwright(twMW.client, "read_page", { title: "Lighthouse 07" }),
      twAnswer: (d) => `${d.title}|${d.paragraphs.count}|${d.categories.items.join(",")}`,
      // read_page is env: temporary (a new context, an empty cache): every side starts cold.
      pwPrep: () => pwCold(pwc),
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${W}/index.php?title=Lighthouse_07` });
        const s = await snap();
        const title = /heading "([^"]+)" \[level=1\]/.exec(s)[1];
        const paragraphs = s.split("\n").filter((l) => /^\s*- paragraph \[ref=[^\]]+\]: /.test(l)).length;
        const cats = /- link "Categor(?:y|ies)" [^\n]*\n(?:[^\n]*\n)*?\s*- listitem [^\n]*\n\s*- link "([^"]+)"/.exec(s);
        return `${title}|${paragraphs}|${cats ? cats[1] : ""}`;
      }),
      floor: () => floorCold(floorBrowser, async (page) => {
        await page.goto(`${W}/index.php?title=Lighthouse_07`, { waitUntil: "domcontentloaded" }); // as read_page does
        return page.evaluate(() => `${document.querySelector("#firstHeading").textContent.trim()}|${document.querySelectorAll("#mw-content-text .mw-parser-output > p").length}|${[...document.querySelectorAll("#mw-normal-catlinks ul li a")].map((a) => a.textContent).join(",")}`);
      }),
    },
    {
      name: "MediaWiki: search, 3 result pages of 5", app: "mw",
      tw: () => toolwright(twMW.client, "search_pages", { query: "keeper", page_size: 5, max_pages: 3 }),
      twAnswer: (d) => d.results.items.map((r) => r.title).join(","),
      // search_pages is env: temporary too: every side starts cold.
      pwPrep: () => pwCold(pwc),
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${W}/index.php?title=Special:Search&fulltext=1&ns0=1&limit=5&search=keeper` });
        let s = await snap();
        const titles = [];
        for (let page = 1; ; page++) {
          titles.push(...named(s, "link", /^Lighthouse \d+$|^Harbour Guide$/).filter((t) => !titles.includes(t)));
          if (page === 3) break;
          const first = titles.length;
          await rec.call("browser_click", { element: "next 5 link", target: ref(s, "link", "next 5") });
          s = await snapUntil(rec, snap, (x) => named(x, "link", /^Lighthouse \d+$/).some((t) => !titles.includes(t)), "the next result page");
          if (titles.length !== first) break;
        }
        return titles.join(",");
      }),
      floor: () => floorCold(floorBrowser, async (page) => {
        let url = `${W}/index.php?title=Special:Search&fulltext=1&ns0=1&limit=5&search=keeper`;
        const titles = [];
        for (let i = 0; i < 3 && url; i++) {
          await page.goto(url);
          const r = await page.evaluate(() => ({ t: [...document.querySelectorAll(".mw-search-result-heading a")].map((a) => a.textContent), next: document.querySelector("a.mw-nextlink")?.href }));
          titles.push(...r.t);
          url = r.next;
        }
        return titles.join(",");
      }),
    },
    {
      name: "MediaWiki: edit a page (form)", app: "mw",
      tw: () => toolwright(twMW.client, "edit_page", { env_id: ctx.mwEnv, title: "Bench Page", text: `Bench text ${++n}.`, summary: "bench" }, true),
      twAnswer: (d) => d.title,
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${W}/index.php?title=Bench_Page&action=edit` });
        const s = await snap();
        await rec.call("browser_type", { element: "Wikitext editor", target: ref(s, "textbox", "Wikitext source editor"), text: `Bench text ${++n}.` });
        await rec.call("browser_type", { element: "Summary", target: ref(s, "textbox", "Summary:"), text: "bench" });
        // "Save page" on a new page, "Save changes" on one that exists.
        const save = has(s, "button", "Save changes") ? "Save changes" : "Save page";
        await rec.call("browser_click", { element: `${save} button`, target: ref(s, "button", save) });
        const after = await snapUntil(rec, snap, (x) => /heading "Bench Page" \[level=1\]/.test(x) && !has(x, "button", save), "the saved page");
        return /heading "([^"]+)" \[level=1\]/.exec(after)[1];
      }),
      floor: () => floor(pages.mw, async (page) => {
        await page.goto(`${W}/index.php?title=Bench_Page&action=edit`);
        await Promise.all([page.waitForURL((u) => !u.href.includes("action=")),
          typeAndSubmit(page, [["#wpTextbox1", `Bench text ${++n}.`], ["#wpSummary", "bench"]], "#wpSave")]);
        return page.evaluate(() => document.querySelector("#firstHeading").textContent.trim());
      }),
    },
    {
      name: "MediaWiki: upload a file", app: "mw",
      tw: () => toolwright(twMW.client, "upload_file", { env_id: ctx.mwEnv, file: "lighthouse-beacon.png", name: `Bench ${stamp}-${++n}.png`, description: "bench" }, true),
      twAnswer: () => "File page",
      pw: () => playwright(pwc, async (rec, snap) => {
        const name = `Bench ${stamp}-${++n}.png`;
        await rec.call("browser_navigate", { url: `${W}/index.php?title=Special:Upload` });
        const s = await snap();
        await rec.call("browser_click", { element: "Source filename button", target: ref(s, "button", "Source filename:") });
        await rec.call("browser_file_upload", { paths: [ctx.pwBeacon] });
        await rec.call("browser_type", { element: "Destination filename", target: ref(s, "textbox", "Destination filename:"), text: name });
        await rec.call("browser_type", { element: "Summary", target: ref(s, "textbox", "Summary:"), text: "bench" });
        await rec.call("browser_click", { element: "Ignore any warnings", target: ref(s, "checkbox", "Ignore any warnings") });
        await rec.call("browser_click", { element: "Upload file button", target: ref(s, "button", "Upload file") });
        await snapUntil(rec, snap, (x) => x.includes(`heading "File:${name}"`), "the file page");
        return "File page";
      }),
      floor: () => floor(pages.mw, async (page) => {
        const name = `Bench ${stamp}-${++n}.png`;
        await page.goto(`${W}/index.php?title=Special:Upload`);
        await page.setInputFiles("#wpUploadFile", beacon);
        await Promise.all([page.waitForURL((u) => u.href.includes("File:")),
          typeAndSubmit(page, [["#wpDestFile", name], ["#wpUploadDescription", "bench"]], "input[name=wpUpload]", ["#wpIgnoreWarning"])]);
        await page.waitForSelector(".fullMedia, .fullImageLink");
        return "File page";
      }),
    },
    {
      name: "MediaWiki: delete a page", app: "mw",
      prep: () => toolwright(twMW.client, "edit_page", { env_id: ctx.mwEnv, title: "Bench Delete", text: `To be deleted ${++n}.`, summary: "bench" }, true),
      tw: () => toolwright(twMW.client, "delete_page", { env_id: ctx.mwEnv, title: "Bench Delete", reason: "bench" }, true),
      twAnswer: (d) => d.heading,
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${W}/index.php?title=Bench_Delete&action=delete` });
        const s = await snap();
        await rec.call("browser_type", { element: "Reason", target: ref(s, "textbox", "Other/additional reason:"), text: "bench" });
        await rec.call("browser_click", { element: "Delete page button", target: ref(s, "button", "Delete page") });
        const after = await snapUntil(rec, snap, (x) => x.includes("has been deleted"), "the deletion notice");
        return /heading "([^"]+)" \[level=1\]/.exec(after)[1];
      }),
      floor: () => floor(pages.mw, async (page) => {
        await page.goto(`${W}/index.php?title=Bench_Delete&action=delete`);
        // MediaWiki answers the deletion's POST at the same URL: the next document, whatever its address.
        await Promise.all([page.waitForNavigation(), typeAndSubmit(page, [["input[name=wpReason]", "bench"]], "[name=wpConfirmB]")]);
        return page.evaluate(() => document.querySelector("#firstHeading").textContent.trim());
      }),
    },
    // ---- phpMyAdmin ----
    {
      name: "phpMyAdmin: sign in", app: "pma",
      tw: async () => {
        const r = await toolwright(twPMA.client, "sign_in", { purpose: `bench${++n}` });
        await twPMA.client.callTool({ name: "close_environment", arguments: { env_id: r.data.env_id } });
        return r;
      },
      twAnswer: () => "signed in",
      // Cold on every side, as MediaWiki's sign-in.
      pwPrep: () => pwCold(pwc),
      pw: () => playwright(pwc, pwSignInPMA),
      floor: () => floorFresh(floorBrowser, (page) => floorSignIn(page, "pma")),
    },
    {
      name: "phpMyAdmin: list databases", app: "pma",
      tw: () => toolwright(twPMA.client, "list_databases", { env_id: ctx.pmaEnv }),
      twAnswer: (d) => d.databases.items.map((x) => x.name).join(","),
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${P}/index.php?route=/server/databases` });
        const s = await snapUntil(rec, snap, (x) => /Databases/.test(x) && named(x, "link", /^harbour$/).length > 0, "the database list");
        // The databases table's name links are the ones followed by a structure URL.
        const names = [...s.matchAll(/- link "([^"]+)" \[ref=[^\]]+\][^\n]*:\n\s*- \/url: index\.php\?route=\/database\/structure&db=\1\n/g)].map((m) => m[1]);
        return [...new Set(names)].join(",");
      }),
      floor: () => floor(pages.pma, async (page) => {
        await page.goto(`${P}/index.php?route=/server/databases`);
        return page.evaluate(() => [...document.querySelectorAll("#page_content table tbody tr.db-row td.name a")].map((a) => a.textContent.trim()).join(","));
      }),
    },
    {
      name: "phpMyAdmin: list a database's tables", app: "pma",
      tw: () => toolwright(twPMA.client, "list_tables", { env_id: ctx.pmaEnv, database: "harbour" }),
      twAnswer: (d) => d.tables.items.map((x) => `${x.name}:${x.rows}`).join(","),
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${P}/index.php?route=/database/structure&db=harbour` });
        const s = await snapUntil(rec, snap, (x) => /- row "berths Browse/.test(x), "the table list");
        return [...s.matchAll(/- row "(\w+) Browse .*? Drop Drop ([\d,]+) InnoDB/g)].map((m) => `${m[1]}:${m[2]}`).join(",");
      }),
      floor: () => floor(pages.pma, async (page) => {
        await page.goto(`${P}/index.php?route=/database/structure&db=harbour`);
        return page.evaluate(() => [...document.querySelectorAll("#tablesForm tbody tr[id^=row_tbl_]")].map((r) => `${r.querySelector("th a").textContent.trim()}:${r.querySelector("td.tbl_rows").textContent.trim()}`).join(","));
      }),
    },
    {
      name: "phpMyAdmin: browse 3 pages of a table", app: "pma",
      tw: () => toolwright(twPMA.client, "browse_table", { env_id: ctx.pmaEnv, database: "harbour", table: "vessels", max_pages: 3 }),
      twAnswer: (d) => d.rows.items.map((r) => r[1]).join(","),
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${P}/index.php?route=/sql&db=harbour&table=vessels&pos=0` });
        let s = await snapUntil(rec, snap, (x) => named(x, "cell", /^Vessel \d+$/).length > 0, "the rows");
        const names = [];
        for (let page = 1; ; page++) {
          names.push(...named(s, "cell", /^Vessel \d+$/));
          if (page === 3) break;
          const last = names[names.length - 1];
          await rec.call("browser_click", { element: "Next page button", target: ref(s, "button", ">") });
          s = await snapUntil(rec, snap, (x) => { const v = named(x, "cell", /^Vessel \d+$/); return v.length > 0 && !v.includes(last); }, "the next page of rows");
        }
        return names.join(",");
      }),
      floor: () => floor(pages.pma, async (page) => {
        await page.goto(`${P}/index.php?route=/sql&db=harbour&table=vessels&pos=0`);
        // One script in the page: read, press Next, wait for the rows to be replaced, three times.
        return page.evaluate(() => new Promise((done) => {
          const names = [];
          const read = () => [...document.querySelectorAll("table.table_results tbody tr")].map((r) => r.querySelectorAll("td.data")[1].textContent);
          const step = (page) => {
            const rows = read();
            names.push(...rows);
            if (page === 3) { done(names.join(",")); return; }
            const last = rows[rows.length - 1];
            const seen = new MutationObserver(() => {
              const now = read();
              if (now.length && !now.includes(last)) { seen.disconnect(); step(page + 1); }
            });
            seen.observe(document.body, { childList: true, subtree: true });
            document.querySelector(".sqlqueryresults table.navigation input[name=navig][title=Next]").click();
          };
          step(1);
        }));
      }),
    },
    {
      name: "phpMyAdmin: insert a row (form)", app: "pma",
      tw: () => toolwright(twPMA.client, "insert_vessel", { env_id: ctx.pmaEnv, name: `Bench ${++n}`, kind: "tug", berth: 4, length_m: 12.5 }, true),
      twAnswer: (d) => d.message.replace(/\.\s*Inserted/, ". Inserted").replace(/\d+$/, "N"),
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${P}/index.php?route=/table/change&db=harbour&table=vessels` });
        const s = await snapUntil(rec, snap, (x) => refsOf(x, "textbox").length >= 5 && x.includes('- cell "length_m" [ref='), "the insert form");
        // The first row set's value boxes, found by their columns' names.
        const [name, kind, berth, length] = ["name", "kind", "berth_id", "length_m"].map((col) => boxOfColumn(s, col));
        await rec.call("browser_type", { element: "name value", target: name, text: `Bench ${++n}` });
        await rec.call("browser_type", { element: "kind value", target: kind, text: "tug" });
        await rec.call("browser_type", { element: "berth_id value", target: berth, text: "4" });
        await rec.call("browser_type", { element: "length_m value", target: length, text: "12.5" });
        const gos = refsOf(s, "button").filter((r) => s.includes(`button "Go" [ref=${r}]`));
        await rec.call("browser_click", { element: "Go button at the foot of the form", target: gos[gos.length - 1] });
        const after = await snapUntil(rec, snap, (x) => /1 row inserted\.[\s\S]{0,200}?Inserted row id: \d+/.test(x), "the insert message");
        return /1 row inserted\.[\s\S]{0,200}?Inserted row id: \d+/.test(after) ? "1 row inserted. Inserted row id: N" : "";
      }),
      floor: () => floor(pages.pma, async (page) => {
        await page.goto(`${P}/index.php?route=/table/change&db=harbour&table=vessels`);
        await typeAndSubmit(page, [[pmaBox("name"), `Bench ${++n}`], [pmaBox("kind"), "tug"], [pmaBox("berth_id"), "4"], [pmaBox("length_m"), "12.5"]], "#buttonYes");
        // The message's two sentences are apart by a line break, not a space, in innerText.
        await page.waitForFunction(() => /1 row inserted\.\s*Inserted row id: \d+/.test(document.body.innerText), null, { timeout: 60000 });
        return "1 row inserted. Inserted row id: N";
      }),
    },
    {
      name: "phpMyAdmin: export a table (download)", app: "pma",
      tw: () => toolwright(twPMA.client, "export_table", { env_id: ctx.pmaEnv, database: "harbour", table: "vessels", format: "sql" }),
      twAnswer: (d) => `${d.file.name}|${d.file.bytes > 1000}`,
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${P}/index.php?route=/table/export&db=harbour&table=vessels` });
        const s = await snapUntil(rec, snap, (x) => has(x, "button", "Export"), "the export form");
        const res = textOf(await rec.call("browser_click", { element: "Export button", target: ref(s, "button", "Export") }));
        let m = /Downloaded file (\S+) to "?([^"\n]+?)"?$/m.exec(res);
        for (let i = 0; !m && i < 20; i++) {
          const w = textOf(await rec.call("browser_wait_for", { time: 0.5 }));
          m = /Downloaded file (\S+) to "?([^"\n]+?)"?$/m.exec(w);
        }
        if (!m) throw new Error(`no download reported:\n${res}`);
        return `${m[1]}|${statSync(resolve(ctx.pwOut, m[2])).size > 1000}`;
      }),
      floor: () => floor(pages.pma, async (page) => {
        await page.goto(`${P}/index.php?route=/table/export&db=harbour&table=vessels`);
        // The format chosen as toolwright's select step chooses it (the value set, input and change), then Go.
        const [dl] = await Promise.all([page.waitForEvent("download"), typeAndSubmit(page, [["#plugins", "sql"]], "#buttonGo")]);
        const path = await dl.path();
        return `${dl.suggestedFilename()}|${statSync(path).size > 1000}`;
      }),
    },
    {
      name: "phpMyAdmin: drop a table (confirm)", app: "pma",
      prep: () => sql("CREATE TABLE IF NOT EXISTS harbour.bench_drop (id INT PRIMARY KEY)"),
      tw: () => toolwright(twPMA.client, "drop_table", { env_id: ctx.pmaEnv, database: "harbour", table: "bench_drop" }, true),
      twAnswer: (d) => `${d.dropped}`,
      pw: () => playwright(pwc, async (rec, snap) => {
        await rec.call("browser_navigate", { url: `${P}/index.php?route=/table/operations&db=harbour&table=bench_drop` });
        const s = await snapUntil(rec, snap, (x) => has(x, "link", "Delete the table (DROP)"), "the operations page");
        await rec.call("browser_click", { element: "Delete the table (DROP) link", target: ref(s, "link", "Delete the table (DROP)") });
        const d = await snapUntil(rec, snap, (x) => /dialog "Confirm"/.test(x) && has(x, "button", "OK"), "the confirmation");
        await rec.call("browser_click", { element: "OK button", target: ref(d, "button", "OK") });
        const after = await snapUntil(rec, snap, (x) => /route=\/database\/structure/.test(x) && /- row "berths Browse/.test(x), "the table list");
        return `${!/- row "bench_drop Browse/.test(after)}`;
      }),
      floor: () => floor(pages.pma, async (page) => {
        await page.goto(`${P}/index.php?route=/table/operations&db=harbour&table=bench_drop`);
        await page.click("#drop_tbl_anchor");
        await Promise.all([page.waitForURL(/route=\/database\/structure/), page.click(".ui-dialog .ui-dialog-buttonpane button >> text=OK")]);
        await page.waitForSelector("#tablesForm");
        return `${await page.evaluate(() => ![...document.querySelectorAll("#tablesForm tbody tr th a")].some((a) => a.textContent.trim() === "bench_drop"))}`;
      }),
    },
  ];
}

// ---- main --------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), "tw-realapps-bench-"));
const twMW = await startAppServer("toolwright-realapps-bench", opt.toolwright, "mediawiki", W, join(dir, "mediawiki"), opt.chromium);
const twPMA = await startAppServer("toolwright-realapps-bench", opt.toolwright, "phpmyadmin", P, join(dir, "phpmyadmin"), opt.chromium);
const pw = await startPlaywrightMCP("toolwright-realapps-bench", opt.chromium);
const floorSide = await startFloorBrowser(opt.chromium);
const report = { runs: opt.runs, gap_ms: opt.gap, toolwright: opt.toolwright, playwright_mcp: pw.client.getServerVersion()?.version ?? "?", actions: [] };
let signInPW = async () => {};
const pidsOf = () => [twMW.transport.pid, twPMA.transport.pid, pw.transport.pid, floorSide.pid].filter(Boolean);
try {
  // Playwright MCP uploads only from its own folder: the same file is put there.
  const pwBeacon = join(pw.outDir, "lighthouse-beacon.png");
  copyFileSync(beacon, pwBeacon);
  // Untimed: each side signed in to both apps once.
  // Untimed, so a first page that a loaded machine serves slowly (a cold PHP opcode cache) may be tried again.
  const untimedTries = async (f) => { for (let i = 1; ; i++) { try { return await f(); } catch (e) { if (i === 3) throw e; console.error(`untimed set-up, try ${i}: ${e.message.split("\n")[0]}`); } } };
  const mwEnv = (await untimedTries(() => toolwright(twMW.client, "sign_in", { purpose: "bench" }))).data.env_id;
  const pmaEnv = (await untimedTries(() => toolwright(twPMA.client, "sign_in", { purpose: "bench" }))).data.env_id;
  signInPW = async () => { await playwright(pw.client, pwSignInMW); await playwright(pw.client, pwSignInPMA); };
  await untimedTries(signInPW);
  const pages = {};
  for (const app of ["mw", "pma"]) {
    const c = await floorSide.browser.newContext({ viewport: { width: 1280, height: 800 } });
    pages[app] = await c.newPage();
    await untimedTries(() => floorSignIn(pages[app], app));
  }
  const ctx = { twMW, twPMA, pwc: pw.client, floorBrowser: floorSide.browser, pages, mwEnv, pmaEnv, pwBeacon, pwOut: pw.outDir };
  // The two apps' actions alternate, the sign-ins (which sign Playwright MCP out) last.
  const all = actions(ctx);
  const ordered = [1, 9, 3, 11, 2, 10, 5, 12, 4, 8, 7, 0, 6].map((i) => all[i]);
  // --merge: the actions an earlier run measured are kept (and not run again).
  if (opt.merge) for (const r of JSON.parse(readFileSync(opt.merge, "utf8")).actions) if (!r.failed) report.actions.push(r);
  const measured = new Set(report.actions.map((r) => r.action));
  for (const a of ordered.filter((x) => !measured.has(x.name) && (!opt.only || opt.only.split("|").some((o) => x.name.includes(o))))) {
   try {
    const sides = { toolwright: a.tw, playwright_mcp: a.pw, floor: a.floor };
    const prep = async (side) => {
      if (a.prep) await a.prep();
      if (side === "playwright_mcp" && a.pwPrep) await a.pwPrep();
    };
    // One untimed warm-up run each; the answers must agree.
    const warm = {};
    for (const side of Object.keys(sides)) { await prep(side); warm[side] = await sides[side](); }
    const answers = { toolwright: a.twAnswer(warm.toolwright.data), playwright_mcp: warm.playwright_mcp.data, floor: warm.floor.data };
    if (new Set(Object.values(answers)).size !== 1) throw new Error(`${a.name}: the sides disagree: ${JSON.stringify(answers)}`);
    const runs = await alternate(sides, opt.runs, async (side) => { await prep(side); await settle(pidsOf(), opt.gap); });
    // A sign-in action leaves Playwright MCP signed out of the other app's cookies: sign in again, untimed.
    if (a.pwPrep) await signInPW();
    const t = medians(runs.toolwright), p = medians(runs.playwright_mcp), f = medians(runs.floor);
    const row = {
      action: a.name, answer: answers.floor, toolwright: { ...t, code: runs.toolwright[0].code }, playwright_mcp: p, floor_ms: f.ms,
      bytes_ratio: Number((t.bytes / p.bytes).toFixed(3)), time_ratio: Number((t.ms / p.ms).toFixed(2)), floor_ratio: Number((t.ms / f.ms).toFixed(2)),
      pw_steps: runs.playwright_mcp[0].steps.map((s) => s.tool),
      tw_steps: (() => { try { return stepTimes(opt.toolwright, (a.app === "mw" ? twMW : twPMA).cfg, runs.toolwright); } catch (e) { return { error: e.message.split("\n")[0] }; } })(),
    };
    report.actions.push(row);
    writeMarkdown();
    console.error(`${a.name}: toolwright ${t.calls} call, ${t.bytes} B, ${t.ms} ms | Playwright MCP ${p.calls} calls, ${p.bytes} B, ${p.ms} ms | floor ${f.ms} ms | bytes ×${row.bytes_ratio}, time ×${row.time_ratio} of Playwright MCP, ×${row.floor_ratio} of the floor`);
   } catch (e) {
    // One action that fails on a side is reported as such; the others still run.
    console.error(`${a.name}: FAILED: ${e.message}`);
    report.actions.push({ action: a.name, failed: String(e.message).split("\n")[0].slice(0, 300) });
    writeMarkdown();
    if (a.pwPrep) await signInPW().catch(() => {});
   }
  }
} finally {
  await twMW.client.close().catch(() => {});
  await twPMA.client.close().catch(() => {});
  await pw.client.close().catch(() => {});
  await floorSide.browser.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  rmSync(pw.outDir, { recursive: true, force: true });
}

function markdown() {
  const ok = (x, limit) => (x <= limit ? `${x}` : `**${x}**`);
  const floorShare = (r) => { const x = Number((r.floor_ms / r.playwright_mcp.ms).toFixed(2)); return x > 0.5 ? `*${x}*` : `${x}`; };
  const done = report.actions.filter((r) => !r.failed);
  const lines = [
    `Real applications (examples/mediawiki: Debian's MediaWiki 1.39; examples/phpmyadmin: Debian's phpMyAdmin 5.2 over MariaDB 10.11), ${opt.runs} runs per side alternating, each after a ${opt.gap} ms pause and once no side was busy, medians; Playwright MCP server ${report.playwright_mcp}, the floor through playwright-core on the same Chromium. Targets: time ≤ 0.5 × Playwright MCP, ≤ 1.3 × the floor, bytes ≤ 0.10 × Playwright MCP (a miss in **bold**).`,
    "",
    "| action | toolwright calls | bytes | ms | Playwright MCP calls | bytes | ms | floor ms | bytes ÷ PW MCP | time ÷ PW MCP | time ÷ floor | floor ÷ PW MCP |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...report.actions.map((r) => r.failed ? `| ${r.action} | not measured: ${r.failed.replace(/\|/g, "\\|")} ||||||||||| ` :
      `| ${r.action} | ${r.toolwright.calls} (\`${r.toolwright.code}\`) | ${r.toolwright.bytes} | ${r.toolwright.ms} | ${r.playwright_mcp.calls} | ${r.playwright_mcp.bytes} | ${r.playwright_mcp.ms} | ${r.floor_ms} | ${ok(r.bytes_ratio, 0.1)} | ${ok(r.time_ratio, 0.5)} | ${ok(r.floor_ratio, 1.3)} | ${floorShare(r)} |`),
    "",
    "floor ÷ PW MCP is the share of Playwright MCP's time that doing the action at all takes (the floor's own time): where it is over 0.5 (in italics), the 0.5 target lies below the floor, and a tool that drives the same page the same way can meet it only by being faster than the floor.",
    "",
    "Floor: the same action through the Playwright library with the fewest round trips (a navigation, then one script in the page that reads, or fills and submits, and the next document or the in-place update awaited; its fills fire what typing fires, each field focused, its value set, input and change, and the button is focused before it is clicked, as toolwright's fill and click do), on a page kept signed in. MediaWiki's read and search are toolwright env: temporary tools (a new context for each call, an empty cache), and the sign-ins open a new environment, so on those four every side starts cold: Playwright MCP's browser closed and reopened on about:blank and the floor's page made in a new context, both untimed, before each run; the other actions run on every side in a kept, warm, signed-in page (toolwright: the env: given environment sign_in made). Playwright MCP: scripted as an agent must drive it (navigate, snapshot, refs from the snapshot, a call per click or field, snapshots again until the result shows).",
    "",
    "Playwright MCP's steps per action: " + done.map((r) => `${r.action}: ${r.pw_steps.join(" → ")}`).join("; "),
    "",
    "Where toolwright's time goes (medians of the timed runs' traces, ms: each top-level step, the server outside its steps, the MCP round trip): " +
      done.filter((r) => r.tw_steps).map((r) => r.tw_steps.error ? `${r.action}: traces not read (${r.tw_steps.error})` :
        `${r.action}: ${r.tw_steps.steps.map((x) => `${x.name} ${x.ms}`).join(" · ")} · outside the steps ${r.tw_steps.outside_steps_ms} · round trip ${r.tw_steps.transport_ms}`).join("; "),
  ];
  return lines.join("\n");
}
function writeMarkdown() { if (opt.md) writeFileSync(opt.md, markdown() + "\n"); }
console.log(markdown());
if (opt.out) writeFileSync(opt.out, JSON.stringify(report, null, 2) + "\n");
