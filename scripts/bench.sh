#!/usr/bin/env bash
# Builds the benchmarks (Release) into build-bench and runs the decoder benchmark against hiredis.
#
#   scripts/bench.sh [--callgrind | --callgrind-only] [bench_dec options...]
#
#   --callgrind       after the timing table, count instructions per reply under callgrind
#   --callgrind-only  only the callgrind counts
#   other options go to bench_dec: --runs N, --case D1|D2|D3|D4, --min-run-ms MS
#
# Environment: RG_BENCH_BUILD (build dir, default <repo>/build-bench), CC (compiler).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RG_BENCH_BUILD:-$root/build-bench}"
callgrind=0
timing=1
args=()
for arg in "$@"; do
    case "$arg" in
    --callgrind) callgrind=1 ;;
    --callgrind-only) callgrind=1 timing=0 ;;
    -h | --help)
        sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) args+=("$arg") ;;
    esac
done

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_BENCH=ON -DRG_TESTS=OFF >/dev/null
cmake --build "$build" --target bench_dec -j "$(nproc)" >/dev/null
bin="$build/bench/dec/bench_dec"

if ((timing)); then
    "$bin" ${args[@]+"${args[@]}"}
fi
((callgrind)) || exit 0

if ! command -v valgrind >/dev/null; then
    echo "bench.sh: valgrind not found (Debian: apt-get install valgrind)" >&2
    exit 1
fi
# The binary brackets one pass with CALLGRIND_TOGGLE_COLLECT when it was built with
# valgrind/callgrind.h; otherwise the pass is the function cg_region.
if [[ "$("$bin" --callgrind-method)" == client ]]; then
    collect=(--collect-atstart=no)
else
    collect=(--collect-atstart=no --toggle-collect=cg_region)
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# One collected pass (after one warm-up pass) per CASE:VARIANT [BULK].
runs=(
    "d1:pull" "d1:cb" "d1:batch" "d1:hiredis" "d1:hiredis-null"
    "d2:pull" "d2:cb" "d2:batch" "d2:hiredis" "d2:hiredis-null"
    "d3:pull 1024" "d3:cb 1024" "d3:pull 1048576" "d3:cb 1048576"
    "d4:pull-win" "d4:cb-win" "d4:batch-win" "d4:pull-copy" "d4:cb-copy" "d4:hiredis"
    "d4:hiredis-null"
)
status=0
echo
echo "callgrind: instructions (Ir) per reply, one pass after a warm-up pass"
printf '%-8s %-14s %14s %8s %12s\n' case variant Ir replies Ir/reply
for run in "${runs[@]}"; do
    read -r spec bulk <<<"$run"
    extra=()
    label="${spec%%:*}"
    if [[ -n "${bulk:-}" ]]; then
        extra=(--bulk "$bulk")
        if ((bulk % 1048576 == 0)); then
            label="$label@$((bulk / 1048576))MiB"
        else
            label="$label@$((bulk / 1024))KiB"
        fi
    fi
    if ! valgrind --tool=callgrind "${collect[@]}" --callgrind-out-file="$tmp/cg.out" \
        "$bin" --callgrind "$spec" ${extra[@]+"${extra[@]}"} >"$tmp/out" 2>"$tmp/err"; then
        printf '%-8s %-14s %s\n' "$label" "${spec#*:}" \
            "FAILED: $(grep -v '^==' "$tmp/err" | tail -n 1)"
        status=1
        continue
    fi
    ir="$(awk '/^summary:/ { print $2 }' "$tmp/cg.out")"
    replies="$(sed -n 's/.* replies \([0-9]*\) .*/\1/p' "$tmp/out")"
    awk -v c="$label" -v v="${spec#*:}" -v ir="$ir" -v n="$replies" \
        'BEGIN { printf "%-8s %-14s %14d %8d %12.1f\n", c, v, ir, n, ir / n }'
done
exit "$status"
