#!/usr/bin/env bash
# Writes docs/reply-coverage.md: which commands of specs/redis.lua get a precise typed reply
# decoder, computed by the generator (respgen --reply-coverage), followed by the section that
# tests/reply/reply_diff owns (the commands checked against redis-server): that section is kept
# as it is, and rewritten by running the test with RG_REPLY_DIFF_WRITE=1 when it is built.
#
# Usage: scripts/reply-coverage.sh [path/to/respgen]   (default: build/respgen or the newest
# build*/respgen; reply_diff is looked for next to it)
set -euo pipefail
cd "$(dirname "$0")/.."
respgen=${1:-}
if [[ -z $respgen ]]; then
  if [[ -x build/respgen ]]; then respgen=build/respgen; else respgen=$(ls -t build*/respgen | head -n 1); fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$respgen" --reply-coverage -o "$out" specs/redis.lua
section=$(sed -n '/^<!-- reply_diff: begin -->$/,/^<!-- reply_diff: end -->$/p' docs/reply-coverage.md)
if [[ -z $section ]]; then
  section=$'<!-- reply_diff: begin -->\n<!-- reply_diff: end -->'
fi
{ cat "$out/redis_reply_coverage.md"; echo; echo "$section"; } > docs/reply-coverage.md
diff_test=$(dirname "$respgen")/tests/reply/reply_diff
if [[ -x $diff_test ]]; then
  RG_REPLY_DIFF_WRITE=1 "$diff_test" | tail -n 2
else
  echo "reply-coverage: $diff_test not built: its section of docs/reply-coverage.md is unchanged"
fi
grep -E '^- (commands|precise|partial|generic|commands checked):' docs/reply-coverage.md
