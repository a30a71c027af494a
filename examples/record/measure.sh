#!/bin/sh
# Time from `record` to a validated, replayed tool for the paginated search
# (issue 20): TestRecordSearch records testdata/record's sign-in and search
# with real input events (a scripted person: sign in, search, mark the rows,
# three fields and the next-page control, turn a page, Finish), then drafts,
# writes, validates and replays the tool in a fresh environment. The person's
# part runs at machine speed here; a person adds their own minute to it.
#
#   sh examples/record/measure.sh [RUNS]
set -e
cd "$(dirname "$0")/../.."
runs=${1:-3}
i=0
while [ "$i" -lt "$runs" ]; do
	go test -count=1 -run '^TestRecordSearch$' -v ./engine/record 2>&1 |
		grep -E 'record → validated|after Finish|drafted and written|validated at|replay call' | sed 's/^ *//'
	i=$((i + 1))
done
