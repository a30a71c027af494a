#!/bin/sh
# repair-corpus.sh: measures repair proposals (issue 50) on the corpus of
# site changes in testdata/repair/corpus and writes the table into
# examples/bench/RESULTS.md between <!-- repair-corpus:begin --> and
# <!-- repair-corpus:end --> (engine/repair's TestRepairCorpus does the work:
# per change kind, the targets repaired correctly, proposed wrongly, not
# proposed, and the time a proposal adds to a failing call).
#
#   examples/bench/repair-corpus.sh          # run and write RESULTS.md
#   examples/bench/repair-corpus.sh --print  # run and print the table only
set -eu
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--print" ]; then
  exec go test -count=1 -v -run '^TestRepairCorpus$' ./engine/repair
fi
go test -count=1 -run '^TestRepairCorpus$' ./engine/repair -corpus.write
sed -n '/<!-- repair-corpus:begin -->/,/<!-- repair-corpus:end -->/p' examples/bench/RESULTS.md
