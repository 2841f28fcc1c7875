#!/usr/bin/env bash
# libgpuarray / pygpu 0.7.6 (Debian's python3-pygpu) on our libcuda: it
# compiles with NVIDIA's NVRTC and links with cuLinkCreate. Runs its test
# files that use one device, test_blas.py on our libcublas (docs/CLIENTS.md).
# Usage: tests/clients/pygpu.sh [test files...]
source "$(dirname "$0")/common.sh"
install_packages python3-pygpu python3-pytest python3-numpy
PY=/usr/bin/python3
export HOME="$WORK/home"
mkdir -p "$HOME"
export LD_LIBRARY_PATH="$ZLUDA_LIB:$CUDA_ROOT/lib64"
export GPUARRAY_TEST_DEVICE=cuda0
TESTS_DIR=$($PY -c 'import os, pygpu.tests; print(os.path.dirname(pygpu.tests.__file__))')
FILES=(test_elemwise.py test_reduction.py test_gpu_ndarray.py test_basic.py test_operations.py test_blas.py)
[ $# -gt 0 ] && FILES=("$@")
ARGS=()
for F in "${FILES[@]}"; do ARGS+=("$TESTS_DIR/$F"); done
set +e
(cd "$WORK" && $PY -m pytest -q -p no:cacheprovider "${ARGS[@]}") > "$WORK/pygpu.log" 2>&1
set -e
cp "$WORK/pygpu.log" "${PYGPU_LOG_OUT:-/tmp/zluda-pygpu.log}"
# pytest's summary line: "N failed, M passed, K skipped in T s" (any order).
SUMMARY=$(grep -E "(passed|failed|error)" "$WORK/pygpu.log" | tail -1)
echo "pygpu: $SUMMARY (log: ${PYGPU_LOG_OUT:-/tmp/zluda-pygpu.log})"
PASSED=$(echo "$SUMMARY" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || true)
F=$(echo "$SUMMARY" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+" || true)
E=$(echo "$SUMMARY" | grep -oE "[0-9]+ error" | grep -oE "[0-9]+" || true)
PASSED=${PASSED:-0}
FAILED=$(( ${F:-0} + ${E:-0} ))
[ "$PASSED" -gt 0 ] || FAILED=$((FAILED + 1))
verdict
