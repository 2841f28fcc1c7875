#!/usr/bin/env bash
# CuPy in its default mode (NVRTC compiles each kernel to a cubin, our SASS
# front end lifts it; its CUB module is PTX): elementwise, reductions, RawKernel,
# sort, FFT, cuBLAS and cuRAND calls against NumPy (tests/probes/cupy_probe.py)
# on our libraries through `zluda run`. Debian has no cupy: the script runs where
# one is installed (the device machine: docs/CLIENTS.md), PYTHON naming its
# interpreter (default python3).
source "$(dirname "$0")/common.sh"
PY="${PYTHON:-python3}"
if ! "$PY" -c "import cupy" 2> /dev/null; then
  echo "client not installed: cupy"
  exit 0
fi
ZLUDA="$ZLUDA_BUILD/bin/zluda"
[ -x "$ZLUDA" ] || { echo "no $ZLUDA: build the project first (README)" >&2; exit 2; }
export HOME="$WORK/home"
mkdir -p "$HOME"
set +e
"$ZLUDA" run -- "$PY" "$REPO/tests/probes/cupy_probe.py" > "$WORK/out.txt" 2> "$WORK/log.txt"
set -e
cat "$WORK/out.txt"
PASSED=$(grep -c "^PASS " "$WORK/out.txt" || true)
FAILED=$(grep -cE "^(WRONG|ERROR)" "$WORK/out.txt" || true)
verdict
