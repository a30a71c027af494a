#!/usr/bin/env bash
# One command: set up Adminer and MariaDB on loopback (setup.sh), run the
# deployment's tests (toolwright test examples/adminer/tests) against it,
# stop it again.
#   bash examples/adminer/run.sh [toolwright test flags, e.g. --run 'search']
# TOOLWRIGHT=BIN uses a built binary. An Adminer already running is left running.
export ADMINER_USER=${ADMINER_USER:-toolwright}
export ADMINER_PASSWORD=${ADMINER_PASSWORD:-adminer-fixture-pass-2026}
exec bash "$(dirname "$0")/../realapp-run.sh" adminer "$@"
