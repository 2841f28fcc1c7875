//===- HipBridgeTest.cpp - the HIP bridge without an AMD GPU ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "hip_bridge/Hip.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <cstring>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace zluda;

namespace {

TEST(HipLibrary, TheInstalledRuntimeLoadsWithEveryRequiredFunction) {
  const hip::Library &L = hip::Library::get();
  ASSERT_TRUE(L.ok()) << L.error();
  EXPECT_NE(L.path().find("libamdhip64"), std::string::npos);
#define HIP_FN(Name, Required)                                                                                         \
  if (Required) {                                                                                                      \
    EXPECT_NE(reinterpret_cast<void *>(L.Name), nullptr) << #Name;                                                     \
  }
#include "hip_bridge/HipApi.def"
  // No GPU here: HIP answers, and the bridge says so as CUDA would.
  std::vector<hip::DeviceInfo> Gpus;
  std::string Why;
  EXPECT_EQ(hip::enumerateDevices(L, Gpus, Why), CUDA_ERROR_NO_DEVICE);
  EXPECT_TRUE(Gpus.empty());
  EXPECT_TRUE(Why.find("hipInit") == 0 || Why.find("hipGetDeviceCount") == 0) << Why;
}

TEST(HipLibrary, AMissingLibraryIsAClearError) {
  hip::Library L = hip::Library::load("/nonexistent/libamdhip64.so.5");
  EXPECT_FALSE(L.ok());
  EXPECT_NE(L.error().find("cannot load /nonexistent/libamdhip64.so.5"), std::string::npos) << L.error();
  std::vector<hip::DeviceInfo> Gpus;
  std::string Why;
  EXPECT_EQ(hip::enumerateDevices(L, Gpus, Why), CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(Why, L.error());
}

TEST(HipLibrary, ALibraryWithoutHipIsRefusedByName) {
  hip::Library L = hip::Library::load("libm.so.6");
  EXPECT_FALSE(L.ok());
  EXPECT_NE(L.error().find("lacks hipInit"), std::string::npos) << L.error();
}

/// A ROCm 6 runtime without the ROCm 5 hipGetDeviceProperties: the bridge
/// reads ROCm 6's layout (fields before, between and after its reserved
/// blocks), and without /dev/kfd asks it because it was named explicitly.
TEST(HipLibrary, RocmSixPropertiesAreReadThroughR0600) {
  hip::Library L = hip::Library::load(ZLUDA_FAKE_HIP_ROCM6);
  ASSERT_TRUE(L.ok()) << L.error();
  EXPECT_TRUE(L.isRocm6());
  EXPECT_EQ(reinterpret_cast<void *>(L.hipGetDeviceProperties), nullptr);
  EXPECT_NE(reinterpret_cast<void *>(L.hipGetDevicePropertiesR0600), nullptr);
  std::vector<hip::DeviceInfo> Gpus;
  std::string Why;
  ASSERT_EQ(hip::enumerateDevices(L, Gpus, Why), CUDA_SUCCESS) << Why;
  ASSERT_EQ(Gpus.size(), 1u);
  const hip::DeviceInfo &D = Gpus[0];
  EXPECT_EQ(D.Name, "Fake AMD Radeon PRO W7900 (ROCm 6)");
  EXPECT_EQ(D.TotalMem, size_t(64) << 30);
  EXPECT_EQ(D.ComputeUnits, 96);
  EXPECT_EQ(D.ClockKhz, 1700000);
  EXPECT_EQ(D.MemoryBusWidth, 4096);
  EXPECT_EQ(D.PciBus, 3);
  EXPECT_EQ(D.ThreadsPerCu, 2048);
  EXPECT_TRUE(D.Cooperative);
  EXPECT_EQ(D.GcnArchName.rfind("gfx", 0), 0u) << D.GcnArchName;
  EXPECT_EQ(D.SharedPerCu, 64 * 1024);
  hip::DeviceInfo Old;
  EXPECT_FALSE(hip::propertiesR0000(L, 0, Old)) << "this runtime has no ROCm 5 layout";
}

/// HIP's codes mostly carry CUDA's numbers; the table must agree with them
/// except where it maps on purpose (runtime-only HIP codes have no driver
/// equivalent of the same number).
TEST(HipErrors, TheTableKeepsCudaNumbersOrMapsOnPurpose) {
  const std::set<std::string> Remapped = {
      "hipErrorInvalidConfiguration", "hipErrorInvalidPitchValue", "hipErrorInvalidSymbol",
      "hipErrorInvalidDevicePointer", "hipErrorInvalidMemcpyDirection", "hipErrorInsufficientDriver",
      "hipErrorMissingConfiguration", "hipErrorPriorLaunchFailure", "hipErrorInvalidDeviceFunction",
      "hipErrorRuntimeMemory", "hipErrorRuntimeOther"};
  size_t Rows = 0;
#define HIP_ERR(Hip, Cuda)                                                                                             \
  ++Rows;                                                                                                              \
  EXPECT_EQ(hip::toCuda(Hip), Cuda) << #Hip;                                                                           \
  EXPECT_STREQ(hip::hipErrorName(Hip), #Hip);                                                                          \
  if (!Remapped.count(#Hip)) {                                                                                         \
    EXPECT_EQ(static_cast<int>(Hip), static_cast<int>(Cuda)) << #Hip << " maps to a different number";                \
  }
#include "hip_bridge/HipErrors.def"
  EXPECT_GE(Rows, 70u);
  // Spot checks of what programs meet first.
  EXPECT_EQ(hip::toCuda(hipErrorNoDevice), CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(hip::toCuda(hipErrorOutOfMemory), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(hip::toCuda(hipErrorIllegalAddress), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(hip::toCuda(hipErrorNotReady), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(hip::toCuda(static_cast<hipError_t>(12345)), CUDA_ERROR_UNKNOWN);
}

/// cuInit of our libcuda under each ZLUDA_BACKEND, in a child process (the
/// choice is made once per process).
int cuInitWith(const char *Backend, std::string *Name) {
  int Pipe[2];
  if (pipe(Pipe) != 0)
    return -1;
  pid_t P = fork();
  if (P == 0) {
    close(Pipe[0]);
    setenv("ZLUDA_BACKEND", Backend, 1);
    setenv("ZLUDA_LOG", "off", 1);
    void *H = dlopen(ZLUDA_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    if (!H)
      _exit(255);
    auto Init = reinterpret_cast<int (*)(unsigned)>(dlsym(H, "cuInit"));
    auto GetName = reinterpret_cast<int (*)(char *, int, int)>(dlsym(H, "cuDeviceGetName"));
    int R = Init(0);
    char Buf[128] = {0};
    if (R == 0 && GetName(Buf, sizeof Buf, 0) == 0)
      (void)!write(Pipe[1], Buf, strlen(Buf));
    _exit(R > 254 ? 254 : R);
  }
  close(Pipe[1]);
  char Buf[128] = {0};
  ssize_t N = read(Pipe[0], Buf, sizeof Buf - 1);
  close(Pipe[0]);
  int St = 0;
  waitpid(P, &St, 0);
  if (Name)
    *Name = N > 0 ? std::string(Buf, N) : "";
  return WIFEXITED(St) ? WEXITSTATUS(St) : -1;
}

TEST(Backend, HipWithoutAGpuIsNoDeviceAndAutoFallsBackToTheCpu) {
  std::string Name;
  EXPECT_EQ(cuInitWith("hip", &Name), CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(cuInitWith("auto", &Name), 0);
  EXPECT_EQ(Name.rfind("ZLUDA CPU device", 0), 0u) << Name;
  EXPECT_EQ(cuInitWith("cpu", &Name), 0);
  EXPECT_EQ(cuInitWith("vulkan", &Name), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
