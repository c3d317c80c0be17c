#!/usr/bin/env bash
# Regenerates specs/modules/<name>.lua from the official JSON command specs of the modules in
# ../shared/module-commands/<name>/ (valkey-json, valkey-search) with a built respgen, and the
# warnings the import reports (what the module data gets wrong or leaves out, docs/import.md)
# into tests/import/golden/<name>.warnings.
#
# Usage: scripts/import-module-specs.sh [DIR]
#   DIR      the directory holding one folder of command files per module: by default
#            ../shared/module-commands
#   RESPGEN  environment: the respgen to use; default build/respgen, or else the newest
#            build*/respgen
#
# Review `git diff specs/modules tests/import/golden` before committing; ctest's
# import_module_current_<name> checks that the committed files are what the import gives.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

dir=${1:-$root/../shared/module-commands}
if [[ ! -d $dir ]]; then
  echo "import-module-specs: $dir is not a directory" >&2
  exit 1
fi

# shellcheck source=find-respgen.sh
. "$root/scripts/find-respgen.sh"
find_respgen "$root" import-module-specs

mkdir -p "$root/specs/modules"
for module in "$dir"/*/; do
  name=$(basename "$module")
  warnings=$(mktemp)
  "$respgen" import-json "${module%/}" -o "$root/specs/modules/$name.lua" 2>"$warnings" || {
    cat "$warnings" >&2
    rm -f "$warnings"
    exit 1
  }
  # The warnings name the source as <source>, wherever it is.
  sed "s|^${module%/}/|<source>/|" "$warnings" >"$root/tests/import/golden/$name.warnings"
  rm -f "$warnings"
done
