#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance 0.1.12,
# pinned with its package-lock in examples/conformance/) against
# `toolwright serve --http` on a free loopback port.
#
#   examples/conformance.sh                # the whole default (active) server suite
#   examples/conformance.sh tools-list     # only these scenarios
#
# The whole suite runs with examples/conformance/expected-failures.yaml: the
# scenarios that need MCP features toolwright does not offer (prompts,
# resources, completion, sampling, elicitation, logging, non-text content),
# each with its reason. The run fails when any other scenario fails, and
# also when an expected failure starts passing (then the file is stale).
#
# Needs Go and Node.js 20; the suite is installed once with `npm ci` from the
# lock file. The work folder (server log, checks.json per scenario) is removed
# after a clean run and kept after a failure or with KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SUITE_DIR="$ROOT/examples/conformance"
if [ -z "${CONFORMANCE:-}" ]; then
  if [ ! -x "$SUITE_DIR/node_modules/.bin/conformance" ]; then
    echo "== npm ci (the pinned conformance suite)"
    (cd "$SUITE_DIR" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  CONFORMANCE="$SUITE_DIR/node_modules/.bin/conformance"
fi
SCENARIOS=("$@")

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

# The conformance fixtures (examples/conformance/workflows: the tools the
# suite's tools-call-* scenarios call that a workflow can be), with the
# state kept in the temporary folder. Calls run in a temporary browser
# environment, so Chromium must be installed.
cat >"$WORK/toolwright.yaml" <<EOF
workflows: $SUITE_DIR/workflows
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
if [ ${#SCENARIOS[@]} -eq 0 ]; then
  echo "== the whole default server suite, with examples/conformance/expected-failures.yaml"
  if ! $CONFORMANCE server --url "$URL" --expected-failures "$SUITE_DIR/expected-failures.yaml" -o "$WORK/results"; then
    failed+=(suite)
  fi
else
  for s in "${SCENARIOS[@]}"; do
    echo "== scenario $s"
    if $CONFORMANCE server --url "$URL" --scenario "$s" -o "$WORK/results"; then
      echo "   PASS $s"
    else
      echo "   FAIL $s"
      failed+=("$s")
    fi
  done
fi

echo "== stopping the server"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || { echo "toolwright serve exited with status $?" >&2; failed+=(shutdown); }
SERVER_PID=

if [ ${#failed[@]} -gt 0 ]; then
  KEEP=1
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
echo "conformance: passed (expected failures as listed)"
