#!/usr/bin/env bash
# One command: set up phpMyAdmin and MariaDB on loopback (setup.sh), run the deployment's
# tests (toolwright test examples/phpmyadmin/tests) against it, stop it again.
#   bash examples/phpmyadmin/run.sh [toolwright test flags, e.g. --run 'search']
# TOOLWRIGHT=BIN uses a built binary; otherwise it is built from this tree.
# A phpMyAdmin that was already running is left running.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export PMA_USER=${PMA_USER:-toolwright}
export PMA_PASSWORD=${PMA_PASSWORD:-pma-fixture-pass-2026}

if [ -z "${TOOLWRIGHT:-}" ]; then
  TOOLWRIGHT=$(mktemp -d)/toolwright
  (cd "$ROOT" && go build -o "$TOOLWRIGHT" ./cmd/toolwright)
fi

was_running=0
bash "$HERE/setup.sh" status >/dev/null 2>&1 && was_running=1
t0=$(date +%s)
url=$(bash "$HERE/setup.sh" start)
echo "== phpmyadmin at $url (set up in $(( $(date +%s) - t0 )) s)" >&2
[ "$was_running" = 1 ] || trap 'bash "$HERE/setup.sh" stop' EXIT

t1=$(date +%s)
status=0
"$TOOLWRIGHT" --config "$HERE/toolwright.yaml" --log-level warn test "$@" || status=$?
echo "== phpmyadmin tests: $(( $(date +%s) - t1 )) s" >&2
exit $status
