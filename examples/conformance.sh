#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios against
# `toolwright serve --http` on a free loopback port.
#
#   examples/conformance.sh                # the four scenarios below
#   examples/conformance.sh tools-list     # only these
#
# Needs Go and Node.js 20 (npx fetches the suite from the npm registry).
# The work folder (server log, checks.json per scenario) is removed after a
# clean run and kept after a failure or with KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONFORMANCE=${CONFORMANCE:-"npx -y @modelcontextprotocol/conformance@0.1.12"}
SCENARIOS=("$@")
if [ ${#SCENARIOS[@]} -eq 0 ]; then
  SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection)
fi

WORK=$(mktemp -d)
KEEP=${KEEP:-}
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [ -n "$KEEP" ]; then
    echo "kept: $WORK (serve.log, results/)"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

echo "== building toolwright"
(cd "$ROOT" && go build -o "$WORK/toolwright" ./cmd/toolwright)

# A small workflow set: the demo's workflows and selector map, with the
# state kept in the temporary folder. No scenario calls a tool, so no
# browser starts.
cat >"$WORK/toolwright.yaml" <<EOF
workflows: $ROOT/examples/demo/workflows
selectors: $ROOT/examples/demo/selectors.yaml
state_dir: $WORK/state
vars:
  acme_base: http://127.0.0.1:8000
secrets:
  acme_user: {env: ACME_USER}
  acme_password: {env: ACME_PASSWORD}
EOF
export ACME_USER=demo@example.com ACME_PASSWORD=demo

echo "== starting toolwright serve --http 127.0.0.1:0"
"$WORK/toolwright" serve --config "$WORK/toolwright.yaml" --http 127.0.0.1:0 2>"$WORK/serve.log" &
SERVER_PID=$!
URL=
for _ in $(seq 1 100); do
  URL=$(sed -n 's/.*url=\(http:\/\/127\.0\.0\.1:[0-9]*\/mcp\).*/\1/p' "$WORK/serve.log" | head -n 1)
  [ -n "$URL" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    cat "$WORK/serve.log" >&2
    echo "toolwright serve exited" >&2
    KEEP=1
    exit 1
  fi
  sleep 0.1
done
if [ -z "$URL" ]; then
  cat "$WORK/serve.log" >&2
  echo "toolwright serve did not start listening" >&2
  KEEP=1
  exit 1
fi
echo "   serving at $URL"

failed=()
for s in "${SCENARIOS[@]}"; do
  echo "== scenario $s"
  if $CONFORMANCE server --url "$URL" --scenario "$s" -o "$WORK/results"; then
    echo "   PASS $s"
  else
    echo "   FAIL $s"
    failed+=("$s")
  fi
done

echo "== stopping the server"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || { echo "toolwright serve exited with status $?" >&2; failed+=(shutdown); }
SERVER_PID=

if [ ${#failed[@]} -gt 0 ]; then
  KEEP=1
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
echo "all ${#SCENARIOS[@]} scenarios passed"
