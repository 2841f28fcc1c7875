#!/usr/bin/env bash
# Numba 0.56 (Debian's python3-numba) runs its own CUDA test suite on our
# libcuda. Client-side set-up for the CUDA 13 toolkit (docs/CLIENTS.md): a
# CUDA_HOME of symlinks where 0.56 looks for libNVVM and libdevice, and a
# sitecustomize.py that binds two driver functions by their CUDA 13 names
# and stamps the NVVM IR version NVVM 13 accepts.
# Usage: tests/clients/numba.sh [--quick] [test modules...]
#   --quick: a subset of a few minutes (what CI runs)
source "$(dirname "$0")/common.sh"
install_packages python3-numba python3-numpy python3-scipy
PY=/usr/bin/python3
export HOME="$WORK/home"
mkdir -p "$HOME"
HOMECUDA="$WORK/cuda"
mkdir -p "$HOMECUDA/nvvm/lib64"
ln -s "$CUDA_ROOT/lib64/libnvvm.so.4" "$HOMECUDA/nvvm/lib64/libnvvm.so"
ln -s "$CUDA_ROOT/nvvm/libdevice" "$HOMECUDA/nvvm/libdevice"
ln -s "$CUDA_ROOT/lib64" "$HOMECUDA/lib64"
ln -s "$CUDA_ROOT/bin" "$HOMECUDA/bin"
ln -s "$CUDA_ROOT/include" "$HOMECUDA/include"
export CUDA_HOME="$HOMECUDA"
export NUMBA_CUDA_DRIVER="$ZLUDA_LIB/libcuda.so.1"
export NUMBA_CUDA_DEFAULT_PTX_CC=7.5
export ZLUDA_NUMBA_SHIM=1
export PYTHONPATH="$CLIENTS_DIR/numba${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$ZLUDA_LIB:$CUDA_ROOT/lib64"

MODULES=(numba.cuda.tests.cudadrv numba.cuda.tests.cudapy)
if [ "${1:-}" = "--quick" ]; then
  shift
  MODULES=(numba.cuda.tests.cudadrv.test_linker numba.cuda.tests.cudapy.test_array
           numba.cuda.tests.cudapy.test_atomics numba.cuda.tests.cudapy.test_reduction
           numba.cuda.tests.cudapy.test_cooperative_groups numba.cuda.tests.cudapy.test_laplace
           numba.cuda.tests.cudapy.test_warp_ops)
fi
[ $# -gt 0 ] && MODULES=("$@")
JOBS="${JOBS:-$(nproc)}"
set +e
$PY -m numba.runtests -m "$JOBS" -v "${MODULES[@]}" > "$WORK/numba.log" 2>&1
set -e
cp "$WORK/numba.log" "${NUMBA_LOG_OUT:-/tmp/zluda-numba.log}"
# unittest's summary: "Ran N tests" and "FAILED (failures=F, errors=E, skipped=S)".
# Failures listed in numba/toolchain-failures.txt are the CUDA 13 toolkit's
# (NVVM), not the driver's: reported, not counted.
LOG="$WORK/numba.log"
RAN=$(grep -oE "^Ran [0-9]+ tests" "$LOG" | grep -oE "[0-9]+" | tail -1 || true)
S=$(grep -oE "skipped=[0-9]+" "$LOG" | tail -1 | cut -d= -f2 || true)
RAN=${RAN:-0}; S=${S:-0}
grep -E "^(FAIL|ERROR): " "$LOG" | sed -E 's/^(FAIL|ERROR): //' > "$WORK/failed.txt" || true
cut -d'|' -f1 "$CLIENTS_DIR/numba/toolchain-failures.txt" | grep -v '^#' | sed 's/ *$//' > "$WORK/toolchain.txt"
TOOLCHAIN=0
OURS=0
while IFS= read -r T; do
  ID=$(echo "$T" | sed -E 's/^([^ ]+ \([^)]*\)).*/\1/')
  if grep -qxF "$ID" "$WORK/toolchain.txt"; then
    TOOLCHAIN=$((TOOLCHAIN + 1))
  else
    OURS=$((OURS + 1))
    echo "failed: $T"
  fi
done < "$WORK/failed.txt"
# Subtests may fail several times within one test: count tests, not reports.
FAILED_TESTS=$(sed -E 's/^([^ ]+ \([^)]*\)).*/\1/' "$WORK/failed.txt" | sort -u | wc -l)
PASSED=$((RAN - S - FAILED_TESTS))
FAILED=$(sed -E 's/^([^ ]+ \([^)]*\)).*/\1/' "$WORK/failed.txt" | sort -u | grep -vxF -f "$WORK/toolchain.txt" | wc -l || true)
echo "numba: ran $RAN, skipped $S, $TOOLCHAIN failure report(s) from the CUDA 13 toolchain not counted (log: ${NUMBA_LOG_OUT:-/tmp/zluda-numba.log})"
[ "$RAN" -gt 0 ] || FAILED=$((FAILED + 1))
verdict
