#!/usr/bin/env bash
# Installs the Debian packages respgen needs to build, test and benchmark, skipping those present.
# Usage: scripts/deps.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  cmake make gcc clang pkg-config     # build
  liblua5.4-dev                       # the embedded Lua (linked statically)
  libcmocka-dev                       # tests
  clang-format                        # generated-code format check
  lua-check                           # luacheck over gen/lua and specs (tests/style)
  redis-server redis-tools            # integration tests start their own server
  redis-sentinel                      # Sentinel tests start three of their own
  libhiredis-dev                      # benchmarks compare against hiredis
  libuv1-dev                          # the libuv client adapter (adapters/rg_uv.h)
  libssl-dev openssl                  # TLS (adapters/rg_tls.h); tests make certificates
  valgrind                            # callgrind instruction counts
  libclang-rt-14-dev                  # libFuzzer and sanitizer runtimes for clang
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
