#!/usr/bin/env bash
# Regenerates the golden files of the generator tests (tests/gen/golden/) with a built respgen.
# Run it after an intended change of the generated code, then review `git diff tests/gen/golden`
# before committing: the golden tests (ctest -R gen_golden) compare respgen's output with these
# files byte for byte.
#
# Usage: scripts/update-golden.sh [path/to/respgen]
#   default: build/respgen, or else the newest build*/respgen
set -euo pipefail
cd "$(dirname "$0")/.."

respgen=${1:-}
if [[ -z $respgen ]]; then
  if [[ -x build/respgen ]]; then
    respgen=build/respgen
  else
    respgen=$(ls -t build*/respgen 2>/dev/null | head -n 1 || true)
  fi
fi
if [[ -z $respgen || ! -x $respgen ]]; then
  echo "update-golden: no respgen found; build it first or pass its path" >&2
  exit 1
fi

golden=tests/gen/golden
# One directory per spec (the same list as tests/gen/CMakeLists.txt), plus header-only, --iov,
# --fast-options and --client cases.
specs=(specs/example.lua tests/gen/specs/*.lua)
rm -rf "$golden"
for spec in "${specs[@]}"; do
  stem=$(basename "$spec" .lua)
  mkdir -p "$golden/$stem"
  "$respgen" -o "$golden/$stem" "$spec"
done
mkdir -p "$golden/kinds-header-only"
"$respgen" --header-only -o "$golden/kinds-header-only" tests/gen/specs/kinds.lua
mkdir -p "$golden/kinds-iov"
"$respgen" --iov -o "$golden/kinds-iov" tests/gen/specs/kinds.lua
# --fast-options: option paths as compiled code instead of op tables.
mkdir -p "$golden/kinds-fast-options"
"$respgen" --fast-options -o "$golden/kinds-fast-options" tests/gen/specs/kinds.lua
# respgen --client (the generated calls on the connection engine), separate and header-only.
mkdir -p "$golden/kinds-client" "$golden/kinds-client-header-only"
"$respgen" --client -o "$golden/kinds-client" tests/gen/specs/kinds.lua
"$respgen" --client --header-only -o "$golden/kinds-client-header-only" tests/gen/specs/kinds.lua
# respgen --server: only the _server files of the example server's spec (tests/server).
server_golden=tests/server/golden/kv
rm -rf "$server_golden" && mkdir -p "$server_golden"
tmp=$(mktemp -d)
"$respgen" --server -o "$tmp" examples/kvserver/kv.lua
cp "$tmp"/kv_server.h "$tmp"/kv_server.c "$server_golden/"
rm -rf "$tmp"
echo "update-golden: regenerated $golden and $server_golden with $respgen"
