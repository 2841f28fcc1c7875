// Kernel built into stand-alone fat binaries for drv_fatbin.
extern "C" __global__ void scaleIndex(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * i + 1;
}
