#!/bin/bash
# On the device machine: PyTorch's f32 memory-efficient attention
# (tests/probes/sdpa_probe.py) on NVIDIA's GPU, then on our CPU device through
# the release carried in build/release/, its launches dumped.
# Writes to $OUT: gpu.txt, ours.txt (the probe's lines), log.txt.xz,
# refused.tar.xz (cubins of modules with refused kernels, with nvdisasm's
# listings), launches.tar.xz (the parameter buffers and the inputs, to replay
# with tests/probes/fmha_replay.cpp; the kernel's cubin is extracted from
# PyTorch's libtorch_cuda.so with cuobjdump -xelf).
# Usage: bash tests/probes/sdpa-capture.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/rel /tmp/d /tmp/refused $OUT && tar -C /tmp/rel -xJf build/release/zluda-*-linux-x86_64.tar.xz
R=$(ls -d /tmp/rel/zluda-*)
PY=$(command -v python3)
timeout 120 $PY tests/probes/sdpa_probe.py > $OUT/gpu.txt 2>&1
E="env -i HOME=/tmp PATH=/usr/bin:/bin:$(dirname $PY) ZLUDA_LOG=warn ZLUDA_CACHE_DIR=/tmp/zc"
$E ZLUDA_DUMP_REFUSED=/tmp/refused ZLUDA_DUMP_LAUNCH=fmha ZLUDA_DUMP_DIR=/tmp/d timeout 250 $R/bin/zluda run -- $PY tests/probes/sdpa_probe.py /tmp/d > $OUT/ours.txt 2> /tmp/log.txt
echo "rc=$?" >> $OUT/ours.txt
xz -9 < /tmp/log.txt > $OUT/log.txt.xz
for f in /tmp/refused/*.cubin; do [ -f "$f" ] && nvdisasm -hex -c "$f" > "${f%.cubin}.sass" 2>&1; done
tar -C /tmp -cJf $OUT/refused.tar.xz refused
(cd /tmp/d && tar -cJf $OUT/launches.tar.xz launch-* q*.bin k*.bin v*.bin)
ls -la $OUT /tmp/refused; cat $OUT/gpu.txt $OUT/ours.txt
