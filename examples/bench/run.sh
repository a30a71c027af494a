#!/usr/bin/env bash
# toolwright benchmarks: one entry point, everything side by side in one run.
#
#   examples/bench/run.sh [--runs N] [--out DIR] [--no-gobench] [--no-playwright]
#
# Measures, on this machine, against the Acme demo site served on loopback:
#   (a) the business action "sign in, search, read 3 result pages" as ONE
#       toolwright tool call over MCP vs the same action through Playwright
#       MCP's primitive tools driven by a scripted agent (mcp-compare/);
#   (b) `toolwright run search_catalog` vs a hand-written go-rod program
#       (rodsearch/), process start to envelope, and in process on a warm browser;
#   (c) cold start to the first tools/list answer, and `toolwright validate`,
#       with 200 generated workflows;
#   (d) 8 calls in parallel vs one at a time, and Chromium memory per environment;
#   (e) the floor (floor/: the same action with the fewest CDP round trips),
#       the rod baseline filling like toolwright (and idiomatically, labelled),
#       chrome-devtools-mcp beside Playwright MCP, model vs wire bytes, and the
#       cost of reading a whole page of 5/50/200 rows × 8 fields (wide/);
# plus the Go benchmarks of engine/run/bench_test.go and engine/selector (resolve
# and extract cost, CDP requests per action). It prints a Markdown report (also written to OUT/RESULTS.md; raw
# JSON under OUT/results/), the targets of issue 14 first.
#
# Hook for more side-by-side scripts: every executable
# examples/bench/side-by-side/*.sh runs last with BIN (the built binaries), RES
# (the results folder), BASE (the Acme site), CFG (the toolwright config),
# RUNS and CHROMIUM in its environment; what it prints on stdout (Markdown) is
# appended to the report.
#
# Needs: Go, Node >= 18 with npm (the npm registry, once, for mcp-compare's
# pinned @playwright/mcp and @modelcontextprotocol/sdk), and the system
# Chromium (the one toolwright starts: chromium-headless-shell when it is
# installed, else `chromium` on PATH; nothing downloads a browser).
set -euo pipefail

RUNS=7
OUT=""
GOBENCH=1
PLAYWRIGHT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-gobench) GOBENCH=0; shift ;;
    --no-playwright) PLAYWRIGHT=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ "$RUNS" -lt 5 ]; then echo "run.sh: --runs must be at least 5" >&2; exit 2; fi

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BENCH=$ROOT/examples/bench
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/toolwright-bench.XXXXXX")
mkdir -p "$OUT/bin" "$OUT/results"
OUT=$(cd "$OUT" && pwd)
RES=$OUT/results
BIN=$OUT/bin
log() { printf '== %s\n' "$*" >&2; }

command -v node >/dev/null || { echo "run.sh: node is needed" >&2; exit 1; }

log "building (toolwright, acmesite, rodsearch, floor, harness) into $BIN"
go build -o "$BIN/toolwright" ./cmd/toolwright
go build -o "$BIN/acmesite" ./examples/bench/acmesite
go build -o "$BIN/rodsearch" ./examples/bench/rodsearch
go build -o "$BIN/floor" ./examples/bench/floor
go build -o "$BIN/harness" ./examples/bench/harness
# Every side runs the Chromium toolwright starts by default (the headless
# shell when it is installed): Playwright MCP and the floors get it by path,
# toolwright through browser.bin below. CHROMIUM=PATH picks another for all.
CHROMIUM=${CHROMIUM:-$("$BIN/harness" chromium)} || { echo "run.sh: no Chromium (apt-get install -y chromium)" >&2; exit 1; }

if [ ! -d "$BENCH/mcp-compare/node_modules/@playwright/mcp" ] || [ ! -d "$BENCH/mcp-compare/node_modules/@modelcontextprotocol/sdk" ] || [ ! -d "$BENCH/mcp-compare/node_modules/chrome-devtools-mcp" ]; then
  log "installing mcp-compare's pinned packages (npm ci)"
  (cd "$BENCH/mcp-compare" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund >&2)
fi

# The demo credentials: toolwright reads them from these variables as secrets.
export ACME_USER=${ACME_USER:-buyer@example.com}
export ACME_PASSWORD=${ACME_PASSWORD:-demo-password-123}

log "serving the Acme site on loopback"
rm -f "$OUT/site.url"
"$BIN/acmesite" -addr 127.0.0.1:0 -url-file "$OUT/site.url" >/dev/null &
SITE_PID=$!
trap 'kill "$SITE_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$OUT/site.url" ] && break; sleep 0.05; done
BASE=$(cat "$OUT/site.url")
log "site: $BASE"

# The config toolwright serves: the demo workflows, plus close_environment,
# examples/bench/workflows (search_catalog in an environment that stays open:
# search_catalog_open makes one, search_catalog_given runs in it) and
# examples/bench/wide (the wide page's reads, with examples/bench/selectors.yaml
# beside the demo's map), acme_base pointing at the site, secrets from
# ACME_USER / ACME_PASSWORD.
CFG=$OUT/config
rm -rf "$CFG"
mkdir -p "$CFG/workflows"
cp examples/demo/workflows/*.yaml "$CFG/workflows/"
cp workflows/close_environment.yaml "$BENCH"/workflows/*.yaml "$BENCH"/wide/*.yaml "$CFG/workflows/"
cat examples/demo/selectors.yaml "$BENCH/selectors.yaml" >"$CFG/selectors.yaml"
cat >"$CFG/toolwright.yaml" <<EOF
# Generated by examples/bench/run.sh
workflows: workflows
selectors: selectors.yaml
state_dir: state
vars:
  acme_base: $BASE
secrets:
  acme_user: {env: ACME_USER}
  acme_password: {env: ACME_PASSWORD}
browser:
  bin: $CHROMIUM
  max_environments: 16
  max_per_purpose: 16   # (d) runs 8 temporary calls of one purpose at once; the default is 4
policy:
  allowed_hosts: ["127.0.0.1"]
EOF
"$BIN/toolwright" --config "$CFG/toolwright.yaml" validate >&2
# The same without the spare environment (browser.spare: 0), to show what it saves.
sed 's/^browser:$/browser:\n  spare: 0/' "$CFG/toolwright.yaml" >"$CFG/toolwright-nospare.yaml"

PWVER=$(node -p "require('$BENCH/mcp-compare/node_modules/@playwright/mcp/package.json').version" 2>/dev/null || echo "?")
log "load at start: $(uptime)"
cat >"$RES/machine.json" <<EOF
{"date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "load_start": "$(cut -d' ' -f1-3 /proc/loadavg)",
 "chromium": "$("$CHROMIUM" --version 2>/dev/null | head -1)", "node": "$(node --version)",
 "go": "$(go env GOVERSION)", "playwright_mcp": "$PWVER", "runs": $RUNS,
 "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')",
 "uptime_start": "$(uptime | sed 's/^ *//')",
 "command": "examples/bench/run.sh --runs $RUNS"}
EOF

# (c) cold start and validate, 200 workflows ------------------------------------
log "(c) cold start to tools/list, validate: 200 workflows"
"$BIN/harness" gen -n 200 -dir "$OUT/gen200" -base "$BASE"
COLDRUNS=$(( RUNS > 10 ? RUNS : 10 ))
"$BIN/harness" coldlist -bin "$BIN/toolwright" -config "$OUT/gen200/toolwright.yaml" -runs "$COLDRUNS" -out "$RES/cold.json"
cat >"$OUT/validate-spec.json" <<EOF
[{"name": "toolwright validate", "argv": ["$BIN/toolwright", "--config", "$OUT/gen200/toolwright.yaml", "validate"]}]
EOF
"$BIN/harness" proc -spec "$OUT/validate-spec.json" -runs "$COLDRUNS" -out "$RES/validate.json"

# (b) toolwright run vs hand-written rod --------------------------------------
log "(b) toolwright run vs rodsearch, process start to envelope ($RUNS runs each)"
cat >"$OUT/proc-spec.json" <<EOF
[{"name": "toolwright run", "json": true, "rows": 15,
  "argv": ["$BIN/toolwright", "--config", "$CFG/toolwright.yaml", "--log-level", "warn", "run", "search_catalog", "--arg", "query=ACM", "--arg", "max_pages=3"]},
 {"name": "rodsearch", "json": true, "rows": 15,
  "argv": ["$BIN/rodsearch", "-base", "$BASE", "-query", "ACM", "-pages", "3"]}]
EOF
"$BIN/harness" proc -spec "$OUT/proc-spec.json" -runs "$RUNS" -out "$RES/proc.json"
log "(b) in process on a warm browser: engine.Call vs the rod code"
"$BIN/harness" warm -config "$CFG/toolwright.yaml" -runs "$RUNS" -tool search_catalog -args '{"query":"ACM","max_pages":3}' -out "$RES/warm.json"
# The same on a kept environment (env: given), as the floor keeps its page.
"$BIN/harness" warm -config "$CFG/toolwright.yaml" -runs "$RUNS" -open search_catalog_open -tool search_catalog_given -args '{"query":"ACM","max_pages":3}' -out "$RES/warm-kept.json"
# The spare environment, with 1 s between calls (an agent thinks between calls;
# the spare is made then): spare 1 (the default) against spare 0.
"$BIN/harness" warm -config "$CFG/toolwright.yaml" -runs "$RUNS" -gap 1s -tool search_catalog -args '{"query":"ACM","max_pages":3}' -out "$RES/warm-spare-gap.json"
"$BIN/harness" warm -config "$CFG/toolwright-nospare.yaml" -runs "$RUNS" -gap 1s -tool search_catalog -args '{"query":"ACM","max_pages":3}' -out "$RES/warm-nospare-gap.json"
# CDP requests per step, counted by a DevTools proxy in front of the browser.
"$BIN/harness" warm -config "$CFG/toolwright.yaml" -runs "$RUNS" -gap 1s -count-cdp -tool search_catalog -args '{"query":"ACM","max_pages":3}' -out "$RES/warm-cdp.json"
"$BIN/rodsearch" -base "$BASE" -query ACM -pages 3 -warm "$RUNS" >"$RES/rodwarm.json"
"$BIN/rodsearch" -base "$BASE" -query ACM -pages 3 -warm "$RUNS" -kept >"$RES/rodwarm-kept.json"
"$BIN/rodsearch" -base "$BASE" -query ACM -pages 3 -warm "$RUNS" -fill rod >"$RES/rodwarm-rodfill.json"
"$BIN/rodsearch" -base "$BASE" -query ACM -pages 3 -warm "$RUNS" -sleeper rod >"$RES/rodwarm-default-sleeper.json"

# (e) the floor, and the cost of reading a whole page ---------------------------
log "(e) the floor: the same action with the fewest CDP round trips ($RUNS runs each)"
"$BIN/floor" -base "$BASE" -query ACM -pages 3 -runs "$RUNS" >"$RES/floor.json"
"$BIN/floor" -base "$BASE" -query ACM -pages 3 -runs "$RUNS" -fresh >"$RES/floor-fresh.json"
"$BIN/floor" -base "$BASE" -wide 5,50,200 -runs "$RUNS" >"$RES/floor-wide.json"
log "(e) extract of a whole page, 5/50/200 rows × 8 fields and × 1, in process"
"$BIN/harness" wide -config "$CFG/toolwright.yaml" -rows 5,50,200 -runs "$RUNS" -out "$RES/wide.json"
# The same reads' CDP requests, through a counting DevTools proxy (not timed: the proxy adds a hop).
"$BIN/harness" wide -config "$CFG/toolwright.yaml" -rows 5,50,200 -runs 1 -count-cdp -out "$RES/wide-cdp.json"

# (a) + (d) over MCP -------------------------------------------------------------
log "(a) toolwright vs Playwright MCP over MCP ($RUNS runs each), (d) throughput and memory"
SKIP=""
[ "$PLAYWRIGHT" = 1 ] || SKIP="pw"
node "$BENCH/mcp-compare/compare.mjs" --toolwright "$BIN/toolwright" --config "$CFG/toolwright.yaml" \
  --base "$BASE" --runs "$RUNS" --query ACM --pages 3 --chromium "$CHROMIUM" --skip "$SKIP" --out "$RES/compare.json"

# Go benchmarks ----------------------------------------------------------------
if [ "$GOBENCH" = 1 ]; then
  log "Go benchmarks: engine/run (per-step overhead, whole action in process)"
  go test ./engine/run -run '^$' -bench . -benchtime "${RUNS}x" -count 1 | tee "$RES/gobench.txt" >&2
  # The selector engine's own: resolution (light DOM, shadow DOM, out-of-process
  # frames) and the extract cost at 5/50/200 rows × 8 fields against one
  # evaluate; and the CDP requests per action its test counts.
  if grep -q '^func BenchmarkExtractCost' engine/selector/*_test.go 2>/dev/null; then
    log "Go benchmarks: engine/selector (resolve cost, extract cost)"
    go test ./engine/selector -run '^$' -bench 'ResolveCost|ExtractCost' -benchtime "${RUNS}x" -count 1 | tee "$RES/gobench-selector.txt" >&2
  fi
  if grep -q '^func TestRequestsPerAction' engine/selector/*_test.go 2>/dev/null; then
    go test ./engine/selector -run '^TestRequestsPerAction$' -v -count 1 | tee "$RES/requests-per-action.txt" >&2
  fi
fi

log "load at end: $(uptime)"
"$BIN/harness" report -dir "$RES" >"$OUT/RESULTS.md"

# Hook: more side-by-side scripts, appended to the report.
for hook in "$BENCH"/side-by-side/*.sh; do
  [ -x "$hook" ] || continue
  log "side-by-side: $hook"
  BIN=$BIN RES=$RES BASE=$BASE CFG=$CFG RUNS=$RUNS CHROMIUM=$CHROMIUM PLAYWRIGHT=$PLAYWRIGHT "$hook" >>"$OUT/RESULTS.md"
  printf 'Load average (1/5/15 min) after it: %s.\n\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/RESULTS.md"
done
cat "$OUT/RESULTS.md"
log "report: $OUT/RESULTS.md (raw results in $RES)"
