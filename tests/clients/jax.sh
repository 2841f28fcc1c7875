#!/usr/bin/env bash
# JAX (its CUDA plugin: XLA compiles to cubins with ptxas, our SASS front end lifts
# them; cuBLASLt and cuDNN calls land in ours): jax.devices() and jit of
# elementwise, matmul, reduction, softmax and an MLP training step, against
# NumPy and JAX's CPU backend (tests/probes/jax_probe.py)
# on our libraries through `zluda run`. Debian has no jax: the script runs where
# one is installed (the device machine: docs/CLIENTS.md), PYTHON naming its
# interpreter (default python3).
source "$(dirname "$0")/common.sh"
python_probe jax jax_probe.py
verdict
