#!/usr/bin/env bash
# Start (or stop) a throwaway PostgreSQL on loopback for tests and examples/scale.
#
#   examples/scale/pg.sh start DIR PORT   # prints the URL to use as store.url / TOOLWRIGHT_TEST_PG
#   examples/scale/pg.sh stop  DIR
#
# Works as root (runs the server as the `postgres` user, installing Debian's
# postgresql package when no binaries are found) and as an ordinary user.
set -euo pipefail

cmd=${1:?usage: pg.sh start|stop DIR [PORT]}
dir=${2:?usage: pg.sh start|stop DIR [PORT]}
port=${3:-55432}

bindir=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bindir=$d
done
if [ -z "$bindir" ] && [ "$cmd" = start ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "pg.sh: installing postgresql" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    for d in /usr/lib/postgresql/*/bin; do
      [ -x "$d/initdb" ] && bindir=$d
    done
  fi
  [ -n "$bindir" ] || { echo "pg.sh: no PostgreSQL binaries under /usr/lib/postgresql" >&2; exit 1; }
fi

as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
start)
  if [ ! -f "$dir/PG_VERSION" ]; then
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    chmod 700 "$dir"
    as_pg "$bindir/initdb" -D "$dir" -U postgres -A trust --no-sync >/dev/null
  fi
  if ! as_pg "$bindir/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_pg "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
      -o "-k $dir -c listen_addresses=127.0.0.1 -p $port -c fsync=off -c max_connections=200" start >/dev/null
  fi
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
stop)
  if [ -n "$bindir" ] && [ -f "$dir/PG_VERSION" ]; then
    as_pg "$bindir/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
  fi
  ;;
*)
  echo "usage: pg.sh start|stop DIR [PORT]" >&2; exit 2 ;;
esac
