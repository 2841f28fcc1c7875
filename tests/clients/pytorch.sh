#!/usr/bin/env bash
# PyTorch (its own wheel: machine code only, NVIDIA's math libraries beside it
# in nvidia/*/lib) on our libraries through `zluda run`, which redirects the
# wheel's loads of NVIDIA's libraries we implement to ours (cuDNN included): 52
# tensor operations and training loops (tests/probes/pytorch_ops.py), then its
# cuDNN calls one by one (convolutions, batch norm, RNNs, a CNN trained:
# tests/probes/cudnn_probe.py), each compared with PyTorch's CPU backend.
# Debian has no PyTorch: the script runs where
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
"$ZLUDA" run -- "$PY" "$REPO/tests/probes/cudnn_probe.py" > "$WORK/cudnn.txt" 2>> "$WORK/pytorch.log"
set -e
cp "$WORK/pytorch.log" "${PYTORCH_LOG_OUT:-/tmp/zluda-pytorch.log}"
cat "$WORK/pytorch.txt" "$WORK/cudnn.txt"
PASSED=$(cat "$WORK/pytorch.txt" "$WORK/cudnn.txt" | grep -c "^PASS " || true)
FAILED=$(cat "$WORK/pytorch.txt" "$WORK/cudnn.txt" | grep -cE "^(WRONG|ERROR) " || true)
grep -q "^summary:" "$WORK/pytorch.txt" || FAILED=$((FAILED + 1)) # the run itself stopped
grep -q "^mapped:" "$WORK/cudnn.txt" || FAILED=$((FAILED + 1))
verdict
