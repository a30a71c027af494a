#!/usr/bin/env bash
# phpMyAdmin (Debian's `phpmyadmin` package) over MariaDB (`mariadb-server`)
# on loopback, for examples/phpmyadmin.
#
#   bash examples/phpmyadmin/setup.sh start    install if missing, set up once, serve, reload the fixture database
#   bash examples/phpmyadmin/setup.sh stop     stop both servers (by their PIDs)
#   bash examples/phpmyadmin/setup.sh status
#
# MariaDB runs as its own process on 127.0.0.1:$DB_PORT (default 18302) with
# its data, socket and logs in $STATE (default $TOOLWRIGHT_APPS_DIR/phpmyadmin,
# /var/tmp/toolwright-apps/phpmyadmin); phpMyAdmin runs from /usr/share/phpmyadmin
# under `php -S` on 127.0.0.1:$PMA_PORT (default 18303; examples/phpmyadmin/
# toolwright.yaml expects it there; static files sent by examples/realapp-router.php
# with the validators Apache gives them) with its config in $STATE. The only file
# outside $STATE is an inert hook, /etc/phpmyadmin/conf.d/toolwright-examples.php,
# which loads $TOOLWRIGHT_PMA_CONFIG when (and only when) that variable is set.
# The account is $PMA_USER / $PMA_PASSWORD (defaults toolwright / the one
# below: a loopback fixture), with every right on the `harbour` database,
# which every `start` recreates from the fixture (45 vessels, 12 berths, a
# table to drop) so tests always meet the same data.
set -euo pipefail

DB_PORT=${DB_PORT:-18302}
PMA_PORT=${PMA_PORT:-18303}
PMA_USER=${PMA_USER:-toolwright}
PMA_PASSWORD=${PMA_PASSWORD:-pma-fixture-pass-2026}
STATE=${STATE:-${TOOLWRIGHT_APPS_DIR:-/var/tmp/toolwright-apps}/phpmyadmin}
PMA=/usr/share/phpmyadmin
ROUTER=$(cd "$(dirname "$0")/.." && pwd)/realapp-router.php
HOOK=/etc/phpmyadmin/conf.d/toolwright-examples.php
URL=http://127.0.0.1:$PMA_PORT
log() { printf '== phpmyadmin: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install() {
  if [ -f "$PMA/index.php" ] && command -v mariadbd >/dev/null && command -v php >/dev/null; then return; fi
  log "installing phpmyadmin, mariadb-server (apt-get)"
  # No service starts during the install (MariaDB, apache2): a policy-rc.d is
  # added only for the install when the machine has none. phpMyAdmin's own
  # database (dbconfig) and web server set-up are declined.
  local policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
    as_root chmod +x "$policy"
  fi
  printf '%s\n' 'phpmyadmin phpmyadmin/dbconfig-install boolean false' \
    'phpmyadmin phpmyadmin/reconfigure-webserver multiselect' | as_root debconf-set-selections
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    phpmyadmin mariadb-server php-cli >&2 || { [ -z "$policy" ] || as_root rm -f "$policy"; return 1; }
  [ -z "$policy" ] || as_root rm -f "$policy"
}

hook() {
  [ -f "$HOOK" ] && return
  printf '%s\n' '<?php' \
    '// examples/phpmyadmin/setup.sh of toolwright: a php -S it starts sets TOOLWRIGHT_PMA_CONFIG to its own config.' \
    '// Without that variable (every other use of phpMyAdmin) this file does nothing.' \
    "if ((\$toolwrightConfig = getenv('TOOLWRIGHT_PMA_CONFIG')) && is_readable(\$toolwrightConfig)) {" \
    '    include $toolwrightConfig;' '}' | as_root tee "$HOOK" >/dev/null
}

db_running() { [ -f "$STATE/mariadb.pid.own" ] && kill -0 "$(cat "$STATE/mariadb.pid.own")" 2>/dev/null; }
pma_running() { [ -f "$STATE/php.pid" ] && kill -0 "$(cat "$STATE/php.pid")" 2>/dev/null; }
sql() { mariadb --no-defaults --socket="$STATE/mysql.sock" -uroot "$@"; }

configure() {
  [ -f "$STATE/config.inc.php" ] && return
  log "setting up MariaDB and phpMyAdmin in $STATE"
  rm -rf "$STATE"
  mkdir -p "$STATE/tmp"
  mariadb-install-db --no-defaults --datadir="$STATE/mysql" --user="$(id -un)" \
    --auth-root-authentication-method=socket --skip-test-db >"$STATE/install.log" 2>&1 ||
    { cat "$STATE/install.log" >&2; return 1; }
  local secret
  secret=$(head -c 24 /dev/urandom | base64 | tr -d '/+=' | head -c 32)
  cat >"$STATE/config.part" <<PHP
<?php
// phpMyAdmin's config for examples/phpmyadmin (loaded through $HOOK).
\$cfg['blowfish_secret'] = '$secret';
\$cfg['Servers'] = [1 => [
    'auth_type' => 'cookie',
    'host' => '127.0.0.1',
    'port' => '$DB_PORT',
    'connect_type' => 'tcp',
    'compress' => false,
    'AllowNoPassword' => false,
]];
\$cfg['TempDir'] = '$STATE/tmp';
\$cfg['MaxRows'] = 10;
\$cfg['VersionCheck'] = false;
\$cfg['SendErrorReports'] = 'never';
\$cfg['PmaNoRelation_DisableWarning'] = true;
\$cfg['ShowDbStructureCreation'] = false;
\$cfg['NavigationTreeEnableGrouping'] = false;
PHP
  mv "$STATE/config.part" "$STATE/config.inc.php"
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

serve_pma() {
  pma_running && return
  log "serving $URL"
  # Four workers (a page's scripts and styles come in parallel), and the
  # opcode cache php -S leaves off by default.
  TOOLWRIGHT_PMA_CONFIG="$STATE/config.inc.php" PHP_CLI_SERVER_WORKERS=4 \
    setsid php -d opcache.enable_cli=1 -S "127.0.0.1:$PMA_PORT" -t "$PMA" "$ROUTER" >"$STATE/php.log" 2>&1 </dev/null &
  echo $! >"$STATE/php.pid"
  for _ in $(seq 200); do
    php -r 'exit(@file_get_contents($argv[1]) === false ? 1 : 0);' "$URL/index.php" && return
    pma_running || { cat "$STATE/php.log" >&2; return 1; }
    sleep 0.1
  done
  log "phpMyAdmin did not answer at $URL"; return 1
}

# The fixture database, recreated on every start.
fixture() {
  local pw=${PMA_PASSWORD//\'/\'\'}
  {
    echo "CREATE USER IF NOT EXISTS '$PMA_USER'@'127.0.0.1' IDENTIFIED BY '$pw';"
    echo "ALTER USER '$PMA_USER'@'127.0.0.1' IDENTIFIED BY '$pw';"
    echo "DROP DATABASE IF EXISTS harbour; CREATE DATABASE harbour CHARACTER SET utf8mb4;"
    echo "DROP DATABASE IF EXISTS lighthouse_archive; CREATE DATABASE lighthouse_archive CHARACTER SET utf8mb4;"
    echo "GRANT ALL ON harbour.* TO '$PMA_USER'@'127.0.0.1'; GRANT ALL ON lighthouse_archive.* TO '$PMA_USER'@'127.0.0.1';"
    echo "USE harbour;"
    echo "CREATE TABLE berths (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, depth_m DECIMAL(4,1) NOT NULL);"
    echo "CREATE TABLE vessels (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(60) NOT NULL, kind VARCHAR(20) NOT NULL, berth_id INT NOT NULL, length_m DECIMAL(5,1) NOT NULL);"
    echo "CREATE TABLE old_manifests (id INT PRIMARY KEY, note VARCHAR(100));"
    echo "INSERT INTO old_manifests VALUES (1, 'spring 1998'), (2, 'autumn 1998');"
    local i kinds=(ferry trawler yacht tug barge)
    for i in $(seq 1 12); do echo "INSERT INTO berths VALUES ($i, 'Berth $i', $((4 + i % 5)).5);"; done
    for i in $(seq 1 45); do
      printf "INSERT INTO vessels (name, kind, berth_id, length_m) VALUES ('Vessel %02d', '%s', %d, %d.%d);\n" \
        "$i" "${kinds[$((i % 5))]}" $((1 + i % 12)) $((8 + i * 3 % 70)) $((i % 10))
    done
    echo "USE lighthouse_archive; CREATE TABLE keepers (id INT PRIMARY KEY, name VARCHAR(60));"
    echo "INSERT INTO keepers VALUES (1, 'Ada Lovelace'), (2, 'Grace Hopper');"
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
  start) install; hook; configure; serve_db; serve_pma; fixture; echo "$URL" ;;
  stop) stop_pid "$STATE/php.pid" phpMyAdmin; stop_pid "$STATE/mariadb.pid.own" MariaDB ;;
  status)
    if db_running && pma_running; then echo "running: $URL (php pid $(cat "$STATE/php.pid"), mariadbd pid $(cat "$STATE/mariadb.pid.own"))"
    else echo "stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
