#!/usr/bin/env bash
# Writes docs/reply-coverage.md: which commands of specs/redis.lua get a precise typed reply
# decoder, computed by the generator (respgen --reply-coverage).
#
# Usage: scripts/reply-coverage.sh [path/to/respgen]   (default: build/respgen or the newest
# build*/respgen)
set -euo pipefail
cd "$(dirname "$0")/.."
respgen=${1:-}
if [[ -z $respgen ]]; then
  if [[ -x build/respgen ]]; then respgen=build/respgen; else respgen=$(ls -t build*/respgen | head -n 1); fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$respgen" --reply-coverage -o "$out" specs/redis.lua
cp "$out/redis_reply_coverage.md" docs/reply-coverage.md
grep -E '^- (commands|precise|partial|generic):' docs/reply-coverage.md
