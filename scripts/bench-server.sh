#!/usr/bin/env bash
# The example server (examples/kvserver) against redis-server, same machine, same run, same
# redis-benchmark settings; then the in-memory codec benchmark (bench/server).
#
#   scripts/bench-server.sh [-n REQUESTS] [-c CLIENTS]
#
# Runs `redis-benchmark -t set,get -n REQUESTS -r 100000 -P 16` and `... -P 1` (default
# REQUESTS 1000000, CLIENTS 50, redis-benchmark's default) against each server in turn and prints
# requests per second and the ratio kvserver / redis-server. Each redis-benchmark call is bounded
# by a timeout; both servers are killed at the end, also on failure.
#
# Environment: RG_BENCH_BUILD (build dir, default <repo>/build-bench).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RG_BENCH_BUILD:-$root/build-bench}"
requests=1000000
clients=50
while (($#)); do
    case "$1" in
    -n) requests="$2"; shift 2 ;;
    -c) clients="$2"; shift 2 ;;
    -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-server.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
for tool in redis-server redis-benchmark; do
    command -v "$tool" >/dev/null || { echo "bench-server.sh: $tool not found" >&2; exit 1; }
done

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_TESTS=OFF >/dev/null
cmake --build "$build" --target kvserver bench_server -j "$(nproc)" >/dev/null

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

pids=()
tmp="$(mktemp -d)"
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

kv_port="$(free_port)"
"$build/examples/kvserver/kvserver" --port "$kv_port" 2>/dev/null &
pids+=($!)
redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
    --daemonize no >/dev/null &
pids+=($!)
for port in "$kv_port" "$redis_port"; do
    for _ in $(seq 100); do
        redis-cli -p "$port" PING >/dev/null 2>&1 && break
        sleep 0.05
    done
done

# rps SERVER_PORT PIPELINE -> "set_rps get_rps"
rps() {
    timeout 600 redis-benchmark -p "$1" -t set,get -n "$requests" -r 100000 -P "$2" -c "$clients" \
        --csv 2>/dev/null | awk -F'","' '/^"SET"/ {s=$2} /^"GET"/ {g=$2} END {print s, g}'
}

echo "redis-benchmark -t set,get -n $requests -r 100000 -c $clients ($(nproc) cores)"
printf '%-4s %-4s %14s %14s %7s\n' "-P" "cmd" "kvserver rps" "redis rps" "ratio"
for pipe in 16 1; do
    read -r kv_set kv_get <<<"$(rps "$kv_port" "$pipe")"
    read -r rd_set rd_get <<<"$(rps "$redis_port" "$pipe")"
    for cmd in SET GET; do
        if [[ $cmd == SET ]]; then k=$kv_set r=$rd_set; else k=$kv_get r=$rd_get; fi
        ratio="$(awk -v k="$k" -v r="$r" 'BEGIN { if (r > 0) printf "%.2f", k / r; else print "-" }')"
        printf '%-4s %-4s %14s %14s %7s\n' "$pipe" "$cmd" "$k" "$r" "$ratio"
    done
done
echo
"$build/bench/server/bench_server"
