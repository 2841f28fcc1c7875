# Shared by the client scripts: where our libraries are, package installs,
# and the one-line verdict every script ends with ("N passed, M failed").
# Sourced; expects ZLUDA_BUILD (default: <repo>/build).
set -euo pipefail
CLIENTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$CLIENTS_DIR/../.." && pwd)"
ZLUDA_BUILD="${ZLUDA_BUILD:-$REPO/build}"
ZLUDA_LIB="$ZLUDA_BUILD/lib"
CUDA_ROOT="${CUDA_ROOT:-/usr/local/cuda}"
if [ ! -e "$ZLUDA_LIB/libcuda.so.1" ]; then
  echo "no $ZLUDA_LIB/libcuda.so.1: build the project first (README)" >&2
  exit 2
fi
# Each client sees a fresh HOME (hashcat and Numba cache compiled kernels there)
# and a fresh ZLUDA compile cache unless the caller gives one.
WORK="$(mktemp -d /tmp/zluda-client.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export ZLUDA_CACHE_DIR="${ZLUDA_CACHE_DIR:-$WORK/zluda-cache}"

# install_packages PKG...: Debian packages the client needs (root or sudo).
# Under ctest (ZLUDA_CLIENTS_NO_INSTALL=1) nothing is installed: a missing
# package skips the check ("client not installed").
install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${ZLUDA_CLIENTS_NO_INSTALL:-0}" = 1 ]; then
    echo "client not installed: ${missing[*]} (scripts/install-deps installs it)"
    exit 0
  fi
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

PASSED=0
FAILED=0
# check NAME COMMAND...: runs one check, counts it.
check() {
  local name="$1"
  shift
  if "$@"; then
    echo "ok   $name"
    PASSED=$((PASSED + 1))
  else
    echo "FAIL $name"
    FAILED=$((FAILED + 1))
  fi
}
verdict() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

# python_probe MODULE PROBE: a Python client's probe (tests/probes/PROBE) under `zluda run`, counted by its
# PASS / WRONG / ERROR lines; skipped where PYTHON (default python3) cannot import MODULE. The output is in
# $WORK/probe.txt, the log in $WORK/probe.log.
python_probe() {
  local module="$1" probe="$2"
  PY="${PYTHON:-python3}"
  if ! "$PY" -c "import $module" 2> /dev/null; then
    echo "client not installed: $module"
    exit 0
  fi
  local zluda="$ZLUDA_BUILD/bin/zluda"
  [ -x "$zluda" ] || { echo "no $zluda: build the project first (README)" >&2; exit 2; }
  export HOME="$WORK/home"
  mkdir -p "$HOME"
  set +e
  "$zluda" run -- "$PY" "$REPO/tests/probes/$probe" > "$WORK/probe.txt" 2> "$WORK/probe.log"
  set -e
  cat "$WORK/probe.txt"
  PASSED=$(grep -c "^PASS " "$WORK/probe.txt" || true)
  FAILED=$(grep -cE "^(WRONG|ERROR)" "$WORK/probe.txt" || true)
  if [ $((PASSED + FAILED)) -eq 0 ]; then # the probe stopped before its first case
    tail -3 "$WORK/probe.log"
    FAILED=1
  fi
}
