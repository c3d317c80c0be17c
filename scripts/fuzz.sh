#!/bin/sh
# Builds every fuzz target with clang + libFuzzer (ASan, UBSan) and runs each for a bounded time.
#   scripts/fuzz.sh [SECONDS]        per target, default 60; two worker processes at most
# Environment: RG_FUZZ_BUILD (build dir, default build-fuzz), RG_FUZZ_JOBS (1 or 2, default 2).
# Works unattended (CI, root). The repository corpora are only read: each run mutates a temporary
# copy, and crash reproducers are written to $RG_FUZZ_BUILD/fuzz-artifacts. Exits non-zero when a
# target crashed, leaked or timed out. libFuzzer's own output goes to a log shown only on failure.
set -eu

# Each target: its CMake target name, its seed corpus (relative to the repo), its dictionary
# (- for none).
TARGETS="
fuzz_dec tests/fuzz/corpus/dec tests/fuzz/resp.dict
fuzz_keys tests/keys/corpus -
fuzz_req tests/server/corpus tests/fuzz/resp.dict
fuzz_reply tests/reply/corpus tests/fuzz/resp.dict
fuzz_conn tests/client/corpus tests/fuzz/resp.dict
fuzz_cache tests/client/cache-corpus tests/fuzz/resp.dict
fuzz_sentinel tests/client/corpus-sentinel tests/fuzz/resp.dict
fuzz_cluster tests/cluster/corpus tests/fuzz/resp.dict
fuzz_cc tests/cluster/corpus-cc tests/fuzz/resp.dict
"

secs=${1:-60}
case $secs in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RG_FUZZ_BUILD:-"$root/build-fuzz"}
jobs=${RG_FUZZ_JOBS:-2}
[ "$jobs" -ge 1 ] && [ "$jobs" -le 2 ] || jobs=2

names=$(echo "$TARGETS" | awk 'NF {print $1}')
CC=clang cmake -S "$root" -B "$build" -DRG_FUZZ=ON -DRG_TESTS=ON -DRG_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# shellcheck disable=SC2086
cmake --build "$build" --target $names -j2 >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/rg-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$build/fuzz-artifacts"

# fuzz NAME CORPUS DICT: one target's run; returns non-zero on any finding.
fuzz() {
    name=$1 corpus=$2 dict=$3
    exe=$(find "$build/tests" -type f -name "$name" -perm -u+x | head -n 1)
    [ -n "$exe" ] || { echo "$name: not built" >&2; return 1; }
    dir="$work/$name"
    mkdir -p "$dir/corpus"
    cp "$root/$corpus"/* "$dir/corpus/"
    dict_opt=""
    [ "$dict" = "-" ] || dict_opt="-dict=$root/$dict"
    # shellcheck disable=SC2086
    (cd "$dir" && "$exe" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 $dict_opt \
        -artifact_prefix="$build/fuzz-artifacts/$name-" "$dir/corpus" >"$dir/run.log" 2>&1)
    rc=$?
    # With -jobs the parent's status does not reliably carry a worker's crash; logs and artifacts do.
    for log in "$dir"/fuzz-*.log "$dir/run.log"; do
        [ -f "$log" ] || continue
        if grep -qE '^==[0-9]+==ERROR|^SUMMARY: |deadly signal' "$log"; then
            echo "---- $log" >&2
            tail -n 60 "$log" >&2
            rc=1
        fi
    done
    found=$(find "$build/fuzz-artifacts" -type f -name "$name-*" -newer "$dir/corpus" | head -n 20)
    if [ -n "$found" ]; then
        echo "$name: reproducers (replay with $exe FILE):" >&2
        echo "$found" >&2
        rc=1
    fi
    runs=$(grep -ho 'stat::number_of_executed_units: [0-9]*' "$dir"/fuzz-*.log "$dir/run.log" 2>/dev/null |
        awk '{s += $2} END {print s + 0}')
    echo "$name: $runs runs in ${secs}s, $(ls "$dir/corpus" | wc -l) corpus entries, status $rc"
    return $rc
}

status=0
echo "$TARGETS" | awk 'NF' > "$work/targets"
while read -r name corpus dict; do
    fuzz "$name" "$corpus" "$dict" || status=1
done < "$work/targets"
exit $status
