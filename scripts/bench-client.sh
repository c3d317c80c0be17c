#!/usr/bin/env bash
# Builds the benchmarks (Release) into build-bench and runs the client benchmark (bench/client:
# the connection engine with generated calls against hiredis over one redis-server it starts;
# docs/client.md). Arguments go to bench_client, e.g. -n 100000 for a shorter run.
#
#   scripts/bench-client.sh [-n COMMANDS] [-d 1,16,256] [-r REPEATS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RG_BENCH_BUILD:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_BENCH=ON -DRG_TESTS=OFF >/dev/null
cmake --build "$build" --target bench_client -j 2 >/dev/null
"$build/bench/client/bench_client" "$@"
