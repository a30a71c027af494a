#!/bin/sh
# Remakes the README's screenshots (the selector health report and the trace
# viewer) from the built-in Acme demo on the system Chromium:
#   examples/screenshots/make.sh [OUT_DIR]      (default docs/screenshots)
set -eu
cd "$(dirname "$0")/../.."
go run ./examples/screenshots -out "${1:-docs/screenshots}"
