#!/usr/bin/env bash
# One command: set up Node-RED on loopback (setup.sh), run the deployment's
# tests (toolwright test examples/node-red/tests) against it, stop it again.
#   bash examples/node-red/run.sh [toolwright test flags, e.g. --run 'search']
# TOOLWRIGHT=BIN uses a built binary. A Node-RED already running is left running.
export NR_USER=${NR_USER:-operator}
export NR_PASSWORD=${NR_PASSWORD:-nodered-fixture-pass-2026}
exec bash "$(dirname "$0")/../realapp-run.sh" node-red "$@"
