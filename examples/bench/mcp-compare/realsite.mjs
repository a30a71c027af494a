// Side-by-side benchmark on the realistic shop (testdata/real/site): each
// business action of examples/realsite as ONE toolwright call against the
// same action scripted through Playwright MCP's primitive tools (one call
// per step, element refs read from its snapshots, as an agent would).
//
// Actions: read 25 new arrivals (an infinite list), read a product that
// opens in a new tab, place an order (cookie banner, checkbox, radios, a file
// upload, a confirm()), export the orders (a CSV download), clear the order
// history (a confirm()). Both sides are checked to get the same answer.
// Where the page's own timing bounds an action (the infinite list), a third
// side measures its floor: one script in the page through the Playwright
// library, with no tool between the steps (see the floor section).
// Reported per action: tool calls, bytes of tool-result content handed to the
// agent, wall time; medians over --runs runs that alternate the two sides,
// after one untimed warm-up run each. Every timed run starts after the same
// pause (--gap, 1 s: an agent's thinking time between actions) and once
// neither server is busy (lib.mjs settle, as in compare.mjs), so no run pays for the background work of the run before it
// on a shared machine: the alternation puts two toolwright runs back to back
// every other round, and the second then waited for the first's temporary
// environment to be disposed of and the spare to be refilled (about 200 ms
// on the infinite list), which an agent that thinks between calls never sees.
//
//   node realsite.mjs --toolwright BIN [--runs 5] [--gap 1000] [--chromium PATH] [--out FILE]
//
// The shop is served by this script on a loopback port; toolwright runs with
// examples/realsite's workflows and selector map on a temporary config.

import http from "node:http";
import { readFileSync, writeFileSync, mkdtempSync, rmSync, statSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, extname, resolve, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { textOf, round, median, recorder, ref, settle, startToolwrightServer, toolwrightCall as toolwright, startPlaywrightMCP, startFloorBrowser, alternate, medians, defaultChromium } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const siteDir = join(repo, "testdata", "real", "site");
const example = join(repo, "examples", "realsite");

function parseArgs(argv) {
  const o = { toolwright: "", runs: 5, gap: 1000, chromium: "", out: "", only: "" };
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

// ---- the shop --------------------------------------------------------------

const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".csv": "text/csv; charset=utf-8", ".txt": "text/plain" };

/** Serves the shop's static files; each call of orders.html starts a fresh history (no server state). */
function serveShop() {
  const srv = http.createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(siteDir, path === "/" ? "index.html" : path);
    if (!file.startsWith(siteDir)) { res.writeHead(403); res.end(); return; }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  return new Promise((ok) => srv.listen(0, "127.0.0.1", () => ok({ srv, base: `http://127.0.0.1:${srv.address().port}` })));
}

// ---- toolwright ------------------------------------------------------------

async function startToolwright(base, dir) {
  const cfg = join(dir, "toolwright.yaml");
  writeFileSync(cfg, [
    `workflows: ${JSON.stringify(join(example, "workflows"))}`,
    `selectors: ${JSON.stringify(join(example, "selectors.yaml"))}`,
    `uploads_dir: ${JSON.stringify(join(example, "uploads"))}`,
    `state_dir: ${JSON.stringify(join(dir, "state"))}`,
    `vars: {shop_base: ${JSON.stringify(base)}}`,
    `secrets: {nw_user: {env: NW_USER}, nw_password: {env: NW_PASSWORD}}`,
    `policy: {write_tools: enabled, allowed_hosts: ["127.0.0.1", "localhost"]}`,
    `browser: {bin: ${JSON.stringify(opt.chromium)}}`, // the binary Playwright MCP and the floor run
    "",
  ].join("\n"));
  return startToolwrightServer("toolwright-realsite-bench", opt.toolwright, cfg, { NW_USER: "hiker@example.com", NW_PASSWORD: "bench-password" });
}

// ---- the floor --------------------------------------------------------------

// The floor of an action is the least any client can take for it: the page
// loaded in a fresh context (as toolwright's temporary environment), then
// one script in the page doing the whole action, with no tool, protocol or
// model between the steps (the Playwright library drives the same
// Chromium, with toolwright's launch flags and window). Only the actions
// the page's own timing bounds have one (the infinite list).

/** Runs script(page) in a fresh context, timed from the navigation on; the answer is its return value. */
async function floor(browser, url, script) {
  const ctx = await browser.newContext({ viewport: null });
  try {
    const page = await ctx.newPage();
    const t0 = performance.now();
    await page.goto(url);
    const data = await script(page);
    return { calls: 0, bytes: 0, ms: performance.now() - t0, data };
  } finally {
    await ctx.close();
  }
}

// ---- Playwright MCP --------------------------------------------------------

/**
 * Runs script(rec, snap) on Playwright MCP; its return value is the answer.
 * Before it, unmeasured, the shop's consent cookie is removed: toolwright
 * runs each call in a fresh environment, so both sides meet the banner.
 */
async function playwright(client, script) {
  await client.callTool({ name: "browser_evaluate", arguments: { function: "() => { document.cookie = 'consent=; path=/; max-age=0'; }" } });
  const rec = recorder(client);
  const snap = async () => textOf(await rec.call("browser_snapshot", {}));
  const t0 = performance.now();
  rec.run.data = await script(rec, snap);
  rec.run.ms = performance.now() - t0;
  return rec.run;
}

/** The text after `- ROLE [ref=..]: ` lines, like the feed's articles. */
function texts(snapshot, role) {
  const out = [];
  for (const line of snapshot.split("\n")) {
    const m = new RegExp(`^\\s*- ${role} \\[ref=[^\\]]+\\]: (.*)$`).exec(line);
    if (m) out.push(m[1].replace(/^"(.*)"$/, "$1"));
  }
  return out;
}

/** The value after a label in a snapshot: `- generic [ref=..]: Price $179.00`, or the line after `- text: Shipping:`. */
function after(snapshot, label) {
  const lines = snapshot.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const same = new RegExp(`\\]: "?${label.replace(/[.*+?^${}()|[\]\\$]/g, "\\$&")} (.+?)"?$`).exec(lines[i]);
    if (same) return same[1];
    if (lines[i].trim() === `- text: ${label}`) {
      for (let j = i + 1; j < Math.min(i + 3, lines.length); j++) {
        const m = /: "?(.+?)"?$/.exec(lines[j]);
        if (m) return m[1];
      }
    }
  }
  throw new Error(`nothing after ${label} in:\n${snapshot}`);
}

let pwDownload = ""; // the path of the file Playwright MCP saved last

const arrival = (t) => { const m = /^(Arrival \d+) (NW-\d+)$/.exec(t); return m && { title: m[1], sku: m[2] }; };

// ---- the actions -------------------------------------------------------------

const actions = (base, pwFiles) => [
  {
    name: "read 25 new arrivals (infinite list)",
    tw: (c) => toolwright(c, "read_new_arrivals", { max_items: 25 }),
    twAnswer: (d) => d.items.rows.map((r) => r[d.items.columns.indexOf("sku")]).join(","),
    pw: (c) => playwright(c, async (rec, snap) => {
      await rec.call("browser_navigate", { url: `${base}/feed.html` });
      let items = texts(await snap(), "article").map(arrival).filter(Boolean);
      while (items.length < 25) {
        await rec.call("browser_press_key", { key: "End" });
        await rec.call("browser_wait_for", { text: `Arrival ${items.length + 1}` });
        items = texts(await snap(), "article").map(arrival).filter(Boolean);
      }
      return items.slice(0, 25).map((i) => i.sku).join(",");
    }),
    // In the page: scroll to the bottom whenever it grows, until 25 are there.
    floor: (b) => floor(b, `${base}/feed.html`, (page) => page.evaluate((want) => new Promise((done) => {
      const items = () => document.querySelectorAll("#feed article.feed-item");
      let height = 0;
      const look = () => {
        if (items().length >= want) {
          seen.disconnect();
          done([...items()].slice(0, want).map((a) => a.querySelector(".sku").textContent).join(","));
          return;
        }
        const h = document.documentElement.scrollHeight;
        if (h !== height) { height = h; scrollTo(0, h); }
      };
      const seen = new MutationObserver(look);
      seen.observe(document.body, { childList: true, subtree: true });
      look();
    }), 25)),
  },
  {
    name: "read a product (opens in a new tab)",
    tw: (c) => toolwright(c, "product_details", { product: "nw.products.open_tab.summit" }),
    twAnswer: (d) => `${d.name}|${d.price}|${d.stock}`,
    pw: (c) => playwright(c, async (rec, snap) => {
      await rec.call("browser_navigate", { url: `${base}/products.html` });
      const s = await snap();
      await rec.call("browser_click", { element: "Open Summit 45L Pack link", target: ref(s, "link", "Open Summit 45L Pack") });
      await rec.call("browser_tabs", { action: "select", index: 1 });
      await rec.call("browser_wait_for", { text: "$179.00" });
      const p = await snap();
      const name = /heading "([^"]+)" \[level=1\]/.exec(p)[1];
      const answer = `${name}|${after(p, "Price")}|${after(p, "In stock")}`;
      await rec.call("browser_tabs", { action: "close", index: 1 });
      return answer;
    }),
  },
  {
    name: "place an order (banner, checkbox, radios, upload, confirm)",
    tw: (c) => toolwright(c, "place_order", { shipping: "nw.order.shipping.express", gift_wrap: true, exemption: "exemption.txt" }, true),
    twAnswer: (d) => `${d.shipping}|${d.extras}|${d.exemption}|${/^NW-\d+$/.test(d.number)}`,
    pw: (c) => playwright(c, async (rec, snap) => {
      await rec.call("browser_navigate", { url: `${base}/order.html` });
      await rec.call("browser_wait_for", { text: "Accept all cookies" });
      let s = await snap();
      await rec.call("browser_click", { element: "Accept all cookies", target: ref(s, "button", "Accept all cookies") });
      await rec.call("browser_click", { element: "Gift wrap checkbox", target: ref(s, "checkbox", "Gift wrap") });
      await rec.call("browser_click", { element: "Newsletter checkbox", target: ref(s, "checkbox", "☑ Send me the newsletter") });
      await rec.call("browser_click", { element: "Express radio", target: ref(s, "radio", "Express (next day)") });
      await rec.call("browser_click", { element: "Invoice radio", target: ref(s, "radio", "Invoice (business accounts)") });
      await rec.call("browser_click", { element: "Exemption certificate file input", target: ref(s, "button", "Exemption certificate") });
      await rec.call("browser_file_upload", { paths: [join(pwFiles, "exemption.txt")] });
      s = await snap();
      // The shop asks to confirm: the click's answer shows the dialog as a
      // modal state. (A click that did not reach the button is tried again,
      // as an agent reading the answer would.)
      for (let tries = 0; ; tries++) {
        const placed = textOf(await rec.call("browser_click", { element: "Place order button", target: ref(s, "button", "Place order") }));
        if (/Modal state/i.test(placed) || tries >= 2) break;
        s = await snap();
      }
      await rec.call("browser_handle_dialog", { accept: true });
      await rec.call("browser_wait_for", { text: "placed" });
      s = await snap();
      const number = /heading "Order (NW-\d+) placed"/.exec(s)?.[1] ?? "";
      return `${after(s, "Shipping:")}|${after(s, "Extras:")}|${after(s, "Exemption:")}|${/^NW-\d+$/.test(number)}`;
    }),
  },
  {
    name: "export the orders (CSV download)",
    tw: (c) => toolwright(c, "export_orders", {}),
    twAnswer: (d) => `${d.csv.name}|${d.csv.bytes}`,
    // Unmeasured, once: the file itself, read through the reference's
    // MCP resource (resources/read), is the one Playwright MCP saved.
    check: async (c, d) => {
      const r = await c.readResource({ uri: d.csv.uri });
      if (r.contents?.[0]?.text !== readFileSync(pwDownload, "utf8")) throw new Error(`resources/read ${d.csv.uri} differs from Playwright MCP's file`);
    },
    pw: (c) => playwright(c, async (rec, snap) => {
      await rec.call("browser_navigate", { url: `${base}/orders.html` });
      const s = await snap();
      const res = textOf(await rec.call("browser_click", { element: "Export as CSV link", target: ref(s, "link", "Export as CSV") }));
      let m = /Downloaded file (\S+) to "?([^"\n]+?)"?$/m.exec(res);
      if (!m) {
        const w = textOf(await rec.call("browser_wait_for", { time: 1 }));
        m = /Downloaded file (\S+) to "?([^"\n]+?)"?$/m.exec(w);
      }
      if (!m) throw new Error(`no download reported:\n${res}`);
      pwDownload = resolve(pwFiles, m[2]);
      return `${m[1]}|${statSync(pwDownload).size}`;
    }),
  },
  {
    name: "clear the order history (confirm)",
    tw: (c) => toolwright(c, "clear_order_history", {}, true),
    twAnswer: (d) => `${d.cleared}|${d.asked}`,
    pw: (c) => playwright(c, async (rec, snap) => {
      await rec.call("browser_navigate", { url: `${base}/orders.html` });
      let s = await snap();
      const d = textOf(await rec.call("browser_click", { element: "Clear history button", target: ref(s, "button", "Clear history") }));
      await rec.call("browser_handle_dialog", { accept: true });
      s = await snap();
      const asked = /dialog with message "([^"]*)"/.exec(d)?.[1] ?? "";
      return `${!s.includes('table')}|${asked}`;
    }),
  },
];

// ---- main ------------------------------------------------------------------

const { srv, base } = await serveShop();
const dir = mkdtempSync(join(tmpdir(), "tw-realsite-bench-"));
const tw = await startToolwright(base, dir);
const pw = await startPlaywrightMCP("toolwright-realsite-bench", opt.chromium);
const floorSide = await startFloorBrowser(opt.chromium);
const floorBrowser = floorSide.browser;
const report = { runs: opt.runs, gap_ms: opt.gap, base, toolwright: opt.toolwright, playwright_mcp: pw.client.getServerVersion()?.version ?? "?", actions: [] };
try {
  // Playwright MCP uploads only from its own folder: the same file is put there.
  copyFileSync(join(example, "uploads", "exemption.txt"), join(pw.outDir, "exemption.txt"));
  await pw.client.callTool({ name: "browser_navigate", arguments: { url: `${base}/index.html` } });
  for (const a of actions(base, pw.outDir).filter((x) => !opt.only || x.name.includes(opt.only))) {
    // One untimed warm-up run each, then alternate.
    const w1 = await a.tw(tw.client), w2 = await a.pw(pw.client);
    if (a.twAnswer(w1.data) !== w2.data) throw new Error(`${a.name}: toolwright answered ${a.twAnswer(w1.data)}, Playwright MCP ${w2.data}`);
    if (a.check) await a.check(tw.client, w1.data);
    const sides = { toolwright: () => a.tw(tw.client), playwright_mcp: () => a.pw(pw.client) };
    if (a.floor) {
      const w3 = await a.floor(floorBrowser);
      if (w3.data !== w2.data) throw new Error(`${a.name}: the floor answered ${w3.data}, Playwright MCP ${w2.data}`);
      sides.floor = () => a.floor(floorBrowser);
    }
    const runs = await alternate(sides, opt.runs, () => settle([tw.transport.pid, pw.transport.pid, floorSide.pid].filter(Boolean), opt.gap));
    const t = medians(runs.toolwright), p = medians(runs.playwright_mcp);
    const row = { action: a.name, answer: w2.data, toolwright: { ...t, code: runs.toolwright[0].code }, playwright_mcp: p,
      bytes_ratio: Number((t.bytes / p.bytes).toFixed(3)), time_ratio: Number((t.ms / p.ms).toFixed(2)),
      pw_steps: runs.playwright_mcp[0].steps.map((s) => s.tool) };
    if (runs.floor) {
      row.floor_ms = round(median(runs.floor.map((r) => r.ms)));
      row.floor_ratio = Number((row.floor_ms / p.ms).toFixed(2));
    }
    report.actions.push(row);
    console.error(`${a.name}: toolwright ${t.calls} call, ${t.bytes} B, ${t.ms} ms | Playwright MCP ${p.calls} calls, ${p.bytes} B, ${p.ms} ms | bytes ×${row.bytes_ratio}, time ×${row.time_ratio}`);
  }
} finally {
  await tw.client.close().catch(() => {});
  await pw.client.close().catch(() => {});
  await floorBrowser.close().catch(() => {});
  srv.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(pw.outDir, { recursive: true, force: true });
}

const lines = [
  `Realistic shop (testdata/real/site), ${opt.runs} runs per side alternating, each after a ${opt.gap} ms pause and once neither server was busy, medians; Playwright MCP server ${report.playwright_mcp}. Targets: 1 call with a coded envelope, bytes ratio ≤ 0.1, time ratio ≤ 0.5.`,
  "",
  "| action | toolwright calls | bytes | ms | Playwright MCP calls | bytes | ms | bytes ratio | time ratio | floor ms (÷ Playwright MCP) |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...report.actions.map((r) => `| ${r.action} | ${r.toolwright.calls} (\`${r.toolwright.code}\`) | ${r.toolwright.bytes} | ${r.toolwright.ms} | ${r.playwright_mcp.calls} | ${r.playwright_mcp.bytes} | ${r.playwright_mcp.ms} | ${r.bytes_ratio} | ${r.time_ratio} | ${r.floor_ms === undefined ? "—" : `${r.floor_ms} (${r.floor_ratio})`} |`),
  "",
  "Floor: the least any client can take for the action, where the page's own timing bounds it (the infinite list loads 10 items 120 ms after each scroll to its end): the page loaded in a fresh context, then one script in the page scrolling to the bottom whenever it grows, through the Playwright library on the same Chromium with toolwright's launch flags and window; no tool, protocol or model between steps.",
  "",
  "Playwright MCP's steps per action: " + report.actions.map((r) => `${r.action}: ${r.pw_steps.join(" → ")}`).join("; "),
];
console.log(lines.join("\n"));
if (opt.out) writeFileSync(opt.out, JSON.stringify(report, null, 2) + "\n");
