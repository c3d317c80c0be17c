#!/usr/bin/env bash
# The whole test suite, as CI runs it: a Release build and its ctest suite, the same suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (but for the checks by external tools, labelled
# toolchain, which ran once already), and every fuzz target for a bounded time.
# Usage: scripts/test.sh            (FUZZ_SECONDS=N to change the fuzzing time per target: 40 s,
#                                    so that CI, seven targets one after the other, stays well under
#                                    its 20 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '\n== %s\n' "$*"; }

# Runs ctest and adds its counts to the totals printed at the end.
passed=0 failed=0
run_ctest() {
  local log
  log=$(mktemp)
  set +e
  ctest "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  local total bad
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  bad=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -n 1)
  rm -f "$log"
  passed=$((passed + ${total:-0} - ${bad:-0}))
  failed=$((failed + ${bad:-0}))
  return "$rc"
}

step "release build and tests (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
run_ctest --test-dir build --output-on-failure -j"$jobs"

step "ASan + UBSan build and tests (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRG_SANITIZE=ON -DRG_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Tests labelled toolchain check what compilers and clang-format make of generated and
# hand-written C: the same whatever respgen was built with, so they ran above, once.
run_ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE toolchain
unset ASAN_OPTIONS UBSAN_OPTIONS

step "fuzzing (${FUZZ_SECONDS:-40} s per target)"
scripts/fuzz.sh "${FUZZ_SECONDS:-40}"

step "summary"
echo "$passed passed, $failed failed"
