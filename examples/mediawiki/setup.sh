#!/usr/bin/env bash
# MediaWiki (Debian's `mediawiki` package) on loopback, for examples/mediawiki.
#
#   bash examples/mediawiki/setup.sh start    install if missing, set up once, serve, load the fixture pages
#   bash examples/mediawiki/setup.sh stop     stop the server (by its PID)
#   bash examples/mediawiki/setup.sh status
#
# The wiki runs from /usr/share/mediawiki under `php -S` on 127.0.0.1:$MW_PORT
# (default 18301; examples/mediawiki/toolwright.yaml expects it there; static files
# sent by examples/realapp-router.php with the validators Apache gives them) with its own LocalSettings.php, SQLite database and uploads
# in $STATE (default $TOOLWRIGHT_APPS_DIR/mediawiki, /var/tmp/toolwright-apps/mediawiki);
# nothing under /etc or /var/lib is changed. The sysop account is $MW_USER /
# $MW_PASSWORD (defaults Toolwright / the one below: a loopback fixture).
# Everything is idempotent: a second `start` finds the install, the set-up
# wiki and the running server, and only reloads the fixture pages.
set -euo pipefail

MW_PORT=${MW_PORT:-18301}
MW_USER=${MW_USER:-Toolwright}
MW_PASSWORD=${MW_PASSWORD:-wiki-fixture-pass-2026}
STATE=${STATE:-${TOOLWRIGHT_APPS_DIR:-/var/tmp/toolwright-apps}/mediawiki}
HERE=$(cd "$(dirname "$0")" && pwd)
MW=/usr/share/mediawiki
ROUTER=$HERE/../realapp-router.php
URL=http://127.0.0.1:$MW_PORT
log() { printf '== mediawiki: %s\n' "$*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install() {
  if [ -f "$MW/index.php" ] && command -v php >/dev/null && php -r 'exit(extension_loaded("pdo_sqlite") ? 0 : 1);'; then return; fi
  log "installing mediawiki, php-cli, php-sqlite3 (apt-get)"
  # No service starts during the install (apache2 comes with the package):
  # a policy-rc.d is added only for the install when the machine has none.
  local policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
    as_root chmod +x "$policy"
  fi
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    mediawiki php-cli php-sqlite3 >&2 || { [ -z "$policy" ] || as_root rm -f "$policy"; return 1; }
  [ -z "$policy" ] || as_root rm -f "$policy"
}

running() { [ -f "$STATE/php.pid" ] && kill -0 "$(cat "$STATE/php.pid")" 2>/dev/null; }

configure() {
  if [ -f "$STATE/LocalSettings.php" ]; then return; fi
  log "setting up the wiki in $STATE"
  rm -rf "$STATE"
  mkdir -p "$STATE/db" "$STATE/images" "$STATE/tmp" "$STATE.new"
  MW_CONFIG_FILE="$STATE/LocalSettings.php" php "$MW/maintenance/install.php" \
    --dbtype sqlite --dbpath "$STATE/db" --dbname wiki \
    --server "$URL" --scriptpath "" --lang en \
    --pass "$MW_PASSWORD" --confpath "$STATE.new" \
    "Toolwright Wiki" "$MW_USER" >"$STATE/install.log" 2>&1 || { cat "$STATE/install.log" >&2; return 1; }
  cat "$STATE.new/LocalSettings.php" - >"$STATE/LocalSettings.part" <<PHP

# ---- examples/mediawiki/setup.sh ----
\$wgUploadDirectory = "$STATE/images";
\$wgUploadPath = "\$wgScriptPath/img_auth.php";
\$wgEnableUploads = true;
\$wgUseImageMagick = false;
\$wgTmpDirectory = "$STATE/tmp";
\$wgCacheDirectory = "$STATE/tmp";
\$wgMainCacheType = CACHE_DB;
\$wgJobRunRate = 1;
\$wgRCMaxAge = 10 * 365 * 86400;
\$wgDefaultSkin = "vector";
# A fixture on loopback: no rate limit on the sysop's own edits in tests.
\$wgRateLimits = [];
\$wgPasswordAttemptThrottle = false;
PHP
  mv "$STATE/LocalSettings.part" "$STATE/LocalSettings.php"
  rm -rf "$STATE.new"
}

serve() {
  if running; then return; fi
  log "serving $URL"
  # Four workers (a page's styles and scripts come from load.php in parallel), and
  # the opcode cache php -S leaves off by default.
  MW_CONFIG_FILE="$STATE/LocalSettings.php" PHP_CLI_SERVER_WORKERS=4 \
    setsid php -d opcache.enable_cli=1 -S "127.0.0.1:$MW_PORT" -t "$MW" "$ROUTER" >"$STATE/php.log" 2>&1 </dev/null &
  echo $! >"$STATE/php.pid"
  for _ in $(seq 200); do
    if php -r 'exit(@file_get_contents($argv[1]) === false ? 1 : 0);' "$URL/api.php?action=query&format=json"; then return; fi
    running || { cat "$STATE/php.log" >&2; return 1; }
    sleep 0.1
  done
  log "the wiki did not answer at $URL"; return 1
}

# The fixture: 30 "Lighthouse" pages (search pages through them), a main
# page, and the pages the tests read; edited by the maintenance script, so
# a second load changes nothing (same text: null edits).
fixture() {
  log "loading the fixture pages"
  local n
  n=$(ls "$HERE/seed" | wc -l)
  MW_CONFIG_FILE="$STATE/LocalSettings.php" php "$MW/maintenance/importTextFiles.php" \
    --rc --overwrite --user "$MW_USER" -s "fixture" "$HERE"/seed/*.txt >"$STATE/fixture.log" 2>&1 ||
    { cat "$STATE/fixture.log" >&2; return 1; }
  MW_CONFIG_FILE="$STATE/LocalSettings.php" php "$MW/maintenance/runJobs.php" >>"$STATE/fixture.log" 2>&1 || true
  log "$n fixture pages loaded"
}

stop() {
  if running; then
    local pid
    pid=$(cat "$STATE/php.pid")
    # php -S with workers forks: its setsid group holds the workers.
    kill -- "-$pid" 2>/dev/null || kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    log "stopped (pid $pid)"
  fi
  rm -f "$STATE/php.pid"
}

case "${1:-}" in
  start) install; configure; serve; fixture; echo "$URL" ;;
  stop) stop ;;
  status) if running; then echo "running: $URL (pid $(cat "$STATE/php.pid"))"; else echo "stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
