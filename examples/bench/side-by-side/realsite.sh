#!/usr/bin/env bash
# Issue 9's side-by-side: each business action of examples/realsite (the
# realistic shop under testdata/real/site) as one toolwright call against the
# same action scripted through Playwright MCP's tools (mcp-compare/realsite.mjs
# serves the shop itself on loopback). Raw JSON: $RES/realsite.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
echo "## (f) Real pages: the examples/realsite actions, toolwright against Playwright MCP"
echo
if [ "${PLAYWRIGHT:-1}" != 1 ]; then
  echo "Not measured: run.sh was started with --no-playwright."
  exit 0
fi
node "$here/../mcp-compare/realsite.mjs" --toolwright "$BIN/toolwright" --runs "$RUNS" \
  --chromium "$CHROMIUM" --out "$RES/realsite.json"
echo
