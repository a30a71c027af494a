#!/usr/bin/env bash
# One command: set up MediaWiki on loopback (setup.sh), run the deployment's
# tests (toolwright test examples/mediawiki/tests) against it, stop it again.
#   bash examples/mediawiki/run.sh [toolwright test flags, e.g. --run 'search']
# TOOLWRIGHT=BIN uses a built binary. A wiki already running is left running.
export MW_USER=${MW_USER:-Toolwright}
export MW_PASSWORD=${MW_PASSWORD:-wiki-fixture-pass-2026}
exec bash "$(dirname "$0")/../realapp-run.sh" mediawiki "$@"
