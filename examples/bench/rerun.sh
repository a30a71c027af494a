#!/usr/bin/env bash
# Every benchmark a change to the engine's waits can move, rerun, and every
# table that quotes them written from this one run:
#   - examples/bench/RESULTS.md: run.sh's report (the action against the
#     floor, the rod baseline and the MCP peers; the real pages) above the
#     real-applications block, and realapps.sh's section (g) inside it (the
#     text after the block is kept);
#   - README.md: the targets table (between the bench-targets markers) and
#     the duration of the example envelope (the median of `toolwright demo`).
#
#   examples/bench/rerun.sh [--runs N] [--no-realapps]
#
# Run it on a quiet machine (nothing else busy: at a load of 30 every
# timing is noise); about 25 minutes on 2 cores with --runs 5.
set -euo pipefail
RUNS=5
REALAPPS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --no-realapps) REALAPPS=0; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "rerun.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$(mktemp -d "${TMPDIR:-/tmp}/toolwright-rerun.XXXXXX")
log() { printf '== %s\n' "$*" >&2; }

log "run.sh --runs $RUNS (the action, the floor, the peers, the real pages)"
bash examples/bench/run.sh --runs "$RUNS" --out "$OUT" >/dev/null

# RESULTS.md: the new report, then the real-applications block and what
# follows it, as they were (realapps.sh rewrites the block next).
results=examples/bench/RESULTS.md
{
  cat "$OUT/RESULTS.md"
  echo
  sed -n '/^<!-- realapps:begin/,$p' "$results"
} >"$OUT/RESULTS.new.md"
mv "$OUT/RESULTS.new.md" "$results"
if [ "$REALAPPS" = 1 ]; then
  log "realapps.sh --runs $RUNS (MediaWiki and phpMyAdmin)"
  bash examples/bench/realapps.sh --runs "$RUNS"
fi

# README: the targets table of this run, and the example envelope's time.
log "README.md: the targets table and the demo's duration"
commit=$(git rev-parse --short HEAD)
{
  echo "<!-- bench-targets:begin (written by examples/bench/rerun.sh; do not edit by hand) -->"
  echo "From \`examples/bench/rerun.sh --runs $RUNS\` at $commit, $(date -u +%Y-%m-%dT%H:%MZ), medians of $RUNS:"
  echo
  awk '/^## Toward the floor/{on=1; next} on && /^\| target/{t=1} t && /^$/{exit} t' "$results"
  echo "<!-- bench-targets:end -->"
} >"$OUT/targets.md"
python3 - "$OUT/targets.md" <<'PY'
import re, sys
block = open(sys.argv[1]).read().rstrip("\n")
s = open("README.md").read()
s2 = re.sub(r"<!-- bench-targets:begin.*?<!-- bench-targets:end -->", lambda m: block, s, count=1, flags=re.S)
if s2 == s and block not in s:
    sys.exit("rerun.sh: README.md has no bench-targets markers")
open("README.md", "w").write(s2)
PY
go build -o "$OUT/toolwright" ./cmd/toolwright
ds=()
for _ in $(seq "$RUNS"); do
  ds+=("$("$OUT/toolwright" demo 2>/dev/null | python3 -c 'import json,sys; t=sys.stdin.read(); print(json.loads(t[:t.rindex("}")+1])["duration_ms"])')")
done
med=$(printf '%s\n' "${ds[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
sed -i "0,/\"attempts\": 1, \"duration_ms\": [0-9]*}/s//\"attempts\": 1, \"duration_ms\": $med}/" README.md
log "demo: ${ds[*]} ms (median $med); report in $OUT"
