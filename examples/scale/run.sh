#!/usr/bin/env bash
# A whole toolwright fleet on one machine, for trying it out:
# PostgreSQL, N Chromium endpoints, M replicas and haproxy, all on loopback.
#
#   examples/scale/run.sh [N_BROWSERS] [M_REPLICAS]     # Ctrl-C stops everything
#
# MCP clients connect to http://127.0.0.1:8080/mcp (haproxy, round-robin,
# http.stateless). The shop the example workflows drive is not part of this
# script: point vars.shop_base at your own site (see README.md).
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-2}
m=${2:-2}
work=$(mktemp -d /tmp/toolwright-scale.XXXXXX)
pgdir=$(mktemp -d /tmp/toolwright-scale-pg.XXXXXX) # its own: the postgres user owns it
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  bash ./pg.sh stop "$pgdir"
  rm -rf "$work" "$pgdir"
}
trap cleanup EXIT INT TERM

command -v haproxy >/dev/null || { echo "install haproxy (apt-get install -y haproxy)" >&2; exit 1; }
url=$(bash ./pg.sh start "$pgdir" 55440)
echo "PostgreSQL: $url"

( cd ../.. && go build -o "$work/toolwright" ./cmd/toolwright )

endpoints=""
for i in $(seq 1 "$n"); do
  port=$((9221 + i))
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --no-first-run --user-data-dir="$work/chromium-$i" \
    --remote-debugging-address=127.0.0.1 --remote-debugging-port="$port" about:blank \
    >"$work/chromium-$i.log" 2>&1 &
  pids+=($!)
  endpoints="$endpoints\"http://127.0.0.1:$port\", "
done

sed -e "s|^  url: .*|  url: \"$url\"|" toolwright.yaml >"$work/toolwright.yaml"
sed -i -e "s|^workflows: .*|workflows: $PWD/workflows|" -e "s|^selectors: .*|selectors: $PWD/selectors.yaml|" \
  -e "s|^state_dir: .*|state_dir: $work/state|" -e "s|^artifacts_dir: .*|artifacts_dir: $work/artifacts|" "$work/toolwright.yaml"
python3 - "$work/toolwright.yaml" "${endpoints%, }" <<'PY'
import re, sys
p, eps = sys.argv[1], sys.argv[2]
s = open(p).read()
s = re.sub(r"  endpoints:[^\n]*\n(    - [^\n]*\n)+", "  endpoints: [" + eps + "]\n", s)
open(p, "w").write(s)
PY
sleep 1

servers=""
for i in $(seq 1 "$m"); do
  port=$((8080 + i))
  "$work/toolwright" --config "$work/toolwright.yaml" serve --http "127.0.0.1:$port" 2>"$work/replica-$i.log" &
  pids+=($!)
  servers="$servers  server r$i 127.0.0.1:$port check inter 1s fall 2 rise 1\n"
done
sed -n '1,/^backend toolwright$/p' haproxy.cfg >"$work/haproxy.cfg"
printf "  balance roundrobin\n  option httpchk\n  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1\n$servers" >>"$work/haproxy.cfg"
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
pids+=($!)

echo "replicas: $m, browsers: $n, logs in $work"
echo "MCP endpoint: http://127.0.0.1:8080/mcp   (grant: $work/toolwright --config $work/toolwright.yaml grant ...)"
wait
