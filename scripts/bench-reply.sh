#!/usr/bin/env bash
# Builds the benchmarks (Release) into build-bench and runs the typed reply benchmark
# (bench/reply: generated tables + rg_reply engine against hiredis; docs/typed-replies.md).
#
#   scripts/bench-reply.sh [RUNS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RG_BENCH_BUILD:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_BENCH=ON -DRG_TESTS=OFF >/dev/null
cmake --build "$build" --target bench_reply -j "$(nproc)" >/dev/null
"$build/bench/reply/bench_reply" "$@"
