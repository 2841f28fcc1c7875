// Fat binaries made by nvcc -fatbin (zstd, LZ4 and uncompressed PTX), loaded
// with cuModuleLoad / cuModuleLoadFatBinary and through a library.
#include "drv_common.h"
#include <fstream>
#include <iterator>
#include <vector>

static int runOne(CUfunction f) {
  const int n = 777;
  CUdeviceptr d;
  DRV(cuMemAlloc(&d, n * 4));
  DRV(cuMemsetD32(d, 5, n));
  int nn = n;
  void *args[] = {&d, &nn};
  DRV(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  std::vector<int> o(n);
  DRV(cuMemcpyDtoH(o.data(), d, n * 4));
  DRV(cuMemFree(d));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += o[i] != 5 * i + 1;
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::printf("usage: drv_fatbin FILE.fatbin...\n");
    return 2;
  }
  DRV(cuInit(0));
  CUcontext ctx;
  DRV(cuDevicePrimaryCtxRetain(&ctx, 0));
  DRV(cuCtxSetCurrent(ctx));
  int bad = 0;
  for (int a = 1; a < argc; ++a) {
    CUmodule m;
    DRV(cuModuleLoad(&m, argv[a]));
    CUfunction f;
    DRV(cuModuleGetFunction(&f, m, "scaleIndex"));
    bad += runOne(f);
    DRV(cuModuleUnload(m));
    std::ifstream in(argv[a], std::ios::binary);
    std::vector<char> img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    DRV(cuModuleLoadFatBinary(&m, img.data()));
    DRV(cuModuleGetFunction(&f, m, "scaleIndex"));
    bad += runOne(f);
    DRV(cuModuleUnload(m));
    CUlibrary lib;
    DRV(cuLibraryLoadData(&lib, img.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUkernel k;
    DRV(cuLibraryGetKernel(&k, lib, "scaleIndex"));
    CUfunction kf;
    DRV(cuKernelGetFunction(&kf, k));
    bad += runOne(kf);
    bad += runOne((CUfunction)k); // a CUkernel is usable as a CUfunction
    DRV(cuLibraryUnload(lib));
  }
  // Corrupt images are refused cleanly.
  std::vector<unsigned> junk = {0xBA55ED50u, 0x00100001u, 0xffffffffu, 0xffffffffu};
  CUmodule m;
  bad += cuModuleLoadFatBinary(&m, junk.data()) == CUDA_SUCCESS;
  DRV(cuDevicePrimaryCtxRelease(0));
  return verdict("drv_fatbin", bad);
}
