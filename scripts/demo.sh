#!/usr/bin/env bash
# The main job, from a fresh Debian machine: install what is missing, build respgen, generate the
# C codec from the bundled specs, and run the demo client against a throwaway redis-server.
# Usage: scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only what the demo runs: the tests and benchmarks are scripts/test.sh's job.
cmake --build build -j"$jobs" --target respgen demo >/dev/null

echo "== respgen generates C from every bundled spec (build/generated/)"
mkdir -p build/generated
for spec in specs/*.lua; do
  build/respgen -o build/generated "$spec"
done
ls -l build/generated

echo
echo "== the demo client (examples/demo, built from specs/example.lua) against redis-server"
dir=$(mktemp -d)
trap 'redis-cli -s "$dir/redis.sock" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
redis-server --port 0 --unixsocket "$dir/redis.sock" --save '' --appendonly no \
  --dir "$dir" --logfile "$dir/redis.log" --daemonize yes
for _ in $(seq 50); do [ -S "$dir/redis.sock" ] && break; sleep 0.1; done
build/examples/demo/demo "$dir/redis.sock"

echo
echo "== respgen dump: a captured RESP3 reply stream, as redis-cli would show it, then as JSON"
sample=$'*2\r\n$5\r\nhello\r\n:42\r\n%1\r\n+ttl\r\n,1.5\r\n|1\r\n+popularity\r\n:90\r\n#t\r\n'
printf '%s' "$sample" | build/respgen dump
printf '%s' "$sample" | build/respgen dump --json
