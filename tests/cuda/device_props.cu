// Device enumeration and properties are self-consistent and match the attributes.
#include "common.h"
#include <cstring>

int main() {
  int count = 0, bad = 0;
  CHECK(cudaGetDeviceCount(&count));
  bad += count < 1;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  bad += p.warpSize != 32;
  bad += p.maxThreadsPerBlock != 1024;
  bad += p.maxThreadsDim[0] != 1024 || p.maxThreadsDim[2] != 64;
  bad += p.maxGridSize[0] != 2147483647;
  bad += p.multiProcessorCount < 1;
  bad += p.totalGlobalMem == 0;
  bad += p.sharedMemPerBlock != 48 * 1024;
  bad += std::strlen(p.name) == 0;
  bad += p.major * 10 + p.minor < 75;
  int v;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  bad += v != p.multiProcessorCount;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
  bad += v != p.major;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrUnifiedAddressing, 0));
  bad += v != 1;
  bad += cudaSetDevice(count) == cudaSuccess; // out of range
  (void)cudaGetLastError();
  CHECK(cudaSetDevice(0));
  int dev = -1;
  CHECK(cudaGetDevice(&dev));
  bad += dev != 0;
  int drv = 0, rt = 0;
  CHECK(cudaDriverGetVersion(&drv));
  CHECK(cudaRuntimeGetVersion(&rt));
  bad += drv < 13000 || rt < 13000;
  size_t freeB, totalB;
  CHECK(cudaMemGetInfo(&freeB, &totalB));
  bad += freeB == 0 || freeB > totalB;
  char bus[32];
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  int byBus = -1;
  CHECK(cudaDeviceGetByPCIBusId(&byBus, bus));
  bad += byBus != 0;
  std::printf("device 0: %s, cc %d.%d, %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);
  return verdict("device_props", bad);
}
