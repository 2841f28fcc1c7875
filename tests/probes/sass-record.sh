# Runs on the device machine (NVIDIA GPU, CUDA toolkit with nvdisasm/cuobjdump,
# PyTorch), from the repository root, with the release tarball carried in
# build/release/. Writes to $OUT:
#  - golden-listings.tar.xz: nvdisasm -hex listings of the SASS corpus
#    (scripts/sass-corpus: every golden kernel for sm_75/80/86/89/90), the
#    decoding oracle of tests/sass;
#  - programs-listings.tar.xz: listings of tests/cuda's programs built for
#    sm_86 (nvcc -cubin), and for sm_75/sm_90 where they build;
#  - pytorch-forms.tsv: up to 6 encodings of every instruction form in
#    PyTorch's sm_86 cubins (tests/probes/sass_forms.py);
#  - release.txt: the portable release run on this machine's OS: a CUDA
#    program and PyTorch's torch.cuda.is_available() on the CPU device.
# Usage: bash tests/probes/sass-record.sh [listings|release|all]   (default all)
WHAT=${1:-all}
set -x
nvidia-smi -L; nvdisasm --version | tail -2; cat /etc/os-release | head -2; ldd --version | head -1
J=$(nproc)
if [ "$WHAT" != release ]; then
# 1. The golden corpus.
python3 scripts/sass-corpus /tmp/sc -j $J
(cd /tmp/sc && ls *.cubin | xargs -P $J -I{} sh -c 'nvdisasm -hex -c {} > $(basename {} .cubin).sass 2> $(basename {} .cubin).err || true'
 cat *.err | head; tar cf - *.sass dropped.txt | xz -T0 -9 > $OUT/golden-listings.tar.xz)
ls -la $OUT
# 2. The project's CUDA programs as machine code.
mkdir -p /tmp/pc
for a in 86 75 90; do
  ls tests/cuda/*.cu | xargs -P $J -I{} sh -c "nvcc -cubin -arch=sm_$a -O3 -Itests/cuda {} -o /tmp/pc/\$(basename {} .cu).sm_$a.cubin > /dev/null 2>&1 || true"
done
(cd /tmp/pc && ls *.cubin | xargs -P $J -I{} sh -c 'nvdisasm -hex -c {} > $(basename {} .cubin).sass 2>/dev/null || true'
 ls *.cubin | wc -l; tar cf - *.sass | xz -T0 -9 > $OUT/programs-listings.tar.xz)
ls -la $OUT
# 3. PyTorch's sm_86 cubins: the forms they use, a few encodings each.
T=$(python3 -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch_cuda.so'))")
mkdir -p /tmp/pt && cd /tmp/pt
cuobjdump -lelf "$T" | grep -o '[^ ]*sm_86[^ ]*\.cubin' > list.txt; wc -l list.txt
awk 'NR % 5 == 1' list.txt | head -90 > pick.txt
xargs -a pick.txt -P $J -I{} cuobjdump -xelf {} "$T" > /dev/null 2>&1
ls *.cubin | xargs -P $J -I{} sh -c 'nvdisasm -hex -c {} > {}.sass 2>/dev/null || true'
cd - > /dev/null
python3 tests/probes/sass_forms.py 6 /tmp/pt/*.sass > $OUT/pytorch-forms.tsv; wc -l $OUT/pytorch-forms.tsv
rm -rf /tmp/pt
fi
[ "$WHAT" = listings ] && exit 0
# 4. The portable release on this OS.
{
  mkdir -p /tmp/rel && tar -C /tmp/rel -xJf build/release/zluda-*-linux-x86_64.tar.xz && R=$(ls -d /tmp/rel/zluda-*)
  du -sh $R; ls $R/lib
  nvcc -o /tmp/vector_add tests/cuda/vector_add.cu && env -i HOME=/tmp PATH=/usr/bin:/bin $R/bin/zluda run -- /tmp/vector_add
  echo "rc=$?"
  env -i HOME=/tmp PATH=/usr/bin:/bin $R/bin/zluda info; echo "rc=$?"
  for f in $R/lib/*.so* $R/bin/zluda; do env -i ldd $f | grep -q 'not found' && echo "UNRESOLVED in $f: $(env -i ldd $f | grep 'not found')"; done
  PY=$(command -v python3)
  env -i HOME=/tmp PATH=/usr/bin:/bin:$(dirname $PY) $R/bin/zluda run -- $PY -c "import torch; print('torch', torch.__version__, 'cuda available:', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
  echo "rc=$?"
} > $OUT/release.txt 2>&1
cat $OUT/release.txt | tail -30
