#!/usr/bin/env bash
# Regenerates specs/redis.lua from the official JSON command specs with a built respgen.
#
# Usage: scripts/import-redis-specs.sh [DIR]
#   DIR      a directory of command files: ../shared/redis-commands by default, or the
#            src/commands/ folder of your own Redis or Valkey checkout (docs/import.md)
#   RESPGEN  environment: the respgen to use; default build/respgen, or else the newest
#            build*/respgen
#
# The import fails, and leaves specs/redis.lua as it was, on anything it does not understand.
# Review `git diff specs/redis.lua` before committing; ctest's import_redis_current checks that
# the committed file is what importing ../shared/redis-commands gives.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

dir=${1:-$root/../shared/redis-commands}
if [[ ! -d $dir ]]; then
  echo "import-redis-specs: $dir is not a directory" >&2
  exit 1
fi

# shellcheck source=find-respgen.sh
. "$root/scripts/find-respgen.sh"
find_respgen "$root" import-redis-specs

exec "$respgen" import-json "$dir" --overlay "$root/specs/overlays/redis.lua" \
  -o "$root/specs/redis.lua"
