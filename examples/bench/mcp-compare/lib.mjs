// Helpers shared by the scripted MCP clients of the benchmarks
// (compare.mjs: the Acme demo; realsite.mjs: the realistic shop).

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
      const res = await client.callTool({ name, arguments: args });
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
