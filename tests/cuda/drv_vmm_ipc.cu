// Virtual memory management (driver API) and interprocess memory and events
// (runtime API, across two processes): reservations, physical allocations,
// mappings aliased at two addresses, access flags, POSIX file descriptor
// export/import, cudaIpcGetMemHandle/OpenMemHandle and interprocess events
// ordering a second process after a slow kernel of the first.
#include "drv_common.h"

#include <cstring>
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

__global__ void fill(int *P, int N, int Seed) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = I * Seed + 7;
}

__global__ void addOne(int *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] += 1;
}

__device__ unsigned long long globalTimer() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

/// Writes the pattern only after ~200 ms: a reader that does not wait for
/// the event recorded after it sees the old contents.
__global__ void slowFill(int *P, int N, int Seed) {
  unsigned long long T0 = globalTimer();
  while (globalTimer() - T0 < 200000000ull) {
  }
  for (int I = 0; I < N; ++I)
    P[I] = I * Seed + 7;
}

#define RT(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));         \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static int vmm() {
  int Bad = 0;
  CUdevice Dev;
  DRV(cuDeviceGet(&Dev, 0));
  int Vmm = 0, Fd = 0;
  DRV(cuDeviceGetAttribute(&Vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, Dev));
  DRV(cuDeviceGetAttribute(&Fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, Dev));
  EXPECT(Vmm == 1 && Fd == 1);

  CUmemAllocationProp Prop = {};
  Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  Prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Prop.location.id = 0;
  Prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t G = 0;
  DRV(cuMemGetAllocationGranularity(&G, &Prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  EXPECT(G > 0 && (G & (G - 1)) == 0);

  // Two physical allocations mapped into one reservation with a hole between them.
  CUdeviceptr Base, Alias, Third;
  DRV(cuMemAddressReserve(&Base, 4 * G, 0, 0, 0));
  DRV(cuMemAddressReserve(&Alias, 2 * G, 0, 0, 0));
  DRV(cuMemAddressReserve(&Third, 2 * G, 0, 0, 0));
  EXPECT(Base % G == 0 && Alias % G == 0);
  CUmemGenericAllocationHandle A, B;
  DRV(cuMemCreate(&A, 2 * G, &Prop, 0));
  DRV(cuMemCreate(&B, G, &Prop, 0));
  DRV(cuMemMap(Base, 2 * G, 0, A, 0));
  DRV(cuMemMap(Base + 3 * G, G, 0, B, 0));
  CUmemAccessDesc Rw = {};
  Rw.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Rw.location.id = 0;
  Rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DRV(cuMemSetAccess(Base, 2 * G, &Rw, 1));
  DRV(cuMemSetAccess(Base + 3 * G, G, &Rw, 1));

  // The same physical memory at a second address: a write through one is read through the other.
  DRV(cuMemMap(Alias, 2 * G, 0, A, 0));
  DRV(cuMemSetAccess(Alias, 2 * G, &Rw, 1));
  int N = static_cast<int>(2 * G / sizeof(int));
  fill<<<(N + 255) / 256, 256>>>(reinterpret_cast<int *>(Base), N, 3);
  int M = static_cast<int>(G / sizeof(int));
  fill<<<(M + 255) / 256, 256>>>(reinterpret_cast<int *>(Base + 3 * G), M, 5);
  RT(cudaDeviceSynchronize());
  std::vector<int> H(N), H2(M);
  DRV(cuMemcpyDtoH(H.data(), Alias, 2 * G));
  int Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += H[I] != I * 3 + 7;
  DRV(cuMemcpyDtoH(H2.data(), Base + 3 * G, G));
  for (int I = 0; I < M; ++I)
    Wrong += H2[I] != I * 5 + 7;
  EXPECT(Wrong == 0);

  // Through a POSIX file descriptor, as another process would import it.
  int Shareable = -1;
  DRV(cuMemExportToShareableHandle(&Shareable, A, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  EXPECT(Shareable >= 0);
  CUmemGenericAllocationHandle Imported;
  DRV(cuMemImportFromShareableHandle(&Imported, reinterpret_cast<void *>(static_cast<uintptr_t>(Shareable)),
                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  close(Shareable);
  DRV(cuMemMap(Third, 2 * G, 0, Imported, 0));
  DRV(cuMemSetAccess(Third, 2 * G, &Rw, 1));
  addOne<<<(N + 255) / 256, 256>>>(reinterpret_cast<int *>(Third), N);
  RT(cudaDeviceSynchronize());
  DRV(cuMemcpyDtoH(H.data(), Base, 2 * G));
  Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += H[I] != I * 3 + 8;
  EXPECT(Wrong == 0);

  // Handles, properties, access flags, address ranges.
  CUmemGenericAllocationHandle Retained;
  DRV(cuMemRetainAllocationHandle(&Retained, reinterpret_cast<void *>(Alias + 12345)));
  EXPECT(Retained == A);
  DRV(cuMemRelease(Retained));
  CUmemAllocationProp Got = {};
  DRV(cuMemGetAllocationPropertiesFromHandle(&Got, A));
  EXPECT(Got.type == CU_MEM_ALLOCATION_TYPE_PINNED && Got.location.id == 0 &&
         Got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  unsigned long long Flags = 0;
  DRV(cuMemGetAccess(&Flags, &Rw.location, Base + 100));
  EXPECT(Flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  CUmemAccessDesc Ro = Rw;
  Ro.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
  DRV(cuMemSetAccess(Alias, 2 * G, &Ro, 1));
  DRV(cuMemGetAccess(&Flags, &Rw.location, Alias));
  EXPECT(Flags == CU_MEM_ACCESS_FLAGS_PROT_READ);
  CUdeviceptr RangeBase = 0;
  size_t RangeSize = 0;
  DRV(cuMemGetAddressRange(&RangeBase, &RangeSize, Base + 3 * G + 64));
  EXPECT(RangeBase == Base + 3 * G && RangeSize == G);
  unsigned MemType = 0;
  DRV(cuPointerGetAttribute(&MemType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Base + 8));
  EXPECT(MemType == CU_MEMORYTYPE_DEVICE);

  // What the reference says is invalid.
  EXPECT(cuMemMap(Base + G, G, 0, B, 0) == CUDA_ERROR_INVALID_VALUE);       // over a mapping
  EXPECT(cuMemMap(Base + 2 * G, G / 2, 0, B, 0) == CUDA_ERROR_INVALID_VALUE); // not a multiple of the granularity
  EXPECT(cuMemMap(Base + 2 * G, G, G, B, 0) == CUDA_ERROR_INVALID_VALUE);     // past the allocation
  EXPECT(cuMemFree(Base) == CUDA_ERROR_INVALID_VALUE);                        // not cuMemAlloc memory
  EXPECT(cuMemRelease(0x1234) == CUDA_ERROR_INVALID_VALUE);
  CUmemGenericAllocationHandle Tmp;
  EXPECT(cuMemCreate(&Tmp, G / 2, &Prop, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemUnmap(Base, G) == CUDA_ERROR_INVALID_VALUE); // part of a mapping
  int NoFd = -1;
  CUmemGenericAllocationHandle Plain;
  CUmemAllocationProp PlainProp = Prop;
  PlainProp.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
  DRV(cuMemCreate(&Plain, G, &PlainProp, 0));
  EXPECT(cuMemExportToShareableHandle(&NoFd, Plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
         CUDA_ERROR_INVALID_VALUE);
  // The hole between the mappings is mapped later and reads what was written there.
  DRV(cuMemMap(Base + 2 * G, G, 0, Plain, 0));
  DRV(cuMemRelease(Plain)); // the mapping keeps it
  DRV(cuMemSetAccess(Base + 2 * G, G, &Rw, 1));
  DRV(cuMemsetD32(Base + 2 * G, 0xabcd, M));
  DRV(cuMemcpyDtoH(H2.data(), Base + 2 * G, G));
  Wrong = 0;
  for (int I = 0; I < M; ++I)
    Wrong += H2[I] != 0xabcd;
  EXPECT(Wrong == 0);

  DRV(cuMemUnmap(Base, 4 * G)); // three whole mappings at once
  DRV(cuMemUnmap(Alias, 2 * G));
  DRV(cuMemUnmap(Third, 2 * G));
  DRV(cuMemRelease(A));
  DRV(cuMemRelease(B));
  DRV(cuMemRelease(Imported));
  EXPECT(cuMemRelease(A) == CUDA_ERROR_INVALID_VALUE); // gone
  DRV(cuMemAddressFree(Base, 4 * G));
  DRV(cuMemAddressFree(Alias, 2 * G));
  DRV(cuMemAddressFree(Third, 2 * G));
  return verdict("vmm", Bad);
}

struct Handles {
  cudaIpcMemHandle_t Mem;
  cudaIpcEventHandle_t Event;
  int N;
};

/// The second process: waits for the first's event, checks the pattern, adds one.
static int child() {
  int Bad = 0;
  Handles Hs;
  size_t Got = 0;
  while (Got < sizeof Hs) {
    ssize_t R = read(0, reinterpret_cast<char *>(&Hs) + Got, sizeof Hs - Got);
    if (R <= 0)
      return verdict("ipc child (no handles)", 1);
    Got += R;
  }
  int *P = nullptr, *Again = nullptr;
  cudaEvent_t E;
  RT(cudaIpcOpenEventHandle(&E, Hs.Event));
  RT(cudaIpcOpenMemHandle(reinterpret_cast<void **>(&P), Hs.Mem, cudaIpcMemLazyEnablePeerAccess));
  RT(cudaIpcOpenMemHandle(reinterpret_cast<void **>(&Again), Hs.Mem, cudaIpcMemLazyEnablePeerAccess));
  EXPECT(P == Again); // opened twice in one process: one mapping, two references
  RT(cudaEventSynchronize(E)); // the other process's slow kernel is done
  std::vector<int> H(Hs.N);
  RT(cudaMemcpy(H.data(), P, Hs.N * sizeof(int), cudaMemcpyDeviceToHost));
  int Wrong = 0;
  for (int I = 0; I < Hs.N; ++I)
    Wrong += H[I] != I * 11 + 7;
  EXPECT(Wrong == 0);
  addOne<<<(Hs.N + 255) / 256, 256>>>(P, Hs.N);
  RT(cudaDeviceSynchronize());
  RT(cudaIpcCloseMemHandle(Again));
  RT(cudaIpcCloseMemHandle(P));
  EXPECT(cudaIpcCloseMemHandle(P) != cudaSuccess); // closed
  RT(cudaEventDestroy(E));
  return verdict("ipc child", Bad);
}

static int ipc(const char *Self) {
  int Bad = 0;
  const int N = 1 << 20;
  int *P;
  RT(cudaMalloc(&P, N * sizeof(int)));
  RT(cudaMemset(P, 0, N * sizeof(int)));
  cudaEvent_t E;
  EXPECT(cudaEventCreateWithFlags(&E, cudaEventInterprocess) != cudaSuccess); // must also disable timing
  RT(cudaEventCreateWithFlags(&E, cudaEventInterprocess | cudaEventDisableTiming));
  Handles Hs;
  Hs.N = N;
  RT(cudaIpcGetMemHandle(&Hs.Mem, P));
  cudaIpcMemHandle_t Again;
  RT(cudaIpcGetMemHandle(&Again, P));
  int *Self2;
  EXPECT(cudaIpcOpenMemHandle(reinterpret_cast<void **>(&Self2), Hs.Mem, cudaIpcMemLazyEnablePeerAccess) !=
         cudaSuccess); // not in the exporting process
  EXPECT(cudaIpcGetMemHandle(&Again, P + 1) != cudaSuccess); // not the allocation's base
  cudaEvent_t Plain;
  cudaIpcEventHandle_t NoHandle;
  RT(cudaEventCreate(&Plain));
  EXPECT(cudaIpcGetEventHandle(&NoHandle, Plain) != cudaSuccess); // not interprocess
  RT(cudaEventDestroy(Plain));

  // The slow kernel and the record are queued; the handles go to the child at once.
  slowFill<<<1, 1>>>(P, N, 11);
  RT(cudaEventRecord(E, 0));
  RT(cudaIpcGetEventHandle(&Hs.Event, E));

  int Pipe[2];
  if (pipe(Pipe) != 0)
    return verdict("ipc (pipe)", 1);
  posix_spawn_file_actions_t Fa;
  posix_spawn_file_actions_init(&Fa);
  posix_spawn_file_actions_adddup2(&Fa, Pipe[0], 0);
  posix_spawn_file_actions_addclose(&Fa, Pipe[1]);
  char *Argv[] = {const_cast<char *>(Self), const_cast<char *>("--ipc-child"), nullptr};
  pid_t Pid;
  if (posix_spawn(&Pid, "/proc/self/exe", &Fa, nullptr, Argv, environ) != 0)
    return verdict("ipc (spawn)", 1);
  close(Pipe[0]);
  EXPECT(write(Pipe[1], &Hs, sizeof Hs) == static_cast<ssize_t>(sizeof Hs));
  close(Pipe[1]);
  int Status = 0;
  waitpid(Pid, &Status, 0);
  EXPECT(WIFEXITED(Status) && WEXITSTATUS(Status) == 0);

  // The child's increments are in this process's memory.
  std::vector<int> H(N);
  RT(cudaMemcpy(H.data(), P, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += H[I] != I * 11 + 8;
  EXPECT(Wrong == 0);
  RT(cudaFree(P));
  RT(cudaEventDestroy(E));
  return verdict("ipc", Bad);
}

int main(int Argc, char **Argv) {
  if (Argc > 1 && std::strcmp(Argv[1], "--ipc-child") == 0)
    return child();
  DRV(cuInit(0));
  RT(cudaFree(nullptr)); // the runtime's primary context, current for the driver calls too
  int Bad = vmm();
  Bad |= ipc(Argv[0]);
  return verdict("vmm_ipc", Bad);
}
