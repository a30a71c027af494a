// Scripted MCP client for the toolwright benchmarks (examples/bench/run.sh).
//
// (a) The business action "sign in, search, read 3 result pages" on the Acme
//     demo site, done two ways by a scripted agent:
//       - toolwright: ONE call of the search_catalog tool (`toolwright serve`, stdio);
//       - toolwright on a kept environment (search_catalog_given, env: given);
//       - Playwright MCP: its primitive tools, one call per step, using the
//         element refs its snapshots return (`agent` below), plus a leaner
//         agent that batches what Playwright MCP lets it batch (`lean`), and
//         the same agent on a second Playwright MCP started with
//         --timeout-settle 0 (no wait after each action for it to settle).
//     Both servers are started once and warmed up (one untimed run each, which
//     launches their browser), then runs alternate, each after the same pause
//     (--gap, 1 s: an agent's thinking time between actions) and once every
//     server's processes are idle, so no run pays for the background work of
//     the run before it on a shared 2-core machine (a temporary environment's
//     disposal, the spare's refill, a peer's Chromium). Reported per run: tool
//     calls, bytes of tool-result content returned to the agent, wall time.
//     The rows read are checked to be the same 15 on both sides.
// (e) The wide page (/bench/wide?rows=N, N products × 8 fields): the bytes an
//     agent is handed to read it — toolwright's bench_wide_read (objects) and
//     bench_wide_table (format: table) against each peer's navigate + snapshot.
// (d) Throughput and memory on the toolwright server: 8 calls in parallel
//     (8 environments) vs 8 one at a time, and the RSS/PSS of the server's
//     Chromium processes with 0, 1 and 8 open environments.
//
// node compare.mjs --toolwright BIN --config CFG --base URL [--runs 7] [--query ACM]
//                  [--pages 3] [--chromium PATH] [--out FILE] [--skip pw,pw0,lean,cdt,kept,wide,load,mem]
//                  [--pw-settle MS] [--parallel 8] [--rounds 3] [--gap MS]
// ACME_USER and ACME_PASSWORD must be set (toolwright reads them as secrets;
// the Playwright agent types them, as an agent given them would).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { contentBytes, resultBytes, textOf, round, median, recorder, ref, descendants, treeCPU, settle, defaultChromium } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const o = { runs: 7, query: "ACM", pages: 3, chromium: "", out: "", parallel: 8, rounds: 3, skip: "", "pw-settle": "", gap: 1000 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, "");
    if (!(k in o) && !["toolwright", "config", "base"].includes(k)) throw new Error(`unknown flag ${argv[i]}`);
    o[k] = argv[++i];
  }
  for (const k of ["runs", "pages", "parallel", "rounds", "gap"]) o[k] = Number(o[k]);
  o.pwSettle = o["pw-settle"];
  if (!o.toolwright || !o.config || !o.base) throw new Error("need --toolwright, --config and --base");
  if (!o.chromium) o.chromium = defaultChromium();
  return o;
}

const opt = parseArgs(process.argv.slice(2));
const user = process.env.ACME_USER, password = process.env.ACME_PASSWORD;
if (!user || !password) throw new Error("set ACME_USER and ACME_PASSWORD");
const skip = new Set(opt.skip.split(",").filter(Boolean)); // "pw", "pw0", "lean", "cdt", "kept", "wide", "load", "mem"

// ---- measuring: lib.mjs ------------------------------------------------------

// ---- toolwright ------------------------------------------------------------

async function startToolwright() {
  const transport = new StdioClientTransport({
    command: opt.toolwright,
    args: ["--config", opt.config, "--log-level", "warn", "serve"],
    env: { ...process.env, ACME_USER: user, ACME_PASSWORD: password },
    stderr: "inherit",
  });
  const client = new Client({ name: "toolwright-bench", version: "0" });
  await client.connect(transport);
  return { client, transport };
}

async function toolwrightRun(client, tool = "search_catalog", extra = {}) {
  const rec = recorder(client);
  const t0 = performance.now();
  const res = await rec.call(tool, { query: opt.query, max_pages: opt.pages, ...extra });
  rec.run.ms = performance.now() - t0;
  const env = res.structuredContent ?? JSON.parse(textOf(res));
  rec.run.rows = (env.data?.rows?.items ?? []).map((r) => ({ sku: r.sku, name: r.name, price: r.price }));
  rec.run.data = env.data;
  return rec.run;
}

// ---- Playwright MCP --------------------------------------------------------

async function startPlaywright(settle = opt.pwSettle) {
  const outDir = mkdtempSync(join(tmpdir(), "pw-mcp-out-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(here, "node_modules", "@playwright", "mcp", "cli.js"),
      "--executable-path", opt.chromium, "--headless", "--isolated", "--no-sandbox",
      "--output-dir", outDir,
      // Playwright MCP waits up to 500 ms after each action for the work it
      // triggered to settle; --pw-settle MS changes that (default: leave it).
      ...(settle !== "" ? ["--timeout-settle", String(settle)] : [])],
    env: { ...process.env },
    cwd: outDir,
    stderr: "inherit",
  });
  const client = new Client({ name: "toolwright-bench", version: "0" });
  await client.connect(transport);
  return { client, transport, outDir };
}

/** The product rows of a snapshot's results table: cells SKU, name, price. */
function rowsFromSnapshot(snapshot) {
  const rows = [];
  let cur = null;
  for (const line of snapshot.split("\n")) {
    if (/^\s*- row\b/.test(line)) {
      cur = [];
      rows.push(cur);
      continue;
    }
    const m = /^\s*- '?cell "((?:[^"\\]|\\.)*)"/.exec(line);
    if (m && cur) cur.push(JSON.parse(`"${m[1]}"`));
  }
  return rows.filter((c) => c.length >= 3 && /^ACM-\d{4}$/.test(c[0]))
    .map(([sku, name, price]) => ({ sku, name, price }));
}

const pageInfo = (p) => `Page ${p} of`;

/**
 * The agent as the brief describes it: one call per step, reading refs from
 * snapshots. navigate, snapshot, type email, type password, click Sign in,
 * snapshot, type query, press Enter, then per page: wait for "Page N of",
 * snapshot (read the rows and the Next ref), click Next.
 */
async function playwrightAgent(client) {
  const rec = recorder(client);
  const t0 = performance.now();
  const snap = async () => textOf(await rec.call("browser_snapshot", {}));
  await rec.call("browser_navigate", { url: `${opt.base}/login.html` });
  let s = await snap();
  await rec.call("browser_type", { element: "Email textbox", target: ref(s, "textbox", "Email"), text: user });
  await rec.call("browser_type", { element: "Password textbox", target: ref(s, "textbox", "Password"), text: password });
  await rec.call("browser_click", { element: "Sign in button", target: ref(s, "button", "Sign in") });
  s = await snap();
  await rec.call("browser_type", { element: "Search catalog box", target: ref(s, "searchbox", "Search catalog"), text: opt.query });
  await rec.call("browser_press_key", { key: "Enter" });
  const rows = [];
  for (let p = 1; ; p++) {
    await rec.call("browser_wait_for", { text: pageInfo(p) });
    s = await snap();
    rows.push(...rowsFromSnapshot(s));
    if (p >= opt.pages) break;
    await rec.call("browser_click", { element: "Next button", target: ref(s, "button", "Next") });
  }
  rec.run.ms = performance.now() - t0;
  rec.run.rows = rows;
  return rec.run;
}

/**
 * A leaner agent: fills both sign-in fields in one browser_fill_form call,
 * submits the query with type(submit: true), and snapshots straight after
 * each action, waiting (and snapshotting again) only when the page is not
 * there yet. Fewer calls than one per step; the least a snapshot-driven
 * agent can do here.
 */
async function playwrightLean(client) {
  const rec = recorder(client);
  const t0 = performance.now();
  const snap = async () => textOf(await rec.call("browser_snapshot", {}));
  await rec.call("browser_navigate", { url: `${opt.base}/login.html` });
  let s = await snap();
  await rec.call("browser_fill_form", {
    fields: [
      { name: "Email", type: "textbox", target: ref(s, "textbox", "Email"), value: user },
      { name: "Password", type: "textbox", target: ref(s, "textbox", "Password"), value: password },
    ],
  });
  await rec.call("browser_click", { element: "Sign in button", target: ref(s, "button", "Sign in") });
  s = await snap();
  await rec.call("browser_type", { element: "Search catalog box", target: ref(s, "searchbox", "Search catalog"), text: opt.query, submit: true });
  const rows = [];
  for (let p = 1; ; p++) {
    s = await snap();
    if (!s.includes(pageInfo(p))) {
      await rec.call("browser_wait_for", { text: pageInfo(p) });
      s = await snap();
    }
    rows.push(...rowsFromSnapshot(s));
    if (p >= opt.pages) break;
    await rec.call("browser_click", { element: "Next button", target: ref(s, "button", "Next") });
  }
  rec.run.ms = performance.now() - t0;
  rec.run.rows = rows;
  return rec.run;
}


// ---- chrome-devtools-mcp ----------------------------------------------------

/** Starts chrome-devtools-mcp as shipped (headless, isolated profile, the system Chromium), with its usage statistics, CrUX lookups and update checks off (no internet here). */
async function startChromeDevtools() {
  const bin = join(here, "node_modules", "chrome-devtools-mcp", "build", "src", "bin", "chrome-devtools-mcp.js");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "--headless", "--isolated", "--executablePath", opt.chromium,
      "--usageStatistics=false", "--performanceCrux=false",
      "--chromeArg=--no-sandbox", "--chromeArg=--disable-gpu"],
    env: { ...process.env, CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: "1", CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: "1" },
    stderr: "ignore",
  });
  const client = new Client({ name: "toolwright-bench", version: "0" });
  await client.connect(transport);
  const version = client.getServerVersion()?.version ?? "?";
  return { client, transport, version };
}

/** The uid of the first snapshot line `uid=X ROLE "NAME"`. */
function uid(snapshot, role, name) {
  for (const line of snapshot.split("\n")) {
    const m = /^\s*uid=(\S+) (\S+) "((?:[^"\\]|\\.)*)"/.exec(line);
    if (m && m[2] === role && JSON.parse(`"${m[3]}"`) === name) return m[1];
  }
  throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot}`);
}

/** The product rows of a chrome-devtools-mcp snapshot: the texts after each SKU. */
function rowsFromUidSnapshot(snapshot) {
  const texts = [];
  for (const line of snapshot.split("\n")) {
    const m = /^\s*uid=\S+ "((?:[^"\\]|\\.)*)"\s*$/.exec(line);
    if (m) texts.push(JSON.parse(`"${m[1]}"`));
  }
  const rows = [];
  for (let i = 0; i + 2 < texts.length; i++) {
    if (/^ACM-\d{4}$/.test(texts[i])) rows.push({ sku: texts[i], name: texts[i + 1], price: texts[i + 2] });
  }
  return rows;
}

/**
 * The same agent on chrome-devtools-mcp: navigate, snapshot, fill email,
 * fill password, click Sign in, wait for the catalog (its answer is a
 * snapshot), fill the query, press Enter, then per page: wait for "Page N of"
 * (read the rows and the Next uid from its snapshot), click Next.
 */
async function devtoolsAgent(client) {
  const rec = recorder(client);
  const page = { pageId: 1 };
  const t0 = performance.now();
  await rec.call("navigate_page", { ...page, type: "url", url: `${opt.base}/login.html` });
  let s = textOf(await rec.call("take_snapshot", page));
  await rec.call("fill", { ...page, uid: uid(s, "textbox", "Email"), value: user });
  await rec.call("fill", { ...page, uid: uid(s, "textbox", "Password"), value: password });
  await rec.call("click", { ...page, uid: uid(s, "button", "Sign in") });
  s = textOf(await rec.call("wait_for", { ...page, text: ["Signed in as"] }));
  await rec.call("fill", { ...page, uid: uid(s, "searchbox", "Search catalog"), value: opt.query });
  await rec.call("press_key", { ...page, key: "Enter" });
  const rows = [];
  for (let p = 1; ; p++) {
    s = textOf(await rec.call("wait_for", { ...page, text: [pageInfo(p)] }));
    rows.push(...rowsFromUidSnapshot(s));
    if (p >= opt.pages) break;
    await rec.call("click", { ...page, uid: uid(s, "button", "Next") });
  }
  rec.run.ms = performance.now() - t0;
  rec.run.rows = rows;
  return rec.run;
}

// ---- the wide page ------------------------------------------------------------

/** Bytes an agent is handed to read the wide page of n rows, on each server. */
async function widePage(tw, peers, counts) {
  const out = {};
  for (const n of counts) {
    const url = `${opt.base}/bench/wide?rows=${n}`;
    const last = `WID-${String(n).padStart(4, "0")}`;
    const row = {};
    const open = await tw.client.callTool({ name: "bench_wide_open", arguments: { rows: n } });
    const envId = (open.structuredContent ?? JSON.parse(textOf(open))).data.env_id;
    for (const [name, tool] of [["toolwright_objects", "bench_wide_read"], ["toolwright_table", "bench_wide_table"]]) {
      const rec = recorder(tw.client);
      const res = await rec.call(tool, { env_id: envId });
      const data = (res.structuredContent ?? JSON.parse(textOf(res))).data;
      if (data.rows.count !== n) throw new Error(`${tool} read ${data.rows.count} rows of ${n}`);
      row[name] = { calls: rec.run.calls, bytes: rec.run.bytes, result_bytes: rec.run.resultBytes };
    }
    await tw.client.callTool({ name: "close_environment", arguments: { env_id: envId } });
    for (const [name, p] of Object.entries(peers)) {
      if (!p) continue;
      const rec = recorder(p.client);
      let text;
      if (name === "chrome_devtools") {
        await rec.call("navigate_page", { pageId: 1, type: "url", url });
        text = textOf(await rec.call("take_snapshot", { pageId: 1 }));
      } else {
        await rec.call("browser_navigate", { url });
        text = textOf(await rec.call("browser_snapshot", {}));
      }
      if (!text.includes(last)) throw new Error(`${name}: the snapshot of ${n} rows lacks ${last}`);
      row[name] = { calls: rec.run.calls, bytes: rec.run.bytes, result_bytes: rec.run.resultBytes, snapshot_bytes: Buffer.byteLength(text, "utf8") };
    }
    out[n] = row;
  }
  return out;
}

// ---- Chromium memory -------------------------------------------------------

/** RSS and PSS (kB) summed over the Chromium processes under root. */
function chromiumMemory(root) {
  let rss = 0, pss = 0, n = 0;
  for (const p of descendants(root)) {
    let cmd = "";
    try { cmd = readFileSync(`/proc/${p.pid}/cmdline`, "utf8"); } catch { continue; }
    if (!/chrom/i.test(p.comm) && !/chrom/i.test(cmd)) continue;
    try {
      const status = readFileSync(`/proc/${p.pid}/status`, "utf8");
      const r = /VmRSS:\s+(\d+) kB/.exec(status);
      if (!r) continue; // a zombie
      rss += Number(r[1]);
      const rollup = readFileSync(`/proc/${p.pid}/smaps_rollup`, "utf8");
      const q = /^Pss:\s+(\d+) kB/m.exec(rollup);
      if (q) pss += Number(q[1]);
      n++;
    } catch { /* gone */ }
  }
  return { rss_mb: round(rss / 1024), pss_mb: round(pss / 1024), processes: n };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Memory once the process tree is quiet: the median of a few samples. */
async function settledMemory(root) {
  await sleep(1500);
  const samples = [];
  for (let i = 0; i < 3; i++) {
    samples.push(chromiumMemory(root));
    await sleep(300);
  }
  return {
    rss_mb: median(samples.map((s) => s.rss_mb)),
    pss_mb: median(samples.map((s) => s.pss_mb)),
    processes: median(samples.map((s) => s.processes)),
  };
}

// ---- main ------------------------------------------------------------------

const key = (rows) => JSON.stringify(rows.map((r) => [r.sku, r.name, r.price]));

async function main() {
  const result = { runs: opt.runs, gap_ms: opt.gap, query: opt.query, pages: opt.pages, node: process.version };
  const tw = await startToolwright();
  result.toolwright_tools = (await tw.client.listTools()).tools.length;
  const pw = skip.has("pw") ? null : await startPlaywright();
  // The same agent on a Playwright MCP that does not wait for actions to
  // settle (--timeout-settle 0): its waits are then only the agent's wait_for.
  const pw0 = skip.has("pw") || skip.has("pw0") ? null : await startPlaywright("0");
  // chrome-devtools-mcp, when it is installed and starts on this Node.
  let cdt = null;
  if (!skip.has("cdt")) {
    try {
      cdt = await startChromeDevtools();
      await devtoolsAgent(cdt.client); // warm-up: launches its browser
      result.chrome_devtools_mcp = cdt.version;
    } catch (e) {
      result.chrome_devtools_error = String(e.message ?? e).split("\n")[0];
      console.error("compare: chrome-devtools-mcp does not run here:", result.chrome_devtools_error);
      if (cdt) await cdt.client.close().catch(() => {});
      cdt = null;
    }
  }

  // Warm-up: launches each server's browser.
  const twWarm = await toolwrightRun(tw.client);
  result.toolwright_first_call_ms = round(twWarm.ms);
  if (pw) {
    const pwWarm = await playwrightAgent(pw.client);
    result.playwright_first_run_ms = round(pwWarm.ms);
  }
  if (pw0) await playwrightAgent(pw0.client);

  // toolwright on a kept environment (env: given), like Playwright MCP's kept context.
  const kept = skip.has("kept") ? null : (await toolwrightRun(tw.client, "search_catalog_open", { purpose: "kept" })).data.env_id;
  if (kept) await toolwrightRun(tw.client, "search_catalog_given", { env_id: kept }); // warm-up
  const runs = { toolwright: [], toolwright_kept: [], playwright: [], playwright_lean: [], playwright_settle0: [], chrome_devtools: [] };
  // CPU of the server's whole process tree (server + its Chromium) during one run.
  // Each timed run starts the same way, whoever ran before it (lib.mjs settle).
  const servers = [tw, pw, pw0, cdt].filter(Boolean).map((s) => s.transport.pid);
  const withCPU = async (pid, fn) => {
    await settle(servers, opt.gap);
    const c0 = treeCPU(pid);
    const run = await fn();
    run.cpu = treeCPU(pid) - c0;
    return run;
  };
  for (let i = 0; i < opt.runs; i++) {
    runs.toolwright.push(await withCPU(tw.transport.pid, () => toolwrightRun(tw.client)));
    if (kept) runs.toolwright_kept.push(await withCPU(tw.transport.pid, () => toolwrightRun(tw.client, "search_catalog_given", { env_id: kept })));
    if (pw) runs.playwright.push(await withCPU(pw.transport.pid, () => playwrightAgent(pw.client)));
    if (pw && !skip.has("lean")) runs.playwright_lean.push(await withCPU(pw.transport.pid, () => playwrightLean(pw.client)));
    if (pw0) runs.playwright_settle0.push(await withCPU(pw0.transport.pid, () => playwrightAgent(pw0.client)));
    if (cdt) runs.chrome_devtools.push(await withCPU(cdt.transport.pid, () => devtoolsAgent(cdt.client)));
  }
  const want = key(runs.toolwright[0].rows);
  const summary = {};
  for (const [name, rs] of Object.entries(runs)) {
    if (!rs.length) continue;
    for (const r of rs) {
      if (r.rows.length !== opt.pages * 5) throw new Error(`${name}: ${r.rows.length} rows, want ${opt.pages * 5}`);
      if (key(r.rows) !== want) throw new Error(`${name} read other rows than toolwright:\n${key(r.rows)}\n${want}`);
    }
    summary[name] = {
      calls: median(rs.map((r) => r.calls)),
      bytes: median(rs.map((r) => r.bytes)),
      result_bytes: median(rs.map((r) => r.resultBytes)),
      median_ms: round(median(rs.map((r) => r.ms))),
      median_cpu_s: round(median(rs.map((r) => r.cpu)) * 100) / 100,
      runs_ms: rs.map((r) => round(r.ms)),
      steps: rs[rs.length - 1].steps,
    };
  }
  if (kept) {
    const res = await tw.client.callTool({ name: "close_environment", arguments: { env_id: kept } });
    if (res.isError) throw new Error(`close_environment: ${textOf(res)}`);
  }
  result.same_rows = true;
  result.rows = runs.toolwright[0].rows;
  result.action = summary;
  if (!skip.has("wide")) result.wide = await widePage(tw, { playwright: pw, chrome_devtools: cdt }, [5, 50, 200]);
  if (cdt) await cdt.client.close();
  for (const p of [pw, pw0]) {
    if (!p) continue;
    await p.client.close();
    rmSync(p.outDir, { recursive: true, force: true });
  }

  // (d) throughput: 8 at once vs 8 one at a time, on the warm toolwright server.
  // A failure here (a machine too loaded for 8 browsers at once) is recorded,
  // and the results above are kept.
  if (!skip.has("load")) try {
    const seq = [], par = [], seqCPU = [], parCPU = [];
    const pid = tw.transport.pid;
    for (let r = 0; r < opt.rounds; r++) {
      let c0 = treeCPU(pid);
      let t0 = performance.now();
      for (let i = 0; i < opt.parallel; i++) {
        const run = await toolwrightRun(tw.client);
        if (key(run.rows) !== want) throw new Error("sequential call read other rows");
      }
      seq.push(performance.now() - t0);
      seqCPU.push(treeCPU(pid) - c0);
      c0 = treeCPU(pid);
      t0 = performance.now();
      const all = await Promise.all(Array.from({ length: opt.parallel }, () => toolwrightRun(tw.client)));
      par.push(performance.now() - t0);
      parCPU.push(treeCPU(pid) - c0);
      for (const run of all) if (key(run.rows) !== want) throw new Error("parallel call read other rows");
    }
    result.throughput = {
      calls: opt.parallel,
      rounds: opt.rounds,
      sequential_ms: seq.map(round),
      parallel_ms: par.map(round),
      median_sequential_ms: round(median(seq)),
      median_parallel_ms: round(median(par)),
      // CPU seconds of server + Chromium per call
      cpu_s_per_call_sequential: round(median(seqCPU) / opt.parallel * 100) / 100,
      cpu_s_per_call_parallel: round(median(parCPU) / opt.parallel * 100) / 100,
    };
  } catch (e) {
    result.throughput_error = String(e.message ?? e).split("\n")[0].slice(0, 300);
    console.error("compare: throughput:", result.throughput_error);
  }

  // (d) memory: environments that stay open (search_catalog_open, env: new).
  if (!skip.has("mem")) try {
    const pid = tw.transport.pid;
    const mem = { env0: await settledMemory(pid) };
    const open = async (i) => {
      const run = await toolwrightRun(tw.client, "search_catalog_open", { purpose: `bench${i}` });
      if (key(run.rows) !== want) throw new Error("search_catalog_open read other rows");
      return run.data.env_id;
    };
    const envs = [await open(1)];
    mem.env1 = await settledMemory(pid);
    for (let i = 2; i <= opt.parallel; i++) envs.push(await open(i));
    mem[`env${opt.parallel}`] = await settledMemory(pid);
    mem.per_env_marginal_rss_mb = round((mem[`env${opt.parallel}`].rss_mb - mem.env1.rss_mb) / (opt.parallel - 1));
    mem.per_env_marginal_pss_mb = round((mem[`env${opt.parallel}`].pss_mb - mem.env1.pss_mb) / (opt.parallel - 1));
    mem.per_env_total_rss_mb = round(mem[`env${opt.parallel}`].rss_mb / opt.parallel);
    mem.per_env_total_pss_mb = round(mem[`env${opt.parallel}`].pss_mb / opt.parallel);
    for (const id of envs) {
      const res = await tw.client.callTool({ name: "close_environment", arguments: { env_id: id } });
      if (res.isError) throw new Error(`close_environment: ${textOf(res)}`);
    }
    result.memory = mem;
  } catch (e) {
    result.memory_error = String(e.message ?? e).split("\n")[0].slice(0, 300);
    console.error("compare: memory:", result.memory_error);
  }
  await tw.client.close();

  const json = JSON.stringify(result, null, 2) + "\n";
  if (opt.out) writeFileSync(opt.out, json);
  else process.stdout.write(json);
}

main().catch((e) => {
  console.error("compare:", e.stack ?? e);
  process.exit(1);
});
