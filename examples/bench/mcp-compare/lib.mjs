// Helpers shared by the scripted MCP clients of the benchmarks
// (compare.mjs: the Acme demo; realsite.mjs: the realistic shop).

import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The Chromium toolwright starts here when browser.bin is not set (the headless shell when it is
 * installed): the benchmarks give it to every side, and to toolwright as browser.bin, so all run
 * the same binary.
 */
export const defaultChromium = () =>
  execFileSync("go", ["run", "./examples/bench/harness", "chromium"], { cwd: join(here, "..", "..", "..") }).toString().trim();

/** Bytes of a tool result's content blocks: what the agent's model is handed. */
export function contentBytes(res) {
  let n = 0;
  for (const c of res.content ?? []) {
    if (c.type === "text") n += Buffer.byteLength(c.text, "utf8");
    else if (typeof c.data === "string") n += Buffer.byteLength(c.data, "utf8");
    else n += Buffer.byteLength(JSON.stringify(c), "utf8");
  }
  return n;
}

/** Bytes of the whole JSON-RPC result (content + structuredContent + _meta). */
export function resultBytes(res) {
  return Buffer.byteLength(JSON.stringify(res), "utf8");
}

export const textOf = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
export const round = (x) => Math.round(x * 10) / 10;
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A client that counts the calls and bytes of one run. */
export function recorder(client) {
  const run = { calls: 0, bytes: 0, resultBytes: 0, steps: [] };
  return {
    run,
    async call(name, args) {
      const t0 = performance.now();
      // No client-side limit under a minute: a loaded machine took longer for one call.
      const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 600000 });
      const ms = performance.now() - t0;
      run.calls++;
      run.bytes += contentBytes(res);
      run.resultBytes += resultBytes(res);
      run.steps.push({ tool: name, ms: round(ms), bytes: contentBytes(res) });
      if (res.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${textOf(res).slice(0, 2000)}`);
      return res;
    },
  };
}

/** The ref of the first snapshot line `- ROLE "NAME" ... [ref=X]`. */
export function ref(snapshot, role, name) {
  for (const line of snapshot.split("\n")) {
    const m = /^\s*- '?(\S+) "((?:[^"\\]|\\.)*)"[^\n]*\[ref=([^\]]+)\]/.exec(line);
    if (m && m[1] === role && JSON.parse(`"${m[2]}"`) === name) return m[3];
  }
  throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot}`);
}

// ---- processes ---------------------------------------------------------------

function procStat(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  const i = s.lastIndexOf(")");
  const comm = s.slice(s.indexOf("(") + 1, i);
  const ppid = Number(s.slice(i + 2).split(" ")[1]);
  return { comm, ppid };
}

/** The live processes by parent: ppid → [{pid, comm}]. */
function processTable() {
  const kids = new Map();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const { ppid, comm } = procStat(e);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push({ pid: Number(e), comm });
    } catch { /* gone */ }
  }
  return kids;
}

/** The live children of pid. */
export function children(pid) {
  return (processTable().get(pid) ?? []).map((k) => k.pid);
}

/** Every live descendant of root. */
export function descendants(root) {
  const kids = processTable();
  const out = [];
  const walk = (p) => { for (const k of kids.get(p) ?? []) { out.push(k); walk(k.pid); } };
  walk(root);
  return out;
}

/**
 * CPU seconds used so far by root and every process under it: utime+stime
 * of the live ones plus cutime+cstime (the children they already reaped,
 * such as the renderers of closed environments). Clock ticks are 1/100 s
 * on Linux.
 */
export function treeCPU(root) {
  let ticks = 0;
  for (const pid of [root, ...descendants(root).map((p) => p.pid)]) {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
      // after ")": state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch { /* gone */ }
  }
  return ticks / 100;
}

/**
 * Waits before a timed run: the same pause for every side (gapMs, an
 * agent's thinking time), then until no server's process tree (the server
 * and its Chromium) is still busy with the run before — at most 10 ms of
 * CPU in 250 ms, for up to 10 s. A temporary environment's disposal, the
 * spare's refill or a peer's Chromium keep working for a moment after a
 * run, and on 2 cores that work would be billed to whoever runs next.
 */
export async function settle(serverPids, gapMs) {
  await new Promise((ok) => setTimeout(ok, gapMs));
  const busy = () => serverPids.reduce((n, p) => n + treeCPU(p), 0);
  for (const end = performance.now() + 10000; performance.now() < end;) {
    const c0 = busy();
    await new Promise((ok) => setTimeout(ok, 250));
    if (busy() - c0 <= 0.01) return;
  }
}

// ---- the sides of the real-site and real-application benchmarks ----------------

/** An MCP client on a stdio server (command args), named for the server's logs. */
export async function startClient(name, command, args, opts = {}) {
  const transport = new StdioClientTransport({ command, args, stderr: "inherit", ...opts });
  const client = new Client({ name, version: "0" });
  await client.connect(transport);
  return { client, transport };
}

/** One toolwright server on the config file cfg, its logs at warn on stderr. */
export const startToolwrightServer = (name, bin, cfg, env) =>
  startClient(name, bin, ["--config", cfg, "--log-level", "warn", "serve"], { env: { ...process.env, ...env } });

let taskN = 0;
/**
 * One timed toolwright call; the run's data is its envelope's data and its trace the
 * envelope's trace_id. A write call gets a task id of its own.
 */
export async function toolwrightCall(client, tool, args, write) {
  const rec = recorder(client);
  const t0 = performance.now();
  const res = await rec.call(tool, write ? { ...args, task_id: `bench-${process.pid}-${++taskN}` } : args);
  rec.run.ms = performance.now() - t0;
  const env = res.structuredContent ?? JSON.parse(textOf(res));
  if (!env.ok || !env.code) throw new Error(`${tool}: ${JSON.stringify(env)}`);
  rec.run.code = env.code;
  rec.run.data = env.data;
  rec.run.trace = env.trace_id;
  return rec.run;
}

// ---- the real applications (examples/mediawiki, examples/phpmyadmin) -------------

/**
 * Each real application's account (the setup scripts' defaults unless MW_USER, MW_PASSWORD,
 * PMA_USER, PMA_PASSWORD say otherwise), and the names its deployment gives the account's variables
 * (`env`), its secrets and its address.
 */
export const realApps = {
  mediawiki: { user: process.env.MW_USER || "Toolwright", password: process.env.MW_PASSWORD || "wiki-fixture-pass-2026", env: "MW", secret: "mw", base: "wiki_base" },
  phpmyadmin: { user: process.env.PMA_USER || "toolwright", password: process.env.PMA_PASSWORD || "pma-fixture-pass-2026", env: "PMA", secret: "pma", base: "pma_base" },
};

/**
 * One toolwright server (bin) on app's deployment (examples/APP: its workflows, selector map and
 * uploads) at the address base, write tools enabled, its config at `${at}.yaml` and its state in
 * `${at}-state`, Chromium as browser.bin; the account from realApps. The environments sign_in makes
 * are kept for the whole run: one action (18 runs) took more than the default 10 minutes at load 75,
 * and the reaper closed them under the next ones.
 */
export async function startAppServer(name, bin, app, base, at, chromiumPath) {
  const a = realApps[app];
  const example = join(here, "..", "..", app);
  const cfg = `${at}.yaml`;
  writeFileSync(cfg, [
    `workflows: ${JSON.stringify(join(example, "workflows"))}`,
    `selectors: ${JSON.stringify(join(example, "selectors", "selectors.yaml"))}`,
    `uploads_dir: ${JSON.stringify(join(example, "uploads"))}`,
    `state_dir: ${JSON.stringify(`${at}-state`)}`,
    `vars: ${JSON.stringify({ [a.base]: base })}`,
    `secrets: ${JSON.stringify({ [`${a.secret}_user`]: { env: `${a.env}_USER`, redact: false }, [`${a.secret}_password`]: { env: `${a.env}_PASSWORD` } })}`,
    `policy: {write_tools: enabled, allowed_hosts: ["127.0.0.1"]}`,
    `browser: {idle_timeout: 3h, bin: ${JSON.stringify(chromiumPath)}}`,
    "",
  ].join("\n"));
  const server = await startToolwrightServer(name, bin, cfg, { [`${a.env}_USER`]: a.user, [`${a.env}_PASSWORD`]: a.password });
  return { ...server, cfg };
}

/** Playwright MCP (the pinned package) on the given Chromium, headless, isolated, in a folder of its own. */
export async function startPlaywrightMCP(name, chromiumPath) {
  const outDir = mkdtempSync(join(tmpdir(), `${name}-pw-mcp-`));
  const side = await startClient(name, process.execPath,
    [join(here, "node_modules", "@playwright", "mcp", "cli.js"),
      "--executable-path", chromiumPath, "--headless", "--isolated", "--no-sandbox", "--output-dir", outDir],
    { cwd: outDir });
  return { ...side, outDir };
}

/** The floor's browser: playwright-core on the same Chromium with toolwright's launch flags, and its pid for settle. */
export async function startFloorBrowser(chromiumPath) {
  const before = new Set(children(process.pid));
  const browser = await chromium.launch({
    executablePath: chromiumPath, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  // Its Chromium: the one child of this process that is new.
  return { browser, pid: children(process.pid).find((p) => !before.has(p)) };
}

/**
 * Runs each side n times, alternating (the order reversed every other round), each run once
 * the machine settled (before(side) first, untimed); returns the runs of each side.
 */
export async function alternate(sides, n, before) {
  const runs = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (let i = 0; i < n; i++) {
    const order = Object.keys(sides);
    if (i % 2) order.reverse();
    for (const side of order) {
      await before(side);
      runs[side].push(await sides[side]());
    }
  }
  return runs;
}

/** The medians of a side's runs: calls, bytes, ms. */
export const medians = (rs) => ({ calls: median(rs.map((r) => r.calls)), bytes: median(rs.map((r) => r.bytes)), ms: round(median(rs.map((r) => r.ms))) });

// ---- where toolwright's time goes -----------------------------------------------------

/**
 * The medians of a toolwright action's timed runs (on the server of bin with config cfg), read
 * from their traces (`toolwright traces ID`):
 * each top-level step (its attempts summed), the server's time outside the steps (the
 * environment, checks, the record: the trace's duration less its steps) and the rest of the
 * client's time (the MCP round trip: the client's ms less the trace's duration).
 */
export function stepTimes(bin, cfg, runs) {
  const per = [];
  for (const r of runs) {
    if (!r.trace) continue;
    const t = JSON.parse(execFileSync(bin, ["--config", cfg, "--log-level", "error", "traces", r.trace]).toString());
    const steps = new Map();
    for (const st of t.steps || []) {
      if (String(st.path ?? st.index).includes(".")) continue;
      const key = `${st.path ?? st.index}`;
      const prev = steps.get(key) || { name: st.kind + (st.target ? ` ${st.target}` : ""), ms: 0 };
      prev.ms += st.duration_ms;
      steps.set(key, prev);
    }
    const inSteps = [...steps.values()].reduce((a, x) => a + x.ms, 0);
    per.push({ steps: [...steps.values()], server: t.duration_ms - inSteps, transport: r.ms - t.duration_ms });
  }
  if (!per.length) return null;
  const first = per[0].steps;
  return {
    steps: first.map((st, i) => ({ name: st.name, ms: round(median(per.map((p) => p.steps[i]?.ms ?? 0))) })),
    outside_steps_ms: round(median(per.map((p) => p.server))),
    transport_ms: round(median(per.map((p) => p.transport))),
  };
}
