#!/usr/bin/env bash
# Callgrind instructions per command of bench_client's own client (generated calls on rg_conn,
# blocking socket) at one pipeline depth, SET and GET, split by the source file each instruction
# comes from (inlined code counts where it was written):
#   encode  the generated encoders and calls (redis.c, redis_client.c) and rg_enc
#   decode  the typed reply decoder (rg_reply, rg_dec, the digit and decimal helpers)
#   engine  the connection engine (rg_conn: queueing, the feed loop, completion, pushes)
#   other   the benchmark's loop and the C library (the system calls' own work is the kernel's:
#           callgrind does not see it)
# Builds bench_client with -g into build-bench-g (Release flags otherwise). Needs valgrind.
#
#   scripts/bench-split.sh [DEPTH] [COMMANDS]      (default 256 200000)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RG_BENCH_BUILD:-$root/build-bench-g}"
depth="${1:-256}"
n="${2:-200000}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DRG_BENCH=ON \
  -DRG_TESTS=OFF >/dev/null
cmake --build "$build" --target bench_client -j 2 >/dev/null
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for cmd in set get; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$cmd" --toggle-collect='ours_run*' \
    "$build/bench/client/bench_client" -c ours -t "$cmd" -d "$depth" -n "$n" -r 1 \
    >/dev/null 2>&1
  callgrind_annotate --threshold=100 "$out/$cmd" >"$out/$cmd.txt" 2>/dev/null
done
python3 - "$out" "$n" "$depth" <<'PY'
import re, sys
out, n, depth = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# Where a source file's instructions go (by its name); anything else is "other".
parts = [("encode", r"(^|/)(rg_enc\.[ch]|rg_ops\.c|rg_dtoa\.c|rg_args\.[ch]|redis(_client)?\.c)$"),
         ("decode", r"(^|/)(rg_reply\.[ch]|rg_dec(_inline)?\.[ch]|rg_decimal\.h|rg_digits\.h|redis_reply\.c)$"),
         ("engine", r"(^|/)(rg_conn\.[ch]|rg_push\.[ch]|rg_backoff\.[ch])$")]
print(f"callgrind instructions per command, bench_client's client, depth {depth}, {n} commands")
print(f"{'cmd':4} {'encode':>7} {'decode':>7} {'engine':>7} {'other':>7} {'total':>7}  engine/codec")
for cmd in ("set", "get"):
    sums = {"encode": 0, "decode": 0, "engine": 0, "other": 0}
    for line in open(f"{out}/{cmd}.txt"):
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+?):\S", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        part = next((p for p, rx in parts if re.search(rx, m.group(2))), "other")
        sums[part] += int(m.group(1).replace(",", ""))
    per = {k: v / n for k, v in sums.items()}
    total = sum(per.values())
    codec = per["encode"] + per["decode"]
    print(f"{cmd.upper():4} {per['encode']:7.0f} {per['decode']:7.0f} {per['engine']:7.0f} "
          f"{per['other']:7.0f} {total:7.0f}  {per['engine'] / codec:.2f}")
PY
