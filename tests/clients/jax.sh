#!/usr/bin/env bash
# JAX (its CUDA plugin: XLA compiles to cubins with ptxas, our SASS front end lifts
# them; cuBLASLt and cuDNN calls land in ours): jax.devices() and jit of
# elementwise, matmul, reduction, softmax and an MLP training step, against
# NumPy and JAX's CPU backend (tests/probes/jax_probe.py)
# on our libraries through `zluda run`. Debian has no jax: the script runs where
# one is installed (the device machine: docs/CLIENTS.md), PYTHON naming its
# interpreter (default python3).
source "$(dirname "$0")/common.sh"
PY="${PYTHON:-python3}"
if ! "$PY" -c "import jax" 2> /dev/null; then
  echo "client not installed: jax"
  exit 0
fi
ZLUDA="$ZLUDA_BUILD/bin/zluda"
[ -x "$ZLUDA" ] || { echo "no $ZLUDA: build the project first (README)" >&2; exit 2; }
export HOME="$WORK/home"
mkdir -p "$HOME"
set +e
"$ZLUDA" run -- "$PY" "$REPO/tests/probes/jax_probe.py" > "$WORK/out.txt" 2> "$WORK/log.txt"
set -e
cat "$WORK/out.txt"
PASSED=$(grep -c "^PASS " "$WORK/out.txt" || true)
FAILED=$(grep -cE "^(WRONG|ERROR)" "$WORK/out.txt" || true)
verdict
