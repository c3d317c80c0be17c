#!/bin/sh
# Builds the decoder fuzz target with clang + libFuzzer (ASan, UBSan) and runs it.
#   scripts/fuzz.sh [SECONDS]        default 60; two worker processes at most
# Environment: RG_FUZZ_BUILD (build dir, default build-fuzz), RG_FUZZ_JOBS (1 or 2, default 2).
# Works unattended (CI, root). The repository corpus is only read: the run mutates a temporary
# copy, and new crash reproducers are written to $RG_FUZZ_BUILD/fuzz-artifacts. Exits non-zero when
# the target crashed, leaked or timed out.
set -eu

secs=${1:-60}
case $secs in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RG_FUZZ_BUILD:-"$root/build-fuzz"}
jobs=${RG_FUZZ_JOBS:-2}
[ "$jobs" -ge 1 ] && [ "$jobs" -le 2 ] || jobs=2

CC=clang cmake -S "$root" -B "$build" -DRG_FUZZ=ON -DRG_TESTS=ON -DRG_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz_dec -j2

work=$(mktemp -d "${TMPDIR:-/tmp}/rg-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/corpus" "$build/fuzz-artifacts"
cp "$root"/tests/fuzz/corpus/dec/* "$work/corpus/"

cd "$work"
set +e
"$build/tests/fuzz/fuzz_dec" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" \
    -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -dict="$root/tests/fuzz/resp.dict" -artifact_prefix="$build/fuzz-artifacts/" "$work/corpus"
rc=$?
set -e
# With -jobs the parent's status does not reliably carry a worker's crash; the logs and the
# artifacts do.
for log in fuzz-*.log; do
    [ -f "$log" ] || continue
    if grep -qE '^==[0-9]+==ERROR|^SUMMARY: |deadly signal|fuzz_dec: ' "$log"; then
        echo "---- $log" >&2
        tail -n 60 "$log" >&2
        rc=1
    fi
done
found=$(find "$build/fuzz-artifacts" -type f -newer "$work/corpus" | head -n 20)
if [ -n "$found" ]; then
    echo "fuzz_dec: reproducers (replay with $build/tests/fuzz/fuzz_dec FILE):" >&2
    echo "$found" >&2
    rc=1
fi
echo "fuzz_dec: $(ls "$work/corpus" | wc -l) corpus entries after ${secs}s, status $rc"
exit $rc
