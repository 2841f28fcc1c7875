#!/usr/bin/env bash
# Runs on the device machine (NVIDIA's driver): narrows down which of
# tests/cuda/hopper_tma.cu's bulk and tensor copies NVIDIA's hardware refuses
# ("illegal instruction" on an H200: a shared-to-shared cp.async.bulk in a
# launch without a cluster, and some swizzled tile loads). Builds variants of
# the test's own kernels (generated from the test file, nothing copied here),
# one process each, and writes $OUT/hopper-tma-bisect.txt.
set -u
cd "$(dirname "$0")/../.."
W=$(mktemp -d)
python3 - "$W" <<'PY'
import sys
w = sys.argv[1]
src = open("tests/cuda/hopper_tma.cu").read()
head = src[:src.index("// --- plain bulk copies and reductions")]
bulk = src[src.index("__global__ void bulkKernel"):src.index("// --- tensor copies")]
bulk = bulk.replace("__global__ void bulkKernel(const float *In,", "__global__ void bulkKernel(int V, const float *In,")
parts = bulk.split("asm volatile(")
out = parts[0] + "".join(f"if (V < 0 || V == {i}) asm volatile(" + p for i, p in enumerate(parts[1:]))
# Waits only for the copies the variant issues (0: the global->shared load, 7: the shared->shared copy).
out = out.replace("    mbarExpect(&Bar, sizeof Buf);", "    if (V < 0 || V == 0) mbarExpect(&Bar, sizeof Buf);")
out = out.replace("  mbarWait(&Bar, 0);", "  if (V < 0 || V == 0) mbarWait(&Bar, 0);")
out = out.replace("    mbarExpect(&Bar, 64);", "    if (V < 0 || V == 7) mbarExpect(&Bar, 64);")
out = out.replace("    mbarWait(&Bar, 1);", "    if (V < 0 || V == 7) mbarWait(&Bar, V < 0 ? 1 : 0);")
main = r'''
int main(int argc, char **argv) {
  int V = atoi(argv[1]);
  float *In, *Out, *Sum; unsigned *Counts; int *Mins; __half *Halves; unsigned char *Masked;
  cudaMalloc(&In, 4096); cudaMalloc(&Out, 4096); cudaMalloc(&Sum, 4096); cudaMalloc(&Counts, 4096);
  cudaMalloc(&Mins, 4096); cudaMalloc(&Halves, 4096); cudaMalloc(&Masked, 4096);
  cudaMemset(In, 0, 4096);
  if (V >= 100) { // variant V - 100 launched as a cluster of one
    cudaLaunchConfig_t Cfg = {};
    Cfg.gridDim = dim3(1); Cfg.blockDim = dim3(128);
    cudaLaunchAttribute A[1];
    A[0].id = cudaLaunchAttributeClusterDimension;
    A[0].val.clusterDim.x = 1; A[0].val.clusterDim.y = 1; A[0].val.clusterDim.z = 1;
    Cfg.attrs = A; Cfg.numAttrs = 1;
    int W = V - 100;
    cudaLaunchKernelEx(&Cfg, bulkKernel, W, (const float *)In, Out, Sum, Counts, Mins, Halves, Masked);
  } else {
    bulkKernel<<<1, 128>>>(V, In, Out, Sum, Counts, Mins, Halves, Masked);
  }
  printf("bulk variant %d: %s\n", V, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
'''
open(f"{w}/bulk.cu", "w").write(head + "constexpr int BulkN = 512;\n" + out + main)
body = src[:src.index("int main() {")]
cases = [  # name, box, swizzle, x, y
    ("64B swizzle x=3 rows=12 (the test's)", "16, 12", "64B", 3, 50), ("64B swizzle x=4 rows=12", "16, 12", "64B", 4, 50),
    ("64B swizzle x=3 rows=8", "16, 8", "64B", 3, 50), ("64B swizzle x=4 rows=8", "16, 8", "64B", 4, 50),
    ("no swizzle x=13", "32, 8", "NONE", 13, 9), ("32B swizzle x=90 rows=20 (the test's)", "8, 20", "32B", 90, 60),
    ("32B swizzle x=88 rows=16", "8, 16", "32B", 88, 50), ("32B swizzle x=90 rows=16", "8, 16", "32B", 90, 50),
    ("32B swizzle x=88 rows=20", "8, 20", "32B", 88, 50), ("128B swizzle x=41 rows=8", "32, 8", "128B", 41, 20),
]
sw = "\n".join(f'  case {i}: {{ cuuint32_t Box[2] = {{{b}}}; Bad = checkLoad("{n}", T2, 2, Box, Es1, '
               f'CU_TENSOR_MAP_SWIZZLE_{s}, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {x}, {y}, 0); break; }}'
               for i, (n, b, s, x, y) in enumerate(cases))
main = f'''
int main(int argc, char **argv) {{
  Encode = tensorMapEncoder();
  int V = atoi(argv[1]), Bad = -1;
  Tensor3 T2 = makeTensor(100, 70, 1, 112);
  cuuint32_t Es1[3] = {{1, 1, 1}};
  switch (V) {{
{sw}
  }}
  printf("tile variant %d bad=%d\\n", V, Bad);
  return 0;
}}
'''
open(f"{w}/tile.cu", "w").write(body + main)
PY
nvcc -gencode arch=compute_90a,code=sm_90a -Itests/cuda -o "$W/bulk" "$W/bulk.cu" &
nvcc -gencode arch=compute_90a,code=sm_90a -Itests/cuda -o "$W/tile" "$W/tile.cu" &
wait
{
  for v in -1 0 1 2 3 4 5 6 7 107; do timeout 20 "$W/bulk" $v || echo "bulk variant $v: rc=$?"; done
  for v in 0 1 2 3 4 5 6 7 8 9; do timeout 20 "$W/tile" $v 2>&1 | tail -2 || echo "tile variant $v: rc=$?"; done
} > "${OUT:-/tmp}/hopper-tma-bisect.txt" 2>&1
cat "${OUT:-/tmp}/hopper-tma-bisect.txt"
