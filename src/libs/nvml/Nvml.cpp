//===- Nvml.cpp - our NVML: the devices of our libcuda ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file libnvidia-ml.so.1 over our driver: the devices, their names, UUIDs,
/// PCI locations, memory and compute capabilities are libcuda's (as
/// cuDeviceGet* gives them); the live figures of the CPU device come from
/// /proc and /sys: utilization from /proc/stat, temperature from hwmon or
/// the thermal zones, power from RAPL (powercap), clocks from cpufreq or
/// /proc/cpuinfo; processes are those that have our libcuda.so.1 mapped.
/// What the machine does not expose returns NVML_ERROR_NOT_SUPPORTED, as
/// NVML does for a GPU without the sensor. On AMD GPUs the live figures come
/// from rocm-smi (librocm_smi64, loaded at run time like libamdhip64, our own
/// declarations of its C API; ZLUDA_ROCM_SMI_LIBRARY names another file), its
/// device found by PCI location; without it they return NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "common/Log.h"
#include "zluda/nvml_abi.h"

#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#define NVML_API extern "C" __attribute__((visibility("default")))

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDeviceGetUuid_v2(CUuuid *, CUdevice);
CUresult cuDeviceTotalMem_v2(size_t *, CUdevice);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDeviceGetPCIBusId(char *, int, CUdevice);
}
const char *zludaBackendName(); // src/driver/Driver.cpp

namespace zluda::nvml {
namespace {

struct Device {
  unsigned Index = 0;
  std::string Name, Uuid, BusId; ///< Uuid as NVML prints it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
  unsigned long long Total = 0;
  int Major = 0, Minor = 0;
  unsigned Domain = 0, Bus = 0, Slot = 0;
};

std::mutex Mu;
int InitCount = 0;
std::vector<std::unique_ptr<Device>> &devices() {
  static auto *V = new std::vector<std::unique_ptr<Device>>; // kept for the process's life (handles stay valid)
  return *V;
}

nvmlReturn_t fromCuda(CUresult R) {
  return R == CUDA_SUCCESS ? NVML_SUCCESS : R == CUDA_ERROR_NO_DEVICE ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_ERROR_UNKNOWN;
}

nvmlReturn_t load() {
  if (CUresult R = cuInit(0))
    return fromCuda(R);
  if (!devices().empty())
    return NVML_SUCCESS;
  int N = 0;
  cuDeviceGetCount(&N);
  for (int I = 0; I < N; ++I) {
    auto D = std::make_unique<Device>();
    CUdevice Dev;
    cuDeviceGet(&Dev, I);
    D->Index = static_cast<unsigned>(I);
    char Buf[256] = {};
    cuDeviceGetName(Buf, sizeof Buf, Dev);
    D->Name = Buf;
    CUuuid U;
    cuDeviceGetUuid_v2(&U, Dev);
    char S[64];
    const auto *B = reinterpret_cast<const unsigned char *>(U.bytes);
    std::snprintf(S, sizeof S, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", B[0], B[1],
                  B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9], B[10], B[11], B[12], B[13], B[14], B[15]);
    D->Uuid = S;
    size_t Bytes = 0;
    cuDeviceTotalMem_v2(&Bytes, Dev);
    D->Total = Bytes;
    cuDeviceGetAttribute(&D->Major, 75, Dev);
    cuDeviceGetAttribute(&D->Minor, 76, Dev);
    int Dom = 0, Bus = 0, Slot = 0;
    cuDeviceGetAttribute(&Dom, 50, Dev); // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID
    cuDeviceGetAttribute(&Bus, 33, Dev); // CU_DEVICE_ATTRIBUTE_PCI_BUS_ID
    cuDeviceGetAttribute(&Slot, 34, Dev); // CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID
    D->Domain = Dom;
    D->Bus = Bus;
    D->Slot = Slot;
    std::snprintf(S, sizeof S, "%08X:%02X:%02X.0", D->Domain, D->Bus, D->Slot);
    D->BusId = S;
    devices().push_back(std::move(D));
  }
  return NVML_SUCCESS;
}

// --- rocm-smi (AMD GPUs) -------------------------------------------------------------------------------

/// The parts of rocm-smi's C API read here (rocm_smi.h of ROCm 5.2: statuses 0 = success; temperatures in
/// millidegrees Celsius, power in microwatts, memory in bytes, clocks in Hz).
struct RsmiFrequencies {
  uint32_t NumSupported, Current;
  uint64_t Frequency[32];
};
struct RocmSmi {
  int (*Init)(uint64_t);
  int (*NumDevices)(uint32_t *);
  int (*PciId)(uint32_t, uint64_t *);
  int (*Busy)(uint32_t, uint32_t *);
  int (*MemoryBusy)(uint32_t, uint32_t *);
  int (*Temperature)(uint32_t, uint32_t, int, int64_t *); ///< sensor (0 edge, 1 junction), metric (0 current)
  int (*PowerAverage)(uint32_t, uint32_t, uint64_t *);
  int (*PowerCap)(uint32_t, uint32_t, uint64_t *);
  int (*MemoryUsage)(uint32_t, int, uint64_t *); ///< memory type 0: VRAM
  int (*Clock)(uint32_t, int, RsmiFrequencies *); ///< clock type 0: system (shader), 4: memory
};
constexpr int RsmiClockSystem = 0, RsmiClockMemory = 4;

/// rocm-smi, loaded and initialized once (null when it cannot be).
const RocmSmi *rocmSmi() {
  static const RocmSmi *Loaded = [] () -> const RocmSmi * {
    const char *Env = std::getenv("ZLUDA_ROCM_SMI_LIBRARY");
    void *L = nullptr;
    for (const char *Name : {Env && *Env ? Env : "librocm_smi64.so.1", "librocm_smi64.so"})
      if ((L = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!L)
      return nullptr;
    static RocmSmi S;
    auto sym = [&](auto &F, const char *Name) {
      F = reinterpret_cast<std::remove_reference_t<decltype(F)>>(dlsym(L, Name));
      return F != nullptr;
    };
    bool Ok = sym(S.Init, "rsmi_init") && sym(S.NumDevices, "rsmi_num_monitor_devices") &&
              sym(S.PciId, "rsmi_dev_pci_id_get") && sym(S.Busy, "rsmi_dev_busy_percent_get") &&
              sym(S.MemoryBusy, "rsmi_dev_memory_busy_percent_get") &&
              sym(S.Temperature, "rsmi_dev_temp_metric_get") && sym(S.PowerAverage, "rsmi_dev_power_ave_get") &&
              sym(S.PowerCap, "rsmi_dev_power_cap_get") && sym(S.MemoryUsage, "rsmi_dev_memory_usage_get") &&
              sym(S.Clock, "rsmi_dev_gpu_clk_freq_get");
    if (!Ok || S.Init(0) != 0) {
      ZLUDA_LOG_WARN("NVML: rocm-smi could not be used: live figures of AMD GPUs are not available");
      return nullptr;
    }
    return &S;
  }();
  return Loaded;
}

/// rocm-smi's index of \p D: the device at the same PCI domain, bus and device (-1: none, or no rocm-smi).
int smiIndex(const Device &D) {
  const RocmSmi *S = rocmSmi();
  uint32_t N = 0;
  if (!S || S->NumDevices(&N))
    return -1;
  for (uint32_t I = 0; I < N; ++I) {
    uint64_t Bdf = 0; // domain << 32 | bus << 8 | device << 3 | function
    if (!S->PciId(I, &Bdf) && (Bdf >> 32) == D.Domain && ((Bdf >> 8) & 0xff) == D.Bus && ((Bdf >> 3) & 0x1f) == D.Slot)
      return static_cast<int>(I);
  }
  return -1;
}

Device *deviceOf(nvmlDevice_t H) {
  std::lock_guard<std::mutex> G(Mu);
  if (!InitCount)
    return nullptr;
  for (auto &D : devices())
    if (reinterpret_cast<nvmlDevice_t>(D.get()) == H)
      return D.get();
  return nullptr;
}

/// The result of a device query: uninitialized NVML or an unknown handle first.
#define DEVICE_OR_FAIL(H)                                                                                              \
  Device *D = deviceOf(H);                                                                                             \
  if (!D)                                                                                                              \
    return InitCount ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_UNINITIALIZED;

bool cpu() { return std::strcmp(zludaBackendName(), "cpu") == 0; }

nvmlReturn_t copyString(const std::string &S, char *Out, unsigned Len) {
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (Len < S.size() + 1)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(Out, S.c_str(), S.size() + 1);
  return NVML_SUCCESS;
}

std::string readLine(const std::string &Path) {
  std::ifstream F(Path);
  std::string L;
  std::getline(F, L);
  return L;
}

// --- the CPU device's live figures --------------------------------------------------------------

/// Busy percentage since the previous call (the first call samples 50 ms).
unsigned cpuBusy() {
  auto sample = [](unsigned long long &Busy, unsigned long long &Total) {
    std::istringstream In(readLine("/proc/stat"));
    std::string Cpu;
    In >> Cpu;
    unsigned long long V, I = 0;
    Busy = Total = 0;
    for (int K = 0; In >> V; ++K) {
      Total += V;
      if (K == 3 || K == 4) // idle, iowait
        I += V;
    }
    Busy = Total - I;
  };
  static std::mutex SMu;
  static unsigned long long LastBusy = 0, LastTotal = 0;
  std::lock_guard<std::mutex> G(SMu);
  unsigned long long B, T;
  if (!LastTotal) {
    sample(LastBusy, LastTotal);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  sample(B, T);
  unsigned P = T > LastTotal ? static_cast<unsigned>((B - LastBusy) * 100 / (T - LastTotal)) : 0;
  LastBusy = B;
  LastTotal = T;
  return P > 100 ? 100 : P;
}

/// Degrees C from the first CPU sensor hwmon or a thermal zone offers (-1: none).
int cpuTemperature() {
  for (const char *Dir : {"/sys/class/hwmon", "/sys/class/thermal"}) {
    DIR *Dp = opendir(Dir);
    if (!Dp)
      continue;
    while (dirent *E = readdir(Dp)) {
      std::string Base = std::string(Dir) + "/" + E->d_name;
      std::string Kind = readLine(Base + (std::strcmp(Dir, "/sys/class/hwmon") ? "/type" : "/name"));
      bool Cpu = Kind == "k10temp" || Kind == "coretemp" || Kind == "zenpower" || Kind == "cpu_thermal" ||
                 Kind == "x86_pkg_temp" || Kind == "acpitz";
      std::string T = readLine(Base + (std::strcmp(Dir, "/sys/class/hwmon") ? "/temp" : "/temp1_input"));
      if (Cpu && !T.empty()) {
        closedir(Dp);
        return std::atoi(T.c_str()) / 1000;
      }
    }
    closedir(Dp);
  }
  return -1;
}

/// Milliwatts from RAPL's package energy counter over the time since the previous call (-1: none).
long long cpuPower() {
  static std::mutex PMu;
  static long long LastUj = -1;
  static std::chrono::steady_clock::time_point LastT;
  std::lock_guard<std::mutex> G(PMu);
  std::string E = readLine("/sys/class/powercap/intel-rapl:0/energy_uj");
  if (E.empty())
    return -1;
  long long Uj = std::atoll(E.c_str());
  auto Now = std::chrono::steady_clock::now();
  if (LastUj < 0) {
    LastUj = Uj;
    LastT = Now;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Uj = std::atoll(readLine("/sys/class/powercap/intel-rapl:0/energy_uj").c_str());
    Now = std::chrono::steady_clock::now();
  }
  double Secs = std::chrono::duration<double>(Now - LastT).count();
  long long Mw = Secs > 0 && Uj >= LastUj ? static_cast<long long>((Uj - LastUj) / 1000.0 / Secs) : 0;
  LastUj = Uj;
  LastT = Now;
  return Mw;
}

/// MHz of cpu0 now (Max: the highest it runs at); 0 when unknown.
unsigned cpuClock(bool Max) {
  std::string K = readLine(std::string("/sys/devices/system/cpu/cpu0/cpufreq/") +
                           (Max ? "cpuinfo_max_freq" : "scaling_cur_freq"));
  if (!K.empty())
    return static_cast<unsigned>(std::atoll(K.c_str()) / 1000);
  std::ifstream F("/proc/cpuinfo");
  for (std::string L; std::getline(F, L);)
    if (L.rfind("cpu MHz", 0) == 0)
      return static_cast<unsigned>(std::atof(L.substr(L.find(':') + 1).c_str()));
  return 0;
}

/// Memory in use on the CPU device: what the host has in use, at most the device's total.
unsigned long long cpuUsed(unsigned long long Total) {
  std::ifstream F("/proc/meminfo");
  unsigned long long MemTotal = 0, Avail = 0;
  for (std::string L; std::getline(F, L);) {
    if (L.rfind("MemTotal:", 0) == 0)
      MemTotal = std::stoull(L.substr(9)) * 1024;
    else if (L.rfind("MemAvailable:", 0) == 0)
      Avail = std::stoull(L.substr(13)) * 1024;
  }
  unsigned long long Used = MemTotal > Avail ? MemTotal - Avail : 0;
  return Used < Total ? Used : Total;
}

/// Processes that have our libcuda.so.1 mapped (those this user may read).
std::vector<unsigned> processes() {
  Dl_info Info{};
  std::vector<unsigned> Pids;
  if (!dladdr(reinterpret_cast<void *>(&cuInit), &Info) || !Info.dli_fname)
    return Pids;
  std::string Lib = Info.dli_fname;
  if (char *Real = realpath(Lib.c_str(), nullptr)) {
    Lib = Real;
    free(Real);
  }
  DIR *Dp = opendir("/proc");
  if (!Dp)
    return Pids;
  while (dirent *E = readdir(Dp)) {
    char *End;
    unsigned long Pid = std::strtoul(E->d_name, &End, 10);
    if (*End || !Pid)
      continue;
    std::ifstream Maps(std::string("/proc/") + E->d_name + "/maps");
    for (std::string L; std::getline(Maps, L);)
      if (L.size() > Lib.size() && L.compare(L.size() - Lib.size(), Lib.size(), Lib) == 0) {
        Pids.push_back(static_cast<unsigned>(Pid));
        break;
      }
  }
  closedir(Dp);
  return Pids;
}

} // namespace
} // namespace zluda::nvml

using namespace zluda::nvml;

// --- initialization, system ---------------------------------------------------------------------

NVML_API nvmlReturn_t nvmlInitWithFlags(unsigned /*flags*/) {
  std::lock_guard<std::mutex> G(Mu);
  if (nvmlReturn_t R = load())
    return R;
  ++InitCount;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlInit_v2() { return nvmlInitWithFlags(0); }
NVML_API nvmlReturn_t nvmlInit() { return nvmlInitWithFlags(0); }
NVML_API nvmlReturn_t nvmlShutdown() {
  std::lock_guard<std::mutex> G(Mu);
  if (!InitCount)
    return NVML_ERROR_UNINITIALIZED;
  --InitCount;
  return NVML_SUCCESS;
}
NVML_API const char *nvmlErrorString(nvmlReturn_t R) {
  switch (R) {
  case NVML_SUCCESS: return "Success";
  case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
  case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
  case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
  case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
  case NVML_ERROR_NOT_FOUND: return "Not Found";
  case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
  case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
  case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
  case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument Version Mismatch";
  default: return "Unknown Error";
  }
}
NVML_API nvmlReturn_t nvmlSystemGetDriverVersion(char *Out, unsigned Len) {
  if (!InitCount)
    return NVML_ERROR_UNINITIALIZED;
  return copyString(ZLUDA_VERSION_STRING, Out, Len);
}
NVML_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *Out, unsigned Len) {
  return copyString(std::to_string(NVML_API_VERSION_ZLUDA) + "." ZLUDA_VERSION_STRING, Out, Len);
}
NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *V) {
  if (!V)
    return NVML_ERROR_INVALID_ARGUMENT;
  return fromCuda(cuDriverGetVersion(V));
}
NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *V) { return nvmlSystemGetCudaDriverVersion(V); }
NVML_API nvmlReturn_t nvmlSystemGetProcessName(unsigned Pid, char *Out, unsigned Len) {
  std::string Comm = readLine("/proc/" + std::to_string(Pid) + "/cmdline");
  if (Comm.empty())
    return NVML_ERROR_NOT_FOUND;
  return copyString(Comm.c_str(), Out, Len); // the first argument (cmdline is NUL-separated)
}

// --- handles -------------------------------------------------------------------------------------------

NVML_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *N) {
  if (!N)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> G(Mu);
  if (!InitCount)
    return NVML_ERROR_UNINITIALIZED;
  *N = static_cast<unsigned>(devices().size());
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetCount(unsigned *N) { return nvmlDeviceGetCount_v2(N); }
NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned I, nvmlDevice_t *Out) {
  std::lock_guard<std::mutex> G(Mu);
  if (!InitCount)
    return NVML_ERROR_UNINITIALIZED;
  if (!Out || I >= devices().size())
    return NVML_ERROR_INVALID_ARGUMENT;
  *Out = reinterpret_cast<nvmlDevice_t>(devices()[I].get());
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned I, nvmlDevice_t *Out) {
  return nvmlDeviceGetHandleByIndex_v2(I, Out);
}
template <typename Pred> nvmlReturn_t findDevice(nvmlDevice_t *Out, Pred P) {
  std::lock_guard<std::mutex> G(Mu);
  if (!InitCount)
    return NVML_ERROR_UNINITIALIZED;
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  for (auto &D : devices())
    if (P(*D)) {
      *Out = reinterpret_cast<nvmlDevice_t>(D.get());
      return NVML_SUCCESS;
    }
  return NVML_ERROR_NOT_FOUND;
}
NVML_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *Uuid, nvmlDevice_t *Out) {
  if (!Uuid)
    return NVML_ERROR_INVALID_ARGUMENT;
  return findDevice(Out, [&](const Device &D) { return strcasecmp(D.Uuid.c_str(), Uuid) == 0; });
}
NVML_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *Bus, nvmlDevice_t *Out) {
  if (!Bus)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned Dom = 0, B = 0, S = 0, F = 0;
  if (std::sscanf(Bus, "%x:%x:%x.%x", &Dom, &B, &S, &F) != 4) {
    Dom = 0; // bus:device.function
    if (std::sscanf(Bus, "%x:%x.%x", &B, &S, &F) != 3)
      return NVML_ERROR_INVALID_ARGUMENT;
  }
  return findDevice(Out, [&](const Device &D) { return D.Domain == Dom && D.Bus == B && D.Slot == S && F == 0; });
}
NVML_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *Bus, nvmlDevice_t *Out) {
  return nvmlDeviceGetHandleByPciBusId_v2(Bus, Out);
}

// --- identity ----------------------------------------------------------------------------------------------

NVML_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t H, char *Out, unsigned Len) {
  DEVICE_OR_FAIL(H);
  return copyString(D->Name, Out, Len);
}
NVML_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t H, char *Out, unsigned Len) {
  DEVICE_OR_FAIL(H);
  return copyString(D->Uuid, Out, Len);
}
NVML_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t H, unsigned *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  *Out = D->Index;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t H, unsigned *Out) { return nvmlDeviceGetIndex(H, Out); }
NVML_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t H, int *Major, int *Minor) {
  DEVICE_OR_FAIL(H);
  if (!Major || !Minor)
    return NVML_ERROR_INVALID_ARGUMENT;
  *Major = D->Major;
  *Minor = D->Minor;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t H, nvmlPciInfo_t *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::memset(Out, 0, sizeof *Out);
  std::snprintf(Out->busIdLegacy, sizeof Out->busIdLegacy, "%04X:%02X:%02X.0", D->Domain, D->Bus, D->Slot);
  std::snprintf(Out->busId, sizeof Out->busId, "%s", D->BusId.c_str());
  Out->domain = D->Domain;
  Out->bus = D->Bus;
  Out->device = D->Slot;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t H, nvmlPciInfo_t *Out) { return nvmlDeviceGetPciInfo_v3(H, Out); }
/// The first version's struct is shorter: busId[16], then domain, bus, device,
/// pciDeviceId and pciSubSystemId (programs built against old headers, such as
/// hashcat's own declarations, pass 36 bytes): only those are written.
NVML_API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t H, nvmlPciInfo_t *Out) {
  nvmlPciInfo_t Full;
  if (nvmlReturn_t R = nvmlDeviceGetPciInfo_v3(H, Out ? &Full : nullptr))
    return R;
  std::memcpy(Out, &Full, offsetof(nvmlPciInfo_t, busId)); // busIdLegacy is where v1 had busId
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t H, nvmlComputeMode_t *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  *Out = NVML_COMPUTEMODE_DEFAULT;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t H, nvmlPstates_t *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  *Out = NVML_PSTATE_0; // no power states are exposed: always the full-speed one
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t H, nvmlEnableState_t *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  *Out = NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

// --- memory and live figures ------------------------------------------------------------------------------

NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t H, nvmlMemory_t *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long Used = 0;
  if (cpu()) {
    Used = cpuUsed(D->Total);
  } else {
    int I = smiIndex(*D);
    uint64_t Bytes = 0;
    if (I < 0 || rocmSmi()->MemoryUsage(unsigned(I), 0, &Bytes))
      return NVML_ERROR_NOT_SUPPORTED;
    Used = std::min<unsigned long long>(Bytes, D->Total);
  }
  Out->total = D->Total;
  Out->used = Used;
  Out->free = D->Total - Used;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t H, nvmlMemory_v2_t *Out) {
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (Out->version != (static_cast<unsigned>(sizeof(nvmlMemory_v2_t)) | (2u << 24)))
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  nvmlMemory_t M;
  if (nvmlReturn_t R = nvmlDeviceGetMemoryInfo(H, &M))
    return R;
  Out->total = M.total;
  Out->reserved = 0;
  Out->free = M.free;
  Out->used = M.used;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t H, nvmlUtilization_t *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (cpu()) {
    Out->gpu = cpuBusy();
    Out->memory = 0; // memory-bus activity is not observable from /proc
    return NVML_SUCCESS;
  }
  int I = smiIndex(*D);
  uint32_t Busy = 0, MemBusy = 0;
  if (I < 0 || rocmSmi()->Busy(unsigned(I), &Busy))
    return NVML_ERROR_NOT_SUPPORTED;
  if (rocmSmi()->MemoryBusy(unsigned(I), &MemBusy))
    MemBusy = 0;
  Out->gpu = Busy;
  Out->memory = MemBusy;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t H, nvmlTemperatureSensors_t S, unsigned *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out || S != NVML_TEMPERATURE_GPU)
    return NVML_ERROR_INVALID_ARGUMENT;
  int T = -1;
  if (cpu()) {
    T = cpuTemperature();
  } else if (int I = smiIndex(*D); I >= 0) {
    int64_t Milli = 0; // the edge sensor, else the junction
    if (!rocmSmi()->Temperature(unsigned(I), 0, 0, &Milli) || !rocmSmi()->Temperature(unsigned(I), 1, 0, &Milli))
      T = static_cast<int>(Milli / 1000);
  }
  if (T < 0)
    return NVML_ERROR_NOT_SUPPORTED;
  *Out = static_cast<unsigned>(T);
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t H, unsigned *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  long long Mw = -1;
  if (cpu()) {
    Mw = cpuPower();
  } else if (int I = smiIndex(*D); I >= 0) {
    uint64_t Micro = 0;
    if (!rocmSmi()->PowerAverage(unsigned(I), 0, &Micro))
      Mw = static_cast<long long>(Micro / 1000);
  }
  if (Mw < 0)
    return NVML_ERROR_NOT_SUPPORTED;
  *Out = static_cast<unsigned>(Mw);
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t H, unsigned *Out) {
  DEVICE_OR_FAIL(H);
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (!cpu()) {
    int I = smiIndex(*D);
    uint64_t Micro = 0;
    if (I < 0 || rocmSmi()->PowerCap(unsigned(I), 0, &Micro))
      return NVML_ERROR_NOT_SUPPORTED;
    *Out = static_cast<unsigned>(Micro / 1000);
    return NVML_SUCCESS;
  }
  std::string L = readLine("/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw");
  if (L.empty())
    return NVML_ERROR_NOT_SUPPORTED;
  *Out = static_cast<unsigned>(std::atoll(L.c_str()) / 1000);
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t H, unsigned *Out) {
  return nvmlDeviceGetEnforcedPowerLimit(H, Out);
}
static nvmlReturn_t clock(nvmlDevice_t H, nvmlClockType_t T, unsigned *Out, bool Max) {
  DEVICE_OR_FAIL(H);
  if (!Out || T > NVML_CLOCK_VIDEO)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned Mhz = 0;
  bool Shader = T == NVML_CLOCK_GRAPHICS || T == NVML_CLOCK_SM;
  if (cpu()) {
    Mhz = Shader ? cpuClock(Max) : 0;
  } else if (int I = smiIndex(*D); I >= 0 && (Shader || T == NVML_CLOCK_MEM)) {
    RsmiFrequencies F{};
    if (!rocmSmi()->Clock(unsigned(I), Shader ? RsmiClockSystem : RsmiClockMemory, &F) && F.NumSupported &&
        F.NumSupported <= 32) {
      uint64_t Hz = F.Frequency[std::min(F.Current, F.NumSupported - 1)];
      if (Max)
        for (uint32_t K = 0; K < F.NumSupported; ++K)
          Hz = std::max(Hz, F.Frequency[K]);
      Mhz = static_cast<unsigned>(Hz / 1000000);
    }
  }
  if (!Mhz)
    return NVML_ERROR_NOT_SUPPORTED;
  *Out = Mhz;
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t H, nvmlClockType_t T, unsigned *Out) {
  return clock(H, T, Out, false);
}
NVML_API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t H, nvmlClockType_t T, unsigned *Out) {
  return clock(H, T, Out, true);
}
NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t H, unsigned *Count,
                                                              nvmlProcessInfo_t *Infos) {
  DEVICE_OR_FAIL(H);
  if (!Count)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::vector<unsigned> Pids = processes(); // (either backend: the processes with our libcuda mapped)
  unsigned Room = *Count;
  *Count = static_cast<unsigned>(Pids.size());
  if (Pids.size() > Room || (Room && !Infos && !Pids.empty()))
    return Pids.size() > Room ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_ERROR_INVALID_ARGUMENT;
  for (size_t I = 0; I < Pids.size(); ++I)
    Infos[I] = nvmlProcessInfo_t{Pids[I], ~0ull, ~0u, ~0u}; // NVML_VALUE_NOT_AVAILABLE: per-process use is not tracked
  return NVML_SUCCESS;
}
NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t H, unsigned *Count,
                                                              nvmlProcessInfo_t *Infos) {
  return nvmlDeviceGetComputeRunningProcesses_v3(H, Count, Infos);
}
NVML_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t H, unsigned *Count,
                                                               nvmlProcessInfo_t *) {
  DEVICE_OR_FAIL(H);
  if (!Count)
    return NVML_ERROR_INVALID_ARGUMENT;
  *Count = 0; // no graphics contexts
  return NVML_SUCCESS;
}
