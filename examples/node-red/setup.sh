#!/usr/bin/env bash
# Node-RED (npm's `node-red`, a real third-party single-page editor: jQuery,
# D3, Monaco) on loopback, for examples/node-red.
#
#   bash examples/node-red/setup.sh start    install if missing, serve, deploy the fixture flows
#   bash examples/node-red/setup.sh stop     stop the server (by its PID)
#   bash examples/node-red/setup.sh status
#
# Node-RED $NR_VERSION is installed with npm into $STATE/app (default
# $TOOLWRIGHT_APPS_DIR/node-red, /var/tmp/toolwright-apps/node-red); nothing is
# installed globally. It runs with this folder's settings.js on
# 127.0.0.1:$NR_PORT (default 18304; examples/node-red/toolwright.yaml expects
# it there) with its user directory (flows) in $STATE/userdir. The editor's one
# account is $NR_USER / $NR_PASSWORD (defaults operator / the one below: a
# loopback fixture); the editor keeps its sign-in token in local storage.
# Every `start` deploys the fixture flows again (seed.js, through the admin
# HTTP API): 14 flows of 5 nodes each, so tests always meet the same editor.
set -euo pipefail

NR_VERSION=4.1.15
NR_PORT=${NR_PORT:-18304}
NR_USER=${NR_USER:-operator}
NR_PASSWORD=${NR_PASSWORD:-nodered-fixture-pass-2026}
STATE=${STATE:-${TOOLWRIGHT_APPS_DIR:-/var/tmp/toolwright-apps}/node-red}
HERE=$(cd "$(dirname "$0")" && pwd)
URL=http://127.0.0.1:$NR_PORT
log() { printf '== node-red: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    log "installing nodejs, npm (apt-get)"
    as_root apt-get update -qq >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm >&2
  fi
  local have=""
  [ -f "$STATE/app/node_modules/node-red/package.json" ] &&
    have=$(node -p 'require(process.argv[1]).version' "$STATE/app/node_modules/node-red/package.json")
  [ "$have" = "$NR_VERSION" ] && return
  log "installing node-red@$NR_VERSION into $STATE/app (npm)"
  mkdir -p "$STATE/app"
  [ -f "$STATE/app/package.json" ] || echo '{"private": true}' >"$STATE/app/package.json"
  (cd "$STATE/app" && npm install --no-audit --no-fund --omit=dev --loglevel=error "node-red@$NR_VERSION" >&2)
}

running() { [ -f "$STATE/node-red.pid" ] && kill -0 "$(cat "$STATE/node-red.pid")" 2>/dev/null; }
# The editor's page answers without a sign-in (its API does not).
answers() { node -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$URL/"; }

serve() {
  running && return
  log "serving $URL"
  mkdir -p "$STATE/userdir"
  NR_PORT=$NR_PORT NR_USER=$NR_USER NR_PASSWORD=$NR_PASSWORD NR_APP_DIR="$STATE/app" NR_USER_DIR="$STATE/userdir" \
    setsid node "$STATE/app/node_modules/node-red/red.js" --settings "$HERE/settings.js" \
    >"$STATE/node-red.log" 2>&1 </dev/null &
  echo $! >"$STATE/node-red.pid"
  local until=$(( $(date +%s) + 60 ))
  while [ "$(date +%s)" -lt "$until" ]; do
    answers && return
    running || { cat "$STATE/node-red.log" >&2; return 1; }
    sleep 0.2
  done
  log "Node-RED did not answer at $URL"; return 1
}

fixture() {
  NR_URL=$URL NR_USER=$NR_USER NR_PASSWORD=$NR_PASSWORD node "$HERE/seed.js"
  log "fixture flows deployed"
}

stop_pid() { # FILE NAME
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  if kill -0 "$pid" 2>/dev/null; then
    kill -- "-$pid" 2>/dev/null || kill "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    log "stopped $2 (pid $pid)"
  fi
  rm -f "$1"
}

case "${1:-}" in
  start) install; serve; fixture; echo "$URL" ;;
  stop) stop_pid "$STATE/node-red.pid" Node-RED ;;
  status)
    if running; then echo "running: $URL (node pid $(cat "$STATE/node-red.pid"))"
    else echo "stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
