#!/bin/sh
# Regenerates the decoder seed corpus (tests/fuzz/corpus/dec) from the test vectors: one file per
# vector case, holding its raw RESP input. Run after adding vectors; commit the files it writes.
#   tests/fuzz/make_corpus.sh [BUILD_DIR]    (default: build-corpus, configured if missing)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-"$root/build-corpus"}
out="$root/tests/fuzz/corpus/dec"

if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_BENCH=OFF >/dev/null
fi
cmake --build "$build" --target test_dec_vectors -j2 >/dev/null
mkdir -p "$out"
# Files of vectors that were renamed or removed would otherwise linger.
find "$out" -maxdepth 1 -type f -name 'v_*' -delete
"$build/tests/dec/test_dec_vectors" --corpus "$out"
