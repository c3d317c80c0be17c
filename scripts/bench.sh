#!/usr/bin/env bash
# Builds the benchmarks (Release) into build-bench and runs the decoder benchmark (bench_dec) and
# the encoder benchmark (bench_gen) against hiredis.
#
#   scripts/bench.sh [--dec | --enc] [--callgrind | --callgrind-only] [options...]
#
#   --dec, --enc      only the decoder, only the encoder benchmark (default: both)
#   --callgrind       after the timing tables, count instructions per reply / request
#   --callgrind-only  only the callgrind counts
#   other options go to both programs: --runs N, --min-run-ms MS, and --case D1..D4 (decoder
#   only) or --case E1..E8 (encoder only)
#
# Environment: RG_BENCH_BUILD (build dir, default <repo>/build-bench), CC (compiler).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RG_BENCH_BUILD:-$root/build-bench}"
callgrind=0
timing=1
dec=1
enc=1
args=()
prev=
for arg in "$@"; do
    if [[ $prev == --case ]]; then
        case "$arg" in
        [Ee]*) dec=0 ;;
        *) enc=0 ;;
        esac
    fi
    prev=$arg
    case "$arg" in
    --callgrind) callgrind=1 ;;
    --callgrind-only) callgrind=1 timing=0 ;;
    --dec) enc=0 ;;
    --enc) dec=0 ;;
    -h | --help)
        sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) args+=("$arg") ;;
    esac
done

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_BENCH=ON -DRG_TESTS=OFF >/dev/null
targets=()
if ((dec)); then targets+=(bench_dec); fi
if ((enc)); then targets+=(bench_gen); fi
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)" >/dev/null
bin="$build/bench/dec/bench_dec"
enc_bin="$build/bench/enc/bench_gen"

if ((timing)); then
    if ((dec)); then "$bin" ${args[@]+"${args[@]}"}; fi
    if ((dec && enc)); then echo; fi
    if ((enc)); then "$enc_bin" ${args[@]+"${args[@]}"}; fi
fi
((callgrind)) || exit 0

if ! command -v valgrind >/dev/null; then
    echo "bench.sh: valgrind not found (Debian: apt-get install valgrind)" >&2
    exit 1
fi
# The binary brackets one pass with CALLGRIND_TOGGLE_COLLECT when it was built with
# valgrind/callgrind.h; otherwise the pass is the function cg_region.
if ((dec)) && [[ "$("$bin" --callgrind-method)" == client ]]; then
    collect=(--collect-atstart=no)
else
    collect=(--collect-atstart=no --toggle-collect=cg_region)
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# One collected pass (after one warm-up pass) per CASE:VARIANT [BULK].
runs=(
    "d1:pull" "d1:cb" "d1:batch" "d1:inline" "d1:hiredis" "d1:hiredis-null"
    "d2:pull" "d2:cb" "d2:batch" "d2:inline" "d2:hiredis" "d2:hiredis-null"
    "d3:pull 1024" "d3:cb 1024" "d3:pull 1048576" "d3:cb 1048576"
    "d4:pull-win" "d4:cb-win" "d4:batch-win" "d4:inline-win" "d4:pull-copy" "d4:cb-copy"
    "d4:hiredis" "d4:hiredis-null"
)
status=0
if ((dec)); then
    echo
    echo "callgrind: instructions (Ir) per reply, one pass after a warm-up pass"
    printf '%-8s %-14s %14s %8s %12s\n' case variant Ir replies Ir/reply
else
    runs=()
fi
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

# The encoder: one collected batch of requests (after a warm-up batch) per CASE:VARIANT.
if ((enc)); then
    if [[ "$("$enc_bin" --callgrind-method)" == client ]]; then
        collect=(--collect-atstart=no)
    else
        collect=(--collect-atstart=no --toggle-collect=cg_region)
    fi
    echo
    echo "callgrind: instructions (Ir) per encoded request, one batch after a warm-up batch"
    printf '%-8s %-14s %14s %8s %12s\n' case variant Ir requests Ir/request
    for cas in e1 e2 e3 e4 e5 e6 e7 e8; do
        for variant in gen gen-size gen-pipe hand hand-pipe argv hiredis; do
            if ! valgrind --tool=callgrind "${collect[@]}" --callgrind-out-file="$tmp/cg.out" \
                "$enc_bin" --callgrind "$cas:$variant" >"$tmp/out" 2>"$tmp/err"; then
                printf '%-8s %-14s %s\n' "$cas" "$variant" \
                    "FAILED: $(grep -v '^==' "$tmp/err" | tail -n 1)"
                status=1
                continue
            fi
            ir="$(awk '/^summary:/ { print $2 }' "$tmp/cg.out")"
            ops="$(sed -n 's/.* ops \([0-9]*\) .*/\1/p' "$tmp/out")"
            awk -v c="$cas" -v v="$variant" -v ir="$ir" -v n="$ops" \
                'BEGIN { printf "%-8s %-14s %14d %8d %12.1f\n", c, v, ir, n, ir / n }'
        done
    done
fi
exit "$status"
