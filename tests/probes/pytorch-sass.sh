#!/bin/bash
# On the device machine: PyTorch's tensor operations from its own wheel's
# machine code (sm_86 cubins, no PTX) on our CPU device, through the portable
# release carried in build/release/. Writes to $OUT:
#  - pytorch-ops.txt: one line per operation (tests/probes/pytorch_ops.py);
#  - pytorch-log.txt: our warnings (the kernels the SASS front end refused);
#  - pytorch-refusals.txt: the refusals counted by reason;
#  - refused-cubins.tar.xz: the cubins of the modules with refused kernels (ZLUDA_DUMP_REFUSED).
# Usage: bash tests/probes/pytorch-sass.sh [seconds, default 480] [operation names: substrings, all when none]
set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/rel $OUT && tar -C /tmp/rel -xJf build/release/zluda-*-linux-x86_64.tar.xz && R=$(ls -d /tmp/rel/zluda-*)
PY=$(command -v python3)
env -i HOME=/tmp PATH=/usr/bin:/bin:$(dirname $PY) ZLUDA_LOG=warn ZLUDA_CACHE_DIR=/tmp/zc ZLUDA_DUMP_REFUSED=/tmp/refused \
  timeout ${1:-480} $R/bin/zluda run -- $PY tests/probes/pytorch_ops.py "${@:2}" > $OUT/pytorch-ops.txt 2> $OUT/pytorch-log.txt
echo "rc=$?" >> $OUT/pytorch-ops.txt
grep -o "will not run: cannot lift [^ ]* ([^)]*): .*" $OUT/pytorch-log.txt | sed -E 's/cannot lift [^ ]* \(0x[0-9a-f]+, ([^)]*)\): /\1: /' |
  sed -E 's/0x[0-9a-f]+/N/g' | sort | uniq -c | sort -rn > $OUT/pytorch-refusals.txt
xz -k -9 $OUT/pytorch-log.txt 2>/dev/null
[ -d /tmp/refused ] && tar -C /tmp -cJf $OUT/refused-cubins.tar.xz refused
cat $OUT/pytorch-ops.txt; head -40 $OUT/pytorch-refusals.txt
