#!/usr/bin/env bash
# One command: set up phpMyAdmin and MariaDB on loopback (setup.sh), run the
# deployment's tests (toolwright test examples/phpmyadmin/tests) against it,
# stop it again.
#   bash examples/phpmyadmin/run.sh [toolwright test flags, e.g. --run 'search']
# TOOLWRIGHT=BIN uses a built binary. A phpMyAdmin already running is left running.
export PMA_USER=${PMA_USER:-toolwright}
export PMA_PASSWORD=${PMA_PASSWORD:-pma-fixture-pass-2026}
exec bash "$(dirname "$0")/../realapp-run.sh" phpmyadmin "$@"
