#!/usr/bin/env bash
# The real-applications benchmark: toolwright vs Playwright MCP vs the floor
# (playwright-core) on Debian's MediaWiki and phpMyAdmin, set up on loopback
# by examples/mediawiki/setup.sh and examples/phpmyadmin/setup.sh.
#
#   examples/bench/realapps.sh [--runs N] [--gap MS] [--only TEXT] [--merge JSON] [--no-write]
#   examples/bench/realapps.sh --section FILE --runs N   (write a table realapps.mjs --md FILE already made)
#
# Builds toolwright, installs mcp-compare's pinned packages if missing, starts
# both applications (installing them with apt-get when missing; the ones that
# were not running are stopped again at the end), runs
# mcp-compare/realapps.mjs (alternating runs, medians of N, settle between
# runs) and writes its table into examples/bench/RESULTS.md between the
# "real applications" markers (--no-write: print it only). Raw JSON:
# $TMPDIR/toolwright-realapps.json.
#
# The apps' ports and state folder are the setup scripts' (MW_PORT, DB_PORT,
# PMA_PORT, TOOLWRIGHT_APPS_DIR; defaults 18301-18303, /var/tmp/toolwright-apps):
# set them to run on a machine where another copy of the apps is in use.
set -euo pipefail
RUNS=5
GAP=1000
ONLY=""
MERGE=""
WRITE=1
SECTION=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --gap) GAP="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --merge) MERGE="$2"; shift 2 ;;  # an earlier run's JSON: its measured actions are kept, the others run
    --no-write) WRITE=0; shift ;;
    --section) SECTION="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "realapps.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ "$RUNS" -lt 5 ] && [ "$WRITE" = 1 ]; then echo "realapps.sh: RESULTS.md takes medians of at least 5 runs (--no-write for fewer)" >&2; exit 2; fi

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BENCH=$ROOT/examples/bench
log() { printf '== %s\n' "$*" >&2; }
# Every side runs the Chromium toolwright starts by default (the headless
# shell when it is installed; toolwright gets it as browser.bin too).
# CHROMIUM=PATH picks another for all.
CHROMIUM=${CHROMIUM:-$(go run ./examples/bench/harness chromium)} || { echo "realapps.sh: no Chromium (apt-get install -y chromium)" >&2; exit 1; }
command -v node >/dev/null || { echo "realapps.sh: node is needed" >&2; exit 1; }

BIN=$(mktemp -d "${TMPDIR:-/tmp}/toolwright-realapps.XXXXXX")
if [ -n "$SECTION" ]; then
  trap 'rm -rf "$BIN"' EXIT
  cp "$SECTION" "$BIN/section.md"
  LOAD0=${LOAD0:-"(not recorded)"}
else
log "building toolwright into $BIN"
go build -o "$BIN/toolwright" ./cmd/toolwright
if [ ! -d "$BENCH/mcp-compare/node_modules/@playwright/mcp" ] || [ ! -d "$BENCH/mcp-compare/node_modules/playwright-core" ]; then
  log "installing mcp-compare's pinned packages (npm ci)"
  (cd "$BENCH/mcp-compare" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund >&2)
fi

stops=()
cleanup() { for s in "${stops[@]}"; do bash "$s" stop || true; done; rm -rf "$BIN"; }
trap cleanup EXIT
for app in mediawiki phpmyadmin; do
  bash "examples/$app/setup.sh" status >/dev/null 2>&1 || stops+=("examples/$app/setup.sh")
  t0=$(date +%s)
  bash "examples/$app/setup.sh" start >/dev/null
  log "$app ready in $(( $(date +%s) - t0 )) s"
done

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
log "load at start: $(uptime)"
OUTJSON=${TMPDIR:-/tmp}/toolwright-realapps.json
node "$BENCH/mcp-compare/realapps.mjs" --toolwright "$BIN/toolwright" --runs "$RUNS" --gap "$GAP" \
  --chromium "$CHROMIUM" --only "$ONLY" --merge "$MERGE" --out "$OUTJSON" \
  --wiki "http://127.0.0.1:${MW_PORT:-18301}" --pma "http://127.0.0.1:${PMA_PORT:-18303}" \
  --pma-state "${TOOLWRIGHT_APPS_DIR:-/var/tmp/toolwright-apps}/phpmyadmin" >"$BIN/section.md"
log "load at end: $(uptime)"
fi

{
  echo "<!-- realapps:begin (written by examples/bench/realapps.sh; do not edit by hand) -->"
  echo "## (g) Real applications: MediaWiki and phpMyAdmin"
  echo
  echo "\`examples/bench/realapps.sh --runs $RUNS\` at $(git rev-parse --short HEAD)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)'), $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores, load average $LOAD0 at the start and $(cut -d' ' -f1-3 /proc/loadavg) at the end; $("$CHROMIUM" --version | head -1)."
  echo
  cat "$BIN/section.md"
  echo "<!-- realapps:end -->"
} >"$BIN/block.md"
if [ "$WRITE" = 0 ]; then cat "$BIN/block.md"; exit 0; fi
RESULTS=$BENCH/RESULTS.md
if grep -q '<!-- realapps:begin' "$RESULTS"; then
  # Replace the old block.
  awk -v block="$BIN/block.md" '
    /<!-- realapps:begin/ { while ((getline l < block) > 0) print l; skip = 1; next }
    /<!-- realapps:end -->/ { skip = 0; next }
    !skip { print }' "$RESULTS" >"$BIN/RESULTS.md"
  cp "$BIN/RESULTS.md" "$RESULTS"
else
  { echo; cat "$BIN/block.md"; } >>"$RESULTS"
fi
log "wrote the real-applications section of $RESULTS"
cat "$BIN/block.md"
