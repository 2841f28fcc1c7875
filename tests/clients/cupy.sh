#!/usr/bin/env bash
# CuPy in its default mode (NVRTC compiles each kernel to a cubin, our SASS
# front end lifts it; its CUB module is PTX): elementwise, reductions, RawKernel,
# sort, FFT, cuBLAS and cuRAND calls against NumPy (tests/probes/cupy_probe.py)
# on our libraries through `zluda run`. Debian has no cupy: the script runs where
# one is installed (the device machine: docs/CLIENTS.md), PYTHON naming its
# interpreter (default python3).
source "$(dirname "$0")/common.sh"
python_probe cupy cupy_probe.py
verdict
