# Sourced by the scripts that run a built respgen: find_respgen ROOT CALLER sets $respgen to
# $RESPGEN, else ROOT/build/respgen, else the newest ROOT/build*/respgen; exits with a message
# naming CALLER when there is none.
find_respgen() {
  local root=$1 caller=$2
  respgen=${RESPGEN:-}
  if [[ -z $respgen ]]; then
    if [[ -x $root/build/respgen ]]; then
      respgen=$root/build/respgen
    else
      respgen=$(ls -t "$root"/build*/respgen 2>/dev/null | head -n 1 || true)
    fi
  fi
  if [[ -z $respgen || ! -x $respgen ]]; then
    echo "$caller: no respgen found; build it first or set RESPGEN" >&2
    exit 1
  fi
}
