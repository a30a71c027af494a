#!/bin/sh
# The editor check: toolwright's JSON Schemas driven through yaml-language-server
# 1.25 over LSP, as VS Code, Neovim, Helix or Zed would. One command:
#   examples/editor/check.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ ! -x "$here/node_modules/.bin/yaml-language-server" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
schemas=$(mktemp -d)
trap 'rm -rf "$schemas"' EXIT
(cd "$repo" && go run ./cmd/toolwright schema --out "$schemas" >/dev/null)
# A project's schemas, as init writes them (the demo's selector map).
mkdir "$schemas/project"
(cd "$repo" && go run ./cmd/toolwright --config testdata/toolwright.yaml schema --project --out "$schemas/project" >/dev/null)
node "$here/check.mjs" "$schemas" "$repo"
