//===- main.cpp - the zluda command ----------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file
///   zluda run [--backend cpu|hip|auto] [--memcheck] [--racecheck] [--no-redirect] -- PROGRAM [ARGS...]   run a CUDA program on our libraries
///   zluda trace [--dump DIR] [--log FILE] -- PROGRAM [ARGS...]
///                                                    the same, logging every driver call
///   zluda info                                       backends, devices, attributes, cache
///   zluda compile FILE --target cpu|gfxNNNN -o OUT [-O0..-O3] [--emit-llvm] [--disassemble]
///   zluda sass FILE.cubin [KERNEL]                  the SASS front end's reading of a cubin's machine code
///   zluda cache stats|clear
///   zluda precompile [--target cpu|gfxNNNN[,...]] [-j N] PATH...
///                                                    fill the compile cache from programs' PTX
/// FILE is PTX text or a fat binary (as `nvcc -fatbin` writes it).
#include "amdgpu/CodeObject.h"
#include "amdgpu/Comgr.h"
#include "cache/CompileCache.h"
#include "common/Env.h"
#include "common/Files.h"
#include "cpu/Jit.h"
#include "driver/Fatbin.h"
#include "hip_bridge/Hip.h"
#include "sass/Cubin.h"
#include "sass/Decode.h"
#include "sass/Lift.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace zluda;
namespace fs = std::filesystem;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage:\n"
               "  zluda run [--backend cpu|hip|auto] [--memcheck] [--racecheck] [--no-redirect] -- PROGRAM [ARGS...]\n"
               "  zluda trace [--dump DIR] [--log FILE] -- PROGRAM [ARGS...]\n"
               "  zluda info\n"
               "  zluda smi\n"
               "  zluda compile FILE.ptx|FILE.fatbin|FILE.cubin --target cpu|gfxNNNN -o OUT [-O0|-O1|-O2|-O3] [--emit-llvm|--emit-ptx] [--disassemble]\n"
               "  zluda sass FILE.cubin [KERNEL]\n"
               "  zluda cache stats|clear\n"
               "  zluda precompile [--target cpu|gfxNNNN[,...]] [-j N] PATH...\n");
  return 2;
}

/// Where our libcuda.so.1 and libcudart.so.13 are: the build tree's lib/
/// beside bin/, or an installed lib/zluda.
std::string libraryDir() {
  std::error_code EC;
  fs::path Exe = fs::read_symlink("/proc/self/exe", EC);
  if (EC)
    return {};
  fs::path Prefix = Exe.parent_path().parent_path();
  for (fs::path D : {Prefix / "lib" / "zluda", Prefix / "lib"})
    if (fs::exists(D / "libcuda.so.1"))
      return D.string();
  return {};
}

int cmdRun(int Argc, char **Argv, bool Trace) {
  int I = 0;
  bool Memcheck = false, Racecheck = false, Redirect = true;
  for (; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--")
      break;
    if (A == "--no-redirect") { // LD_LIBRARY_PATH only: a program's RPATH may still load NVIDIA's libraries
      Redirect = false;
      continue;
    }
    if (!Trace && A == "--memcheck") { // checked accesses: a CPU-device feature (src/cpu/Memcheck.h)
      Memcheck = true;
      continue;
    }
    if (!Trace && A == "--racecheck") { // shared-memory hazards, through memcheck's checks (src/cpu/Racecheck.h)
      Memcheck = Racecheck = true;
      continue;
    }
    if (Trace && (A == "--dump" || A == "--log") && I + 1 < Argc) {
      setenv(A == "--dump" ? "ZLUDA_DUMP_DIR" : "ZLUDA_LOG_FILE", Argv[++I], 1);
      continue;
    }
    if (A == "--backend" && I + 1 < Argc) {
      std::string B = Argv[++I];
      if (B != "cpu" && B != "hip" && B != "auto") {
        std::fprintf(stderr, "zluda: unknown backend '%s' (cpu, hip or auto)\n", B.c_str());
        return 2;
      }
      setenv("ZLUDA_BACKEND", B.c_str(), 1);
      continue;
    }
    return usage();
  }
  if (I + 1 >= Argc)
    return usage();
  if (Memcheck) {
    if (const char *B = std::getenv("ZLUDA_BACKEND"); B && std::string(B) == "hip") {
      std::fprintf(stderr, "zluda: --%s runs on the CPU device only (not with --backend hip)\n",
                   Racecheck ? "racecheck" : "memcheck");
      return 2;
    }
    setenv("ZLUDA_BACKEND", "cpu", 1);
    setenv("ZLUDA_MEMCHECK", "1", 1);
    if (Racecheck)
      setenv("ZLUDA_RACECHECK", "1", 1);
  }
  std::string Lib = libraryDir();
  if (Lib.empty()) {
    std::fprintf(stderr, "zluda: cannot find libcuda.so.1 beside this program\n");
    return 1;
  }
  std::string Path = Lib;
  if (const char *Old = std::getenv("LD_LIBRARY_PATH"); Old && *Old)
    Path += std::string(":") + Old;
  setenv("LD_LIBRARY_PATH", Path.c_str(), 1);
  // The audit library sends every load of an NVIDIA library we implement to ours, also through a program's
  // RPATH/RUNPATH and dlopen with a full path (src/redirect/Redirect.cpp): LD_LIBRARY_PATH alone loses to RPATH.
  if (std::string Audit = Lib + "/libzluda_redirect.so"; Redirect && fs::exists(Audit)) {
    if (const char *Old = std::getenv("LD_AUDIT"); Old && *Old)
      Audit += std::string(":") + Old;
    setenv("LD_AUDIT", Audit.c_str(), 1);
  }
  if (Trace)
    setenv("ZLUDA_LOG", "trace", 1);
  execvp(Argv[I + 1], Argv + I + 1);
  std::fprintf(stderr, "zluda: cannot run %s: %s\n", Argv[I + 1], std::strerror(errno));
  return 127;
}

/// What nvidia-smi prints, from our libnvidia-ml.so.1 (NVML over our driver).
int cmdSmi() {
  std::string Lib = libraryDir();
  void *H = Lib.empty() ? nullptr : dlopen((Lib + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    std::fprintf(stderr, "zluda smi: cannot load libnvidia-ml.so.1 from %s: %s\n", Lib.c_str(), dlerror());
    return 1;
  }
  using Fn = int (*)(...);
  auto F = [&](const char *N) { return reinterpret_cast<Fn>(dlsym(H, N)); };
  Fn Init = F("nvmlInit_v2"), Count = F("nvmlDeviceGetCount_v2"), ByIndex = F("nvmlDeviceGetHandleByIndex_v2"),
     Name = F("nvmlDeviceGetName"), Pci = F("nvmlDeviceGetPciInfo_v3"), Temp = F("nvmlDeviceGetTemperature"),
     Power = F("nvmlDeviceGetPowerUsage"), Limit = F("nvmlDeviceGetEnforcedPowerLimit"),
     Mem = F("nvmlDeviceGetMemoryInfo"), Util = F("nvmlDeviceGetUtilizationRates"),
     Procs = F("nvmlDeviceGetComputeRunningProcesses_v3"), DrvVer = F("nvmlSystemGetDriverVersion"),
     CudaVer = F("nvmlSystemGetCudaDriverVersion"), Shutdown = F("nvmlShutdown");
  if (!Init || Init() != 0) {
    std::fprintf(stderr, "zluda smi: nvmlInit failed\n");
    return 1;
  }
  char Drv[80] = "?";
  int Cuda = 0;
  DrvVer(Drv, 80u);
  CudaVer(&Cuda);
  std::time_t Now = std::time(nullptr);
  char When[64];
  std::strftime(When, sizeof When, "%a %b %e %H:%M:%S %Y", std::localtime(&Now));
  std::string Line(89, '-');
  std::printf("%s\n+%s+\n", When, Line.c_str());
  char Head[128];
  std::snprintf(Head, sizeof Head, "ZLUDA-SMI (NVML over ZLUDA)   Driver Version: %s   CUDA Version: %d.%d", Drv,
                Cuda / 1000, Cuda % 1000 / 10);
  std::printf("| %-87s |\n", Head);
  std::printf("+-----------------------------------------+------------------------+----------------------+\n");
  std::printf("|%-41s|%-24s|%-22s|\n", " GPU  Name", " Bus-Id", " GPU-Util  Compute M.");
  std::printf("|%-41s|%24s|%-22s|\n", " Temp   Perf          Pwr:Usage/Cap", "Memory-Usage ", "");
  std::printf("|=========================================+========================+======================|\n");
  unsigned N = 0;
  Count(&N);
  struct ProcRow {
    unsigned Gpu, Pid;
  };
  std::vector<ProcRow> Rows;
  for (unsigned I = 0; I < N; ++I) {
    void *D = nullptr;
    ByIndex(I, &D);
    char Nm[96] = {};
    Name(D, Nm, 96u);
    struct {
      char Legacy[16];
      unsigned Dom, Bus, Dev, Id, Sub;
      char BusId[32];
    } P = {};
    Pci(D, &P);
    unsigned T = 0, W = 0, Cap = 0;
    struct {
      unsigned Gpu, Memory;
    } U = {};
    struct {
      unsigned long long Total, Free, Used;
    } M = {};
    auto opt = [](bool Ok, const std::string &S) { return Ok ? S : std::string("N/A"); };
    std::string Ts = opt(Temp(D, 0, &T) == 0, std::to_string(T) + "C");
    std::string Ws = opt(Power(D, &W) == 0, std::to_string(W / 1000) + "W") + " / " +
                     opt(Limit(D, &Cap) == 0, std::to_string(Cap / 1000) + "W");
    std::string Us = opt(Util(D, &U) == 0, std::to_string(U.Gpu) + "%");
    std::string Ms = Mem(D, &M) == 0 ? std::to_string(M.Used >> 20) + "MiB / " + std::to_string(M.Total >> 20) + "MiB"
                                     : "N/A";
    std::string Nm30(Nm);
    if (Nm30.size() > 34)
      Nm30 = Nm30.substr(0, 31) + "...";
    std::printf("| %3u  %-34s | %22s | %8s     Default |\n", I, Nm30.c_str(), P.BusId, Us.c_str());
    std::printf("| %-5s  P0  %26s   | %22s |                      |\n", Ts.c_str(), Ws.c_str(), Ms.c_str());
    std::printf("+-----------------------------------------+------------------------+----------------------+\n");
    unsigned Cnt = 64;
    struct Info {
      unsigned Pid;
      unsigned long long Used;
      unsigned Gi, Ci;
    } Infos[64];
    if (Procs(D, &Cnt, Infos) == 0)
      for (unsigned K = 0; K < Cnt; ++K)
        Rows.push_back({I, Infos[K].Pid});
  }
  std::printf("\n+%s+\n| %-87s |\n", Line.c_str(), "Processes (with ZLUDA's libcuda.so.1 loaded):");
  std::printf("|%-89s|\n", "  GPU        PID   Process name");
  std::printf("|%s|\n", std::string(89, '=').c_str());
  if (Rows.empty())
    std::printf("|  %-86s |\n", "No running processes found");
  for (const ProcRow &R : Rows) {
    std::ifstream Cmd("/proc/" + std::to_string(R.Pid) + "/cmdline");
    std::string C;
    std::getline(Cmd, C, '\0');
    if (C.size() > 69)
      C = "..." + C.substr(C.size() - 66);
    std::printf("|  %3u   %8u   %-69s |\n", R.Gpu, R.Pid, C.c_str());
  }
  std::printf("+%s+\n", Line.c_str());
  Shutdown();
  return 0;
}

int cmdInfo() {
  std::string Lib = libraryDir();
  std::printf("libraries: %s\n", Lib.empty() ? "(not found)" : Lib.c_str());
  {
    const hip::Library &H = hip::Library::get();
    std::vector<hip::DeviceInfo> Gpus;
    std::string Why;
    std::string Hip;
    if (!H.ok()) {
      Hip = "no HIP runtime: " + H.error();
    } else if (hip::enumerateDevices(H, Gpus, Why) != CUDA_SUCCESS) {
      Hip = H.path() + " loaded, no AMD GPU (" + Why + ")";
    } else {
      Hip = H.path() + ":";
      for (const hip::DeviceInfo &D : Gpus)
        Hip += " [" + std::to_string(D.Ordinal) + "] " + D.Name + " " + D.GcnArchName + " (" +
               std::to_string(D.ComputeUnits) + " CUs, wave" + std::to_string(D.WarpSize) + ")";
      Hip += "; programs run on [" + std::to_string(Gpus.front().Ordinal) + "] with ZLUDA_BACKEND=auto or hip";
    }
    std::printf("backends:  cpu (available), hip (%s)\n", Hip.c_str());
    if (const amdgpu::ComgrLibrary &Comgr = amdgpu::ComgrLibrary::get(); !Comgr.ok()) {
      std::printf("amdgpu:    no zluda compile targets: %s\n", Comgr.Error.c_str());
    } else {
      std::string Procs;
      for (const std::string &P : amdgpu::supportedProcessors())
        Procs += " " + P;
      std::printf("amdgpu:    zluda compile targets (COMGR %s):%s\n", Comgr.Path.c_str(), Procs.c_str());
    }
  }
  if (!Lib.empty()) {
    void *H = dlopen((Lib + "/libcuda.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!H) {
      std::printf("driver:    cannot load: %s\n", dlerror());
    } else {
      using IntFn = int (*)(...);
      auto Sym = [&](const char *N) { return reinterpret_cast<IntFn>(dlsym(H, N)); };
      IntFn Init = Sym("cuInit"), Ver = Sym("cuDriverGetVersion"), Count = Sym("cuDeviceGetCount"),
            Get = Sym("cuDeviceGet"), Name = Sym("cuDeviceGetName"), Attr = Sym("cuDeviceGetAttribute"),
            Mem = Sym("cuDeviceTotalMem_v2");
      int V = 0, N = 0;
      if (!Init || !Ver || !Count || !Get || !Name || !Attr || !Mem) {
        std::printf("driver:    %s lacks the device entry points\n", (Lib + "/libcuda.so.1").c_str());
      } else if (int R = Init(0u); R != 0) {
        std::printf("driver:    cuInit failed (%d)\n", R);
      } else {
        Ver(&V);
        Count(&N);
        std::printf("driver:    CUDA %d.%d API, %d device(s)\n", V / 1000, V % 1000 / 10, N);
        for (int D = 0; D < N; ++D) {
          int Dev = 0;
          char Buf[256] = {};
          size_t Bytes = 0;
          Get(&Dev, D);
          Name(Buf, int(sizeof(Buf)), Dev);
          Mem(&Bytes, Dev);
          // Attribute numbers of the CUDA Driver API's CUdevice_attribute.
          struct {
            const char *Label;
            int Id;
          } const Attrs[] = {{"compute capability major", 75}, {"compute capability minor", 76},
                             {"multiprocessors", 16},          {"warp size", 10},
                             {"max threads per block", 1},     {"shared memory per block", 8},
                             {"clock rate (kHz)", 13}};
          std::printf("device %d:  %s, %.1f GiB\n", D, Buf, Bytes / 1073741824.0);
          for (const auto &A : Attrs) {
            int X = 0;
            Attr(&X, A.Id, Dev);
            std::printf("  %-26s %d\n", A.Label, X);
          }
        }
      }
    }
  }
  std::string Dir = cache::defaultDirectory();
  if (Dir.empty()) {
    std::printf("cache:     off\n");
  } else if (cache::Store *S = cache::processStore()) {
    cache::Usage U = S->usage();
    std::printf("cache:     %s: %llu entries, %.1f MiB of %llu MiB\n", S->path().c_str(),
                (unsigned long long)U.Entries, U.Bytes / 1048576.0, (unsigned long long)(S->limit() >> 20));
  } else {
    std::printf("cache:     %s cannot be opened\n", Dir.c_str());
  }
  return 0;
}

int cmdCache(int Argc, char **Argv) {
  if (Argc != 1)
    return usage();
  std::string Op = Argv[0];
  if (Op != "stats" && Op != "clear")
    return usage();
  if (cache::defaultDirectory().empty()) {
    std::fprintf(stderr, "zluda: the compile cache is off (ZLUDA_CACHE_DIR=off)\n");
    return 1;
  }
  cache::Store *S = cache::processStore();
  if (!S) {
    std::fprintf(stderr, "zluda: cannot open the compile cache in %s\n", cache::defaultDirectory().c_str());
    return 1;
  }
  if (Op == "clear") {
    cache::Usage U = S->usage();
    if (!S->clear()) {
      std::fprintf(stderr, "zluda: cannot clear %s\n", S->path().c_str());
      return 1;
    }
    std::printf("removed %llu entries (%.1f MiB) from %s\n", (unsigned long long)U.Entries, U.Bytes / 1048576.0,
                S->path().c_str());
    return 0;
  }
  cache::Usage U = S->usage();
  std::printf("path:    %s\nentries: %llu\nsize:    %.2f MiB\nlimit:   %llu MiB\n", S->path().c_str(),
              (unsigned long long)U.Entries, U.Bytes / 1048576.0, (unsigned long long)(S->limit() >> 20));
  return 0;
}

/// Reports a compiler message with the input's name in place of "ptx".
void compileError(const std::string &In, std::string Msg) {
  if (Msg.rfind("ptx:", 0) == 0)
    Msg = In + Msg.substr(3);
  std::fprintf(stderr, "%s\n", Msg.c_str());
}

int compileAmdgpu(const std::string &Ptx, const std::string &In, const std::string &Out, const amdgpu::Target &T,
                  bool EmitLLVM, bool Disasm, int Level) {
  amdgpu::CompileOptions O;
  if (Level >= 0)
    O.OptLevel = static_cast<unsigned>(Level);
  std::string IR;
  if (EmitLLVM)
    O.LLVMOut = &IR;
  O.Aggressive = env::get("ZLUDA_AGGRESSIVE_OPTIMIZATIONS") == "1";
  O.Wave64Slow = env::get("ZLUDA_WAVE64_SLOW_MODE") == "1";
  amdgpu::CodeObject R = amdgpu::compilePtx(Ptx, T, O);
  if (R.Elf.empty()) {
    // The IR handed to COMGR is what one needs to see when its codegen fails.
    if (EmitLLVM && !IR.empty())
      std::ofstream(Out, std::ios::binary) << IR;
    compileError(In, R.Error);
    return 1;
  }
  for (const std::string &F : R.Failures)
    std::fprintf(stderr, "zluda: warning: %s\n", F.c_str());
  const std::string &Bytes = EmitLLVM ? IR : R.Elf;
  std::ofstream F(Out, std::ios::binary);
  F.write(Bytes.data(), std::streamsize(Bytes.size()));
  if (!F) {
    std::fprintf(stderr, "zluda: cannot write %s\n", Out.c_str());
    return 1;
  }
  F.close();
  std::printf("%s: %zu kernel(s) for %s (%s waves)%s\n", Out.c_str(), R.Kernels.size(), T.name().c_str(),
              T.Wave64 ? "64-lane" : "32-lane", R.FromCache ? " (from the compile cache)" : "");
  if (Disasm && !EmitLLVM) {
    std::fflush(stdout);
    std::string Cmd = std::string(ZLUDA_LLVM_OBJDUMP) + " -d --no-show-raw-insn '" + Out + "'";
    return std::system(Cmd.c_str()) == 0 ? 0 : 1;
  }
  return 0;
}

int cmdCompile(int Argc, char **Argv) {
  std::string In, Out, Target;
  bool EmitLLVM = false, Disasm = false, EmitPtx = false;
  int Level = -1; // -O0 ... -O3; the default: the driver's (CPU -O2, AMDGPU -O3)
  for (int I = 0; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--target" && I + 1 < Argc)
      Target = Argv[++I];
    else if (A.size() == 3 && A[0] == '-' && A[1] == 'O' && A[2] >= '0' && A[2] <= '3')
      Level = A[2] - '0';
    else if (A == "-o" && I + 1 < Argc)
      Out = Argv[++I];
    else if (A == "--emit-llvm")
      EmitLLVM = true;
    else if (A == "--disassemble")
      Disasm = true;
    else if (A == "--emit-ptx")
      EmitPtx = true;
    else if (!A.empty() && A[0] != '-' && In.empty())
      In = A;
    else
      return usage();
  }
  if (In.empty() || Out.empty() || Target.empty())
    return usage();
  amdgpu::Target Gpu;
  if (Target != "cpu") {
    std::string Err;
    if (Target.rfind("gfx", 0) != 0) {
      std::fprintf(stderr, "zluda: unknown target '%s' (cpu or gfxNNNN)\n", Target.c_str());
      return 1;
    }
    if (!amdgpu::Target::parse(Target, Gpu, Err)) {
      std::string Known;
      for (const std::string &P : amdgpu::supportedProcessors())
        Known += " " + P;
      if (Known.empty())
        std::fprintf(stderr, "zluda: %s\n", Err.c_str());
      else
        std::fprintf(stderr, "zluda: %s; targets:%s\n", Err.c_str(), Known.c_str());
      return 1;
    }
  }
  std::string Data;
  if (!readFile(In, Data)) {
    std::fprintf(stderr, "zluda: cannot read %s\n", In.c_str());
    return 1;
  }
  std::string Ptx = Data;
  if (Data.size() >= 4 && driver::fatbinContainerSize(reinterpret_cast<const uint8_t *>(Data.data()))) {
    driver::FatbinResult F = driver::parseFatbin(reinterpret_cast<const uint8_t *>(Data.data()), Data.size());
    if (!F.ok()) {
      std::fprintf(stderr, "zluda: %s: %s\n", In.c_str(), F.Error.c_str());
      return 1;
    }
    if (const driver::FatbinEntry *E = driver::choosePtx(F, 86)) {
      Ptx = E->Payload;
    } else if (const driver::FatbinEntry *S = driver::chooseSass(F, 86)) {
      Data = S->Payload; // machine code only: lifted below
    } else {
      std::fprintf(stderr, "zluda: %s holds neither PTX nor machine code of sm_75..sm_90\n", In.c_str());
      return 1;
    }
  }
  // A cubin (or a fat binary's machine code): the SASS front end's PTX.
  if (sass::isCubin(Data)) {
    std::string Err;
    sass::LiftedModule L;
    if (!sass::liftCubin(Data, L, Err)) {
      std::fprintf(stderr, "zluda: %s: %s\n", In.c_str(), Err.c_str());
      return 1;
    }
    // As the driver: the other kernels are compiled; these trap.
    for (const auto &[Kernel, Why] : L.Refused)
      std::fprintf(stderr, "zluda: %s: warning: kernel %s will not run: %s\n", In.c_str(), Kernel.c_str(), Why.c_str());
    Ptx = std::move(L.Ptx);
  }
  if (EmitPtx) {
    std::ofstream F(Out, std::ios::binary);
    F << Ptx;
    if (!F) {
      std::fprintf(stderr, "zluda: cannot write %s\n", Out.c_str());
      return 1;
    }
    std::printf("%s: the PTX compiled for %s\n", Out.c_str(), In.c_str());
    return 0;
  }
  if (Target != "cpu")
    return compileAmdgpu(Ptx, In, Out, Gpu, EmitLLVM, Disasm, Level);
  cpu::CompileOptions O;
  if (Level >= 0)
    O.OptLevel = static_cast<unsigned>(Level);
  std::string Obj;
  if (EmitLLVM)
    O.DumpLLVM = Out;
  else
    O.ObjectOut = &Obj;
  cpu::CompileResult R = cpu::compilePtx(Ptx, O);
  if (!R.Mod) {
    compileError(In, R.Error);
    return 1;
  }
  for (const std::string &F : R.Mod->failures())
    std::fprintf(stderr, "zluda: warning: %s (traps if launched)\n", F.c_str());
  if (!EmitLLVM) {
    std::ofstream F(Out, std::ios::binary);
    F.write(Obj.data(), std::streamsize(Obj.size()));
    if (!F) {
      std::fprintf(stderr, "zluda: cannot write %s\n", Out.c_str());
      return 1;
    }
  }
  std::printf("%s: %zu kernel(s) for the CPU device%s\n", Out.c_str(), R.Mod->kernels().size(),
              R.FromCache ? " (from the compile cache)" : "");
  if (Disasm && !EmitLLVM) {
    std::fflush(stdout);
    std::string Cmd = std::string(ZLUDA_LLVM_OBJDUMP) + " -d --no-show-raw-insn '" + Out + "'";
    return std::system(Cmd.c_str()) == 0 ? 0 : 1;
  }
  return 0;
}


// --- zluda precompile --------------------------------------------------------------------

/// One PTX module found by precompile: where it came from and its text.
struct FoundModule {
  std::string Source; ///< "FILE" or "FILE (fat binary at 0x...)"
  std::string Ptx;
};

bool looksLikePtxText(const std::string &S) {
  size_t I = 0;
  while (I < S.size()) {
    while (I < S.size() && std::isspace(static_cast<unsigned char>(S[I])))
      ++I;
    if (S.compare(I, 2, "//") == 0) {
      I = S.find('\n', I);
      if (I == std::string::npos)
        return false;
      continue;
    }
    return S.compare(I, 8, ".version") == 0;
  }
  return false;
}

/// The PTX modules of one file: the file itself when it is PTX text, else
/// every fat binary inside it (executables, shared libraries, `-rdc` objects,
/// `.fatbin` files: nvcc embeds the containers whole), each with the PTX the
/// driver would choose at load (the newest for compute capability 8.6, the
/// device both backends report), so that the cache keys match. \p SassOnly
/// counts containers that hold machine code only.
void modulesOf(const std::string &Path, std::vector<FoundModule> &Out, size_t &SassOnly) {
  std::string Data;
  if (!readFile(Path, Data))
    return;
  if (looksLikePtxText(Data)) {
    Out.push_back({Path, Data});
    return;
  }
  const uint8_t *B = reinterpret_cast<const uint8_t *>(Data.data());
  for (size_t Off = 0; Off + 16 <= Data.size(); Off += 4) {
    uint32_t Magic;
    std::memcpy(&Magic, B + Off, 4);
    if (Magic != driver::FatbinMagic)
      continue;
    uint64_t Size = driver::fatbinContainerSize(B + Off);
    if (!Size || Size > Data.size() - Off)
      continue;
    driver::FatbinResult F = driver::parseFatbin(B + Off, Size);
    if (!F.ok())
      continue;
    char Where[64];
    std::snprintf(Where, sizeof Where, " (fat binary at 0x%zx)", Off);
    if (const driver::FatbinEntry *E = driver::choosePtx(F, 86))
      Out.push_back({Path + Where, E->Payload});
    else
      ++SassOnly;
    Off += (Size & ~uint64_t(3)) - 4;
  }
}

/// Prints "[done/total] pct% ETA NAME" over one line on a terminal, one line
/// per module otherwise.
class PrecompileProgress {
public:
  explicit PrecompileProgress(size_t Total) : Total(Total), Tty(isatty(2)), Start(Clock::now()) {}
  void step(const std::string &Name) {
    std::lock_guard<std::mutex> L(Mu);
    ++Done;
    double Secs = std::chrono::duration<double>(Clock::now() - Start).count();
    double Eta = Done ? Secs / Done * (Total - Done) : 0;
    std::string Short = Name.size() > 60 ? "..." + Name.substr(Name.size() - 57) : Name;
    std::fprintf(stderr, "%s[%zu/%zu] %3zu%%  ETA %4.0fs  %s%s", Tty ? "\r\033[K" : "", Done, Total,
                 Total ? Done * 100 / Total : 100, Eta, Short.c_str(), Tty ? "" : "\n");
    if (Tty && Done == Total)
      std::fprintf(stderr, "\n");
  }

private:
  using Clock = std::chrono::steady_clock;
  std::mutex Mu;
  size_t Total, Done = 0;
  bool Tty;
  Clock::time_point Start;
};

int cmdPrecompile(int Argc, char **Argv) {
  std::vector<std::string> Targets, Paths;
  unsigned Jobs = std::max(1u, std::thread::hardware_concurrency());
  for (int I = 0; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--target" && I + 1 < Argc) {
      std::stringstream SS(Argv[++I]);
      for (std::string T; std::getline(SS, T, ',');)
        if (!T.empty())
          Targets.push_back(T);
    } else if (A == "-j" && I + 1 < Argc) {
      Jobs = static_cast<unsigned>(std::max(1L, std::strtol(Argv[++I], nullptr, 10)));
    } else if (!A.empty() && A[0] != '-') {
      Paths.push_back(A);
    } else {
      return usage();
    }
  }
  if (Paths.empty())
    return usage();
  if (Targets.empty())
    Targets.push_back("cpu");
  std::vector<amdgpu::Target> Gpus;
  bool Cpu = false;
  for (const std::string &T : Targets) {
    if (T == "cpu") {
      Cpu = true;
      continue;
    }
    amdgpu::Target G;
    std::string Err;
    if (T.rfind("gfx", 0) != 0 || !amdgpu::Target::parse(T, G, Err)) {
      std::fprintf(stderr, "zluda: unknown target '%s' (cpu or a gfx processor)%s%s\n", T.c_str(),
                   Err.empty() ? "" : ": ", Err.c_str());
      return 2;
    }
    Gpus.push_back(G);
  }
  cache::Store *Store = cache::defaultDirectory().empty() ? nullptr : cache::processStore();
  if (!Store) {
    std::fprintf(stderr, "zluda: precompile needs the compile cache, which is %s\n",
                 cache::defaultDirectory().empty() ? "off (ZLUDA_CACHE_DIR=off)" : "not usable");
    return 1;
  }
  auto Begin = std::chrono::steady_clock::now();
  // 1. Every file under the paths, and the PTX modules in them (each module once).
  std::vector<std::string> Files;
  for (const std::string &P : Paths) {
    std::error_code EC;
    if (fs::is_directory(P, EC)) {
      for (auto It = fs::recursive_directory_iterator(P, fs::directory_options::skip_permission_denied, EC);
           !EC && It != fs::recursive_directory_iterator(); It.increment(EC))
        if (It->is_regular_file(EC))
          Files.push_back(It->path().string());
    } else if (fs::is_regular_file(P, EC)) {
      Files.push_back(P);
    } else {
      std::fprintf(stderr, "zluda: %s: no such file or folder\n", P.c_str());
      return 1;
    }
  }
  std::sort(Files.begin(), Files.end());
  std::vector<FoundModule> Found, Modules;
  size_t SassOnly = 0;
  for (const std::string &F : Files)
    modulesOf(F, Found, SassOnly);
  std::set<std::string> Seen;
  for (FoundModule &M : Found)
    if (Seen.insert(cache::sha256Hex(M.Ptx)).second)
      Modules.push_back(std::move(M));
  std::printf("precompile: %zu file(s), %zu PTX module(s)%s, targets:", Files.size(), Modules.size(),
              SassOnly ? (" (" + std::to_string(SassOnly) + " fat binaries with machine code only)").c_str() : "");
  for (const std::string &T : Targets)
    std::printf(" %s", T.c_str());
  std::printf("\n");
  std::fflush(stdout);
  // 2. Compile: modules on Workers threads, each kernel-parallel on what is left.
  struct Outcome {
    size_t Kernels = 0, Compiled = 0;
    std::vector<std::string> Errors, Warnings;
  };
  std::vector<Outcome> Outcomes(Modules.size());
  PrecompileProgress Progress(Modules.size() * Targets.size());
  auto errorOf = [&](const FoundModule &M, std::string Msg) {
    if (Msg.rfind("ptx:", 0) == 0)
      Msg = M.Source + Msg.substr(3);
    return Msg;
  };
  if (Cpu) {
    unsigned Workers = static_cast<unsigned>(std::min<size_t>(Jobs, std::max<size_t>(1, Modules.size())));
    unsigned PerModule = std::max(1u, Jobs / Workers);
    std::atomic<size_t> Next{0};
    auto work = [&] {
      for (size_t I; (I = Next.fetch_add(1)) < Modules.size();) {
        cpu::CompileOptions O; // as the driver loads a module (CpuBackend::compile): lazily, at -O2
        O.Lazy = true;
        O.ProgressAfterMs = ~0u;
        Outcome &R = Outcomes[I];
        cpu::CompileResult C = cpu::compilePtx(Modules[I].Ptx, O);
        if (!C.Mod) {
          R.Errors.push_back(errorOf(Modules[I], C.Error) + " [cpu]");
        } else {
          R.Kernels = C.Mod->kernels().size();
          for (const std::string &F : C.Mod->failures())
            R.Warnings.push_back(Modules[I].Source + ": " + F + " [cpu: traps if launched]");
          size_t N = 0;
          if (std::string E = C.Mod->precompile(PerModule, N); !E.empty())
            R.Errors.push_back(errorOf(Modules[I], E) + " [cpu]");
          R.Compiled += N;
        }
        Progress.step(Modules[I].Source + " [cpu]");
      }
    };
    std::vector<std::thread> Pool;
    for (unsigned T = 1; T < Workers; ++T)
      Pool.emplace_back(work);
    work();
    for (std::thread &T : Pool)
      T.join();
  }
  // AMDGPU code objects: COMGR runs one compile at a time.
  for (const amdgpu::Target &G : Gpus)
    for (size_t I = 0; I < Modules.size(); ++I) {
      amdgpu::CompileOptions O; // as the HIP backend compiles (HipBackend::compile)
      O.Aggressive = env::get("ZLUDA_AGGRESSIVE_OPTIMIZATIONS") == "1";
      O.Wave64Slow = G.Wave64 && env::get("ZLUDA_WAVE64_SLOW_MODE") == "1";
      amdgpu::CodeObject C = amdgpu::compilePtx(Modules[I].Ptx, G, O);
      Outcome &R = Outcomes[I];
      if (C.Elf.empty()) {
        R.Errors.push_back(errorOf(Modules[I], C.Error) + " [" + G.name() + "]");
      } else {
        R.Kernels = std::max(R.Kernels, C.Kernels.size());
        R.Compiled += C.FromCache ? 0 : C.Kernels.size();
        for (const std::string &F : C.Failures)
          R.Warnings.push_back(Modules[I].Source + ": " + F + " [" + G.name() + "]");
      }
      Progress.step(Modules[I].Source + " [" + G.name() + "]");
    }
  // 3. Summary.
  size_t Kernels = 0, Compiled = 0, Failed = 0;
  for (const Outcome &R : Outcomes) {
    Kernels += R.Kernels;
    Compiled += R.Compiled;
    Failed += !R.Errors.empty();
    for (const std::string &W : R.Warnings)
      std::printf("warning: %s\n", W.c_str());
    for (const std::string &E : R.Errors)
      std::printf("error: %s\n", E.c_str());
  }
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin).count();
  cache::Usage U = Store->usage();
  std::printf("precompile: %zu module(s), %zu kernel(s), %zu compiled now (the rest were cached), %zu module(s) "
              "failed; %.1f s; cache %s: %llu entries, %.1f MiB\n",
              Modules.size(), Kernels, Compiled, Failed, Secs, Store->path().c_str(),
              static_cast<unsigned long long>(U.Entries), U.Bytes / 1048576.0);
  return Failed ? 1 : 0;
}

/// `zluda sass FILE.cubin [KERNEL]`: what the SASS front end reads in a cubin: per kernel (those whose name
/// contains KERNEL) whether it lifts or why not, then each instruction's offset, encoding and decoded name ("?"
/// where the decoder does not know the opcode or its operand form).
int cmdSass(int Argc, char **Argv) {
  if (Argc < 1 || Argc > 2)
    return usage();
  std::string Data;
  if (!readFile(Argv[0], Data)) {
    std::fprintf(stderr, "zluda sass: cannot read %s\n", Argv[0]);
    return 1;
  }
  sass::Cubin C;
  std::string Error;
  if (!sass::parseCubin(Data, C, Error)) {
    std::fprintf(stderr, "zluda sass: %s: %s\n", Argv[0], Error.c_str());
    return 1;
  }
  sass::LiftedModule L;
  std::string LiftError;
  bool Lifted = sass::liftCubin(Data, L, LiftError);
  std::map<std::string, std::string> Refused(L.Refused.begin(), L.Refused.end());
  std::string Want = Argc > 1 ? Argv[1] : "";
  std::printf("// %s: sm_%u, %zu functions\n", Argv[0], C.Sm, C.Functions.size());
  for (const sass::Function &F : C.Functions) {
    if (!Want.empty() && F.Name.find(Want) == std::string::npos)
      continue;
    auto R = Refused.find(F.Name);
    std::printf("\n%s:  // %zu instructions, %u registers, %u bytes of parameters; %s\n", F.Name.c_str(),
                F.Code.size() / 16, F.Registers, F.ParamBytes,
                !Lifted ? ("not lifted: " + LiftError).c_str()
                        : R == Refused.end() ? "lifted" : ("refused: " + R->second).c_str());
    for (uint32_t Off = 0; Off + 16 <= F.Code.size(); Off += 16) {
      sass::Inst I = sass::decode(C.Sm, F.Code, Off);
      std::printf("  /*%05x*/ %s  %s\n", Off, sass::hex128(I.W).c_str(),
                  I.O == sass::Op::Unknown ? "?" : sass::describe(I).c_str());
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string C = argv[1];
  if (C == "run" || C == "trace")
    return cmdRun(argc - 2, argv + 2, C == "trace");
  if (C == "info" && argc == 2)
    return cmdInfo();
  if (C == "smi" && argc == 2)
    return cmdSmi();
  if (C == "sass")
    return cmdSass(argc - 2, argv + 2);
  if (C == "compile")
    return cmdCompile(argc - 2, argv + 2);
  if (C == "cache")
    return cmdCache(argc - 2, argv + 2);
  if (C == "precompile")
    return cmdPrecompile(argc - 2, argv + 2);
  if (C == "--help" || C == "-h") {
    usage();
    return 0;
  }
  return usage();
}
