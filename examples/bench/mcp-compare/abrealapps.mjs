// A/B of two toolwright binaries on the real applications (examples/mediawiki,
// examples/phpmyadmin, running on loopback: examples/bench/realapps.sh or each
// app's setup.sh start them): the same tool call on each, alternating the
// order every round, each once no server is busy (lib.mjs settle), medians.
// It measures an engine change like with like, on one machine in one run,
// where RESULTS.md's full runs move by ±0.2 of the floor between hours;
// under each tool, each side's step medians (from its traces) say where.
//
//   go build -o /tmp/tw-old ./cmd/toolwright   (at the commit before)
//   go build -o /tmp/tw-new ./cmd/toolwright
//   node examples/bench/mcp-compare/abrealapps.mjs --old /tmp/tw-old --new /tmp/tw-new [--runs 11] [--only edit_page|read_page|search_pages|list_tables]
//
// Each binary gets its own server per app, signed in once (untimed); the
// write tools run with write_tools: enabled. The apps' addresses and
// accounts are the setup scripts' defaults unless MW_PORT, PMA_PORT,
// MW_USER, MW_PASSWORD, PMA_USER, PMA_PASSWORD say otherwise.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAppServer, toolwrightCall, settle, median, defaultChromium, stepTimes } from "./lib.mjs";

const opt = { old: "", new: "", runs: 11, only: "", gap: 300 };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i].replace(/^--/, "");
  if (!(k in opt)) throw new Error(`unknown flag ${process.argv[i]}`);
  opt[k] = process.argv[++i];
}
if (!opt.old || !opt.new) throw new Error("need --old BIN and --new BIN");
const runs = Number(opt.runs), gap = Number(opt.gap);
const chromium = defaultChromium();
const bases = { mediawiki: `http://127.0.0.1:${process.env.MW_PORT || 18301}`, phpmyadmin: `http://127.0.0.1:${process.env.PMA_PORT || 18303}` };
let n = 0;
const actions = [
  { app: "mediawiki", tool: "edit_page", write: true, args: () => ({ title: "AB Page", text: `AB text ${++n}.`, summary: "ab" }) },
  { app: "mediawiki", tool: "read_page", temporary: true, args: () => ({ title: "Lighthouse 01" }) },
  { app: "mediawiki", tool: "search_pages", temporary: true, args: () => ({ query: "keeper", page_size: 5, max_pages: 3 }) },
  // Each deletion deletes the page an untimed edit_page (re)made.
  { app: "mediawiki", tool: "delete_page", write: true, prep: { tool: "edit_page", args: () => ({ title: "AB Delete", text: `AB delete ${++n}.`, summary: "ab" }) }, args: () => ({ title: "AB Delete", reason: "ab" }) },
  { app: "phpmyadmin", tool: "insert_vessel", write: true, args: () => ({ name: `AB ${++n}`, kind: "tug", berth: 4, length_m: 12.5 }) },
  { app: "phpmyadmin", tool: "browse_table", args: () => ({ database: "harbour", table: "vessels", max_pages: 3 }) },
  { app: "phpmyadmin", tool: "export_table", args: () => ({ database: "harbour", table: "vessels", format: "sql" }) },
  { app: "phpmyadmin", tool: "list_databases", args: () => ({}) },
  { app: "phpmyadmin", tool: "list_tables", args: () => ({ database: "harbour" }) },
].filter((a) => !opt.only || opt.only.split("|").includes(a.tool));

const dir = mkdtempSync(join(tmpdir(), "tw-ab-"));
/** One server of bin on app's deployment, signed in (sign_in's environment is the one the tools use). */
async function start(bin, app, tag) {
  const s = await startAppServer(`toolwright-ab-${tag}`, bin, app, bases[app], join(dir, `${tag}-${app}`), chromium);
  return { ...s, env: (await toolwrightCall(s.client, "sign_in", { purpose: "ab" })).data.env_id };
}

const servers = {};
try {
  for (const app of new Set(actions.map((a) => a.app))) servers[app] = { old: await start(opt.old, app, "old"), new: await start(opt.new, app, "new") };
  const pids = Object.values(servers).flatMap((s) => [s.old.transport.pid, s.new.transport.pid]);
  for (const a of actions) {
    const ms = { old: [], new: [] }, runsOf = { old: [], new: [] };
    // Round 0 is an untimed warm-up of each side.
    for (let i = 0; i <= runs; i++) {
      for (const side of i % 2 ? ["new", "old"] : ["old", "new"]) {
        const s = servers[a.app][side];
        if (a.prep) await toolwrightCall(s.client, a.prep.tool, { env_id: s.env, ...a.prep.args() }, true);
        await settle(pids, gap);
        // An env: temporary tool opens its own environment; the others run in sign_in's.
        const r = await toolwrightCall(s.client, a.tool, a.temporary ? a.args() : { env_id: s.env, ...a.args() }, a.write);
        if (i) {
          ms[side].push(r.ms);
          runsOf[side].push(r);
        }
      }
    }
    const mo = median(ms.old), mn = median(ms.new);
    console.log(`${a.tool}: old ${Math.round(mo)} ms, new ${Math.round(mn)} ms, new ÷ old ${(mn / mo).toFixed(3)} (medians of ${runs}, alternating)`);
    // Where each side's time went: the medians of its steps (from the traces).
    for (const side of ["old", "new"]) {
      const st = stepTimes(opt[side], servers[a.app][side].cfg, runsOf[side]);
      if (st) console.log(`  ${side}: ${st.steps.map((x) => `${x.name} ${x.ms}`).join(" · ")} · outside the steps ${st.outside_steps_ms} · round trip ${st.transport_ms}`);
    }
  }
} finally {
  for (const s of Object.values(servers)) {
    await s.old.client.close().catch(() => {});
    await s.new.client.close().catch(() => {});
  }
  rmSync(dir, { recursive: true, force: true });
}
