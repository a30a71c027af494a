#!/usr/bin/env bash
# The one command of a real-application example (examples/mediawiki,
# examples/phpmyadmin, examples/node-red, examples/adminer): set the
# application up on loopback (its setup.sh),
# run the deployment's tests (toolwright test) against it, stop it again.
#   bash examples/realapp-run.sh APP [toolwright test flags, e.g. --run 'search']
# TOOLWRIGHT=BIN uses a built binary; otherwise it is built from this tree.
# An application that was already running is left running. Each APP/run.sh
# sets its own credentials and calls this.
set -euo pipefail
app=${1:?usage: realapp-run.sh APP [toolwright test flags]}
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE="$ROOT/examples/$app"
[ -f "$HERE/setup.sh" ] || { echo "realapp-run.sh: no examples/$app/setup.sh" >&2; exit 2; }

if [ -z "${TOOLWRIGHT:-}" ]; then
  TOOLWRIGHT=$(mktemp -d)/toolwright
  (cd "$ROOT" && go build -o "$TOOLWRIGHT" ./cmd/toolwright)
fi

was_running=0
bash "$HERE/setup.sh" status >/dev/null 2>&1 && was_running=1
t0=$(date +%s)
url=$(bash "$HERE/setup.sh" start)
echo "== $app at $url (set up in $(( $(date +%s) - t0 )) s)" >&2
[ "$was_running" = 1 ] || trap 'bash "$HERE/setup.sh" stop' EXIT

t1=$(date +%s)
status=0
"$TOOLWRIGHT" --config "$HERE/toolwright.yaml" --log-level warn test "$@" || status=$?
echo "== $app tests: $(( $(date +%s) - t1 )) s" >&2
exit $status
