// Helpers shared by the scripted MCP clients of the benchmarks
// (compare.mjs: the Acme demo; realsite.mjs: the realistic shop).

import { readFileSync, readdirSync } from "node:fs";

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
