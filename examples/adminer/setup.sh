#!/usr/bin/env bash
# Adminer (Debian's `adminer` package, a real third-party database admin in
# one PHP file) over MariaDB (`mariadb-server`) on loopback, for
# examples/adminer.
#
#   bash examples/adminer/setup.sh start    install if missing, set up once, serve, reload the fixture database
#   bash examples/adminer/setup.sh stop     stop both servers (by their PIDs)
#   bash examples/adminer/setup.sh status
#
# MariaDB runs as its own process on 127.0.0.1:$DB_PORT (default 18305) with
# its data, socket and logs in $STATE (default $TOOLWRIGHT_APPS_DIR/adminer,
# /var/tmp/toolwright-apps/adminer): the set-up of examples/phpmyadmin, in a
# server of its own, so neither example's fixture reload meets the other's
# tests. Adminer runs from /usr/share/adminer/adminer.php under `php -S` on
# 127.0.0.1:$ADMINER_PORT (default 18306; examples/adminer/toolwright.yaml
# expects it there) through an index.php in $STATE/www that enables two of
# the package's plugins, as Debian's /etc/adminer/conf.php does: no version
# check (nothing phones home) and the one server its login form offers.
# Nothing outside $STATE is changed. The account is $ADMINER_USER /
# $ADMINER_PASSWORD (defaults toolwright / the one below: a loopback fixture),
# with every right on the `harbour` database, which every `start` recreates
# from the fixture (six tables: 12 berths, 45 vessels each at a berth by a
# foreign key, and four small ones)
# so tests always meet the same data.
set -euo pipefail

DB_PORT=${DB_PORT:-18305}
ADMINER_PORT=${ADMINER_PORT:-18306}
ADMINER_USER=${ADMINER_USER:-toolwright}
ADMINER_PASSWORD=${ADMINER_PASSWORD:-adminer-fixture-pass-2026}
STATE=${STATE:-${TOOLWRIGHT_APPS_DIR:-/var/tmp/toolwright-apps}/adminer}
ADMINER=/usr/share/adminer
ROUTER=$(cd "$(dirname "$0")/.." && pwd)/realapp-router.php
URL=http://127.0.0.1:$ADMINER_PORT
log() { printf '== adminer: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install() {
  if [ -f "$ADMINER/adminer.php" ] && command -v mariadbd >/dev/null && command -v php >/dev/null &&
    php -r 'exit(extension_loaded("mysqli") ? 0 : 1);'; then return; fi
  log "installing adminer, mariadb-server, php-cli, php-mysql (apt-get)"
  # No service starts during the install (MariaDB): a policy-rc.d is added
  # only for the install when the machine has none.
  local policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
    as_root chmod +x "$policy"
  fi
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    adminer mariadb-server php-cli php-mysql >&2 || { [ -z "$policy" ] || as_root rm -f "$policy"; return 1; }
  [ -z "$policy" ] || as_root rm -f "$policy"
}

db_running() { [ -f "$STATE/mariadb.pid.own" ] && kill -0 "$(cat "$STATE/mariadb.pid.own")" 2>/dev/null; }
web_running() { [ -f "$STATE/php.pid" ] && kill -0 "$(cat "$STATE/php.pid")" 2>/dev/null; }
sql() { mariadb --no-defaults --socket="$STATE/mysql.sock" -uroot "$@"; }

configure() {
  [ -f "$STATE/www/index.php" ] && return
  log "setting up MariaDB and Adminer in $STATE"
  rm -rf "$STATE"
  mkdir -p "$STATE/www"
  mariadb-install-db --no-defaults --datadir="$STATE/mysql" --user="$(id -un)" \
    --auth-root-authentication-method=socket --skip-test-db >"$STATE/install.log" 2>&1 ||
    { cat "$STATE/install.log" >&2; return 1; }
  cat >"$STATE/www/index.part" <<PHP
<?php
// Adminer for examples/adminer of toolwright: Debian's /etc/adminer/conf.php
// with the server of this example as the only one its login form offers.
function adminer_object() {
    include_once "$ADMINER/plugins/plugin.php";
    include_once "$ADMINER/plugins/version-noverify.php";
    include_once "$ADMINER/plugins/login-servers.php";
    return new AdminerPlugin([
        new AdminerVersionNoverify(),
        new AdminerLoginServers(['Harbour MariaDB' => ['server' => '127.0.0.1:$DB_PORT', 'driver' => 'server']]),
    ]);
}
include "$ADMINER/adminer.php";
PHP
  mv "$STATE/www/index.part" "$STATE/www/index.php"
}

serve_db() {
  db_running && return
  log "MariaDB on 127.0.0.1:$DB_PORT"
  setsid mariadbd --no-defaults --datadir="$STATE/mysql" --socket="$STATE/mysql.sock" \
    --port="$DB_PORT" --bind-address=127.0.0.1 --pid-file="$STATE/mariadb.pid" --user="$(id -un)" \
    --skip-name-resolve --innodb-buffer-pool-size=32M --log-error="$STATE/mariadb.err" </dev/null >/dev/null 2>&1 &
  echo $! >"$STATE/mariadb.pid.own"
  for _ in $(seq 300); do
    sql -e 'SELECT 1' >/dev/null 2>&1 && return
    db_running || { cat "$STATE/mariadb.err" >&2; return 1; }
    sleep 0.1
  done
  log "MariaDB did not answer"; return 1
}

serve_web() {
  web_running && return
  log "serving $URL"
  PHP_CLI_SERVER_WORKERS=4 setsid php -d opcache.enable_cli=1 -d session.save_path="$STATE" \
    -S "127.0.0.1:$ADMINER_PORT" -t "$STATE/www" "$ROUTER" >"$STATE/php.log" 2>&1 </dev/null &
  echo $! >"$STATE/php.pid"
  for _ in $(seq 200); do
    php -r 'exit(@file_get_contents($argv[1]) === false ? 1 : 0);' "$URL/" && return
    web_running || { cat "$STATE/php.log" >&2; return 1; }
    sleep 0.1
  done
  log "Adminer did not answer at $URL"; return 1
}

# The fixture database, recreated on every start.
fixture() {
  local pw=${ADMINER_PASSWORD//\'/\'\'}
  {
    echo "CREATE USER IF NOT EXISTS '$ADMINER_USER'@'127.0.0.1' IDENTIFIED BY '$pw';"
    echo "ALTER USER '$ADMINER_USER'@'127.0.0.1' IDENTIFIED BY '$pw';"
    echo "DROP DATABASE IF EXISTS harbour; CREATE DATABASE harbour CHARACTER SET utf8mb4;"
    echo "GRANT ALL ON harbour.* TO '$ADMINER_USER'@'127.0.0.1';"
    echo "USE harbour;"
    echo "CREATE TABLE berths (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, depth_m DECIMAL(4,1) NOT NULL) ENGINE=InnoDB;"
    echo "CREATE TABLE vessels (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(60) NOT NULL, kind VARCHAR(20) NOT NULL,"
    echo "  berth_id INT NOT NULL, length_m DECIMAL(5,1) NOT NULL, FOREIGN KEY (berth_id) REFERENCES berths (id)) ENGINE=InnoDB;"
    echo "CREATE TABLE crews (id INT PRIMARY KEY, name VARCHAR(60) NOT NULL) ENGINE=InnoDB;"
    echo "CREATE TABLE tides (day DATE PRIMARY KEY, high_water TIME NOT NULL) ENGINE=InnoDB;"
    echo "CREATE TABLE pilots (id INT PRIMARY KEY, name VARCHAR(60) NOT NULL) ENGINE=InnoDB;"
    echo "CREATE TABLE cargo (id INT PRIMARY KEY, note VARCHAR(100)) ENGINE=InnoDB;"
    echo "INSERT INTO crews VALUES (1, 'Ada Lovelace'), (2, 'Grace Hopper');"
    local i kinds=(ferry trawler yacht tug barge)
    # Berth 12 is empty: it can be removed; every other berth has vessels.
    for i in $(seq 1 12); do echo "INSERT INTO berths VALUES ($i, 'Berth $i', $((4 + i % 5)).5);"; done
    for i in $(seq 1 45); do
      printf "INSERT INTO vessels (name, kind, berth_id, length_m) VALUES ('Vessel %02d', '%s', %d, %d.%d);\n" \
        "$i" "${kinds[$((i % 5))]}" $((1 + i % 11)) $((8 + i * 3 % 70)) $((i % 10))
    done
  } | sql
  log "fixture database harbour loaded"
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
  start) install; configure; serve_db; serve_web; fixture; echo "$URL" ;;
  stop) stop_pid "$STATE/php.pid" Adminer; stop_pid "$STATE/mariadb.pid.own" MariaDB ;;
  status)
    if db_running && web_running; then echo "running: $URL (php pid $(cat "$STATE/php.pid"), mariadbd pid $(cat "$STATE/mariadb.pid.own"))"
    else echo "stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
