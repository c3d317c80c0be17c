#!/usr/bin/env bash
# Lines of C that are neither blank nor comments, per file (the measure of issue 21's trial:
# examples/short's apps against their hiredis versions). Comments are stripped by the compiler's
# own lexer (gcc -fpreprocessed: includes and macros left as written).
# Usage: scripts/sloc.sh FILE.c...
set -euo pipefail
for f in "$@"; do
  n=$(gcc -fpreprocessed -dD -E -P "$f" | grep -cv '^[[:space:]]*$' || true)
  printf '%5d  %s\n' "$n" "$f"
done
