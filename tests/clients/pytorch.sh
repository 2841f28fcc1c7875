#!/usr/bin/env bash
# PyTorch (its own wheel: machine code only, NVIDIA's math libraries beside it
# in nvidia/*/lib) on our libraries through `zluda run`, which redirects the
# wheel's loads of NVIDIA's libraries we implement to ours: 52 tensor
# operations and training loops, each compared with PyTorch's CPU backend
# (tests/probes/pytorch_ops.py). Debian has no PyTorch: the script runs where
# one is installed (the device machine: docs/CLIENTS.md), PYTHON naming its
# interpreter (default python3).
# Usage: tests/clients/pytorch.sh [operation name substrings...]
source "$(dirname "$0")/common.sh"
PY="${PYTHON:-python3}"
if ! "$PY" -c "import torch" 2> /dev/null; then
  echo "client not installed: PyTorch (pip install torch)"
  exit 0
fi
ZLUDA="$ZLUDA_BUILD/bin/zluda"
[ -x "$ZLUDA" ] || { echo "no $ZLUDA: build the project first (README)" >&2; exit 2; }
export HOME="$WORK/home"
mkdir -p "$HOME"
set +e
"$ZLUDA" run -- "$PY" "$REPO/tests/probes/pytorch_ops.py" "$@" > "$WORK/pytorch.txt" 2> "$WORK/pytorch.log"
set -e
cp "$WORK/pytorch.log" "${PYTORCH_LOG_OUT:-/tmp/zluda-pytorch.log}"
cat "$WORK/pytorch.txt"
PASSED=$(grep -c "^PASS " "$WORK/pytorch.txt" || true)
FAILED=$(grep -cE "^(WRONG|ERROR) " "$WORK/pytorch.txt" || true)
grep -q "^summary:" "$WORK/pytorch.txt" || FAILED=$((FAILED + 1)) # the run itself stopped
verdict
