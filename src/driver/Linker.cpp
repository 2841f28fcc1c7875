//===- Linker.cpp - cuLink*: JIT linking, and the JIT options ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A link state collects PTX from its inputs: PTX text, fat binaries,
/// nvcc -rdc host objects (their __nv_relfatbin / .nv_fatbin sections) and
/// archives of such objects (members taken only when they resolve a symbol).
/// cuLinkComplete merges them (ptx/Link.h) into one PTX module: that text is
/// the image cuModuleLoadData, cuModuleLoadDataEx and cuLibraryLoadData take,
/// and what the compile cache keys. Cubins (SASS) and LTO-IR cannot be used
/// and are refused with the rebuild that fixes them.
///
/// JIT options (here and for cuModuleLoadDataEx / cuLibraryLoadData): the
/// error and info logs are written NUL-terminated and their size options
/// updated to the bytes written; CU_JIT_WALL_TIME receives milliseconds as a
/// float; CU_JIT_OPTIMIZATION_LEVEL reaches the CPU device's compiler
/// (cuModuleLoadDataEx, cuLibraryLoadData); the other code-generation options
/// are validated and recorded.
#include "driver/Fatbin.h"
#include "driver/Internal.h"

#include "common/Files.h"
#include "ptx/Link.h"

#include <chrono>
#include <cstring>

namespace zluda::driver {
namespace {

template <typename T> bool readAt(const uint8_t *P, size_t N, size_t Off, T &Out) {
  if (Off > N || N - Off < sizeof(T))
    return false;
  std::memcpy(&Out, P + Off, sizeof(T));
  return true;
}

constexpr uint16_t EmCuda = 190; // ELF machine of NVIDIA cubins

const char *CubinAdvice = "ZLUDA compiles PTX, not SASS: rebuild with a PTX target (e.g. nvcc "
                          "-gencode arch=compute_75,code=compute_75, or nvrtc/nvcc -ptx)";
const char *LtoAdvice = "LTO-IR (nvcc -dlto / NVVM IR) cannot be linked by ZLUDA: rebuild without -dlto, with "
                        "a PTX target (e.g. -gencode arch=compute_75,code=compute_75)";

/// The PTX of fat-binary containers back to back in [P, P+N).
bool ptxOfFatbins(const uint8_t *P, size_t N, std::string &Ptx, std::string &Error) {
  FatbinResult All;
  size_t Off = 0;
  while (Off + 16 <= N) {
    uint32_t Magic;
    std::memcpy(&Magic, P + Off, 4);
    if (Magic != FatbinMagic)
      break;
    FatbinResult F = parseFatbin(P + Off, N - Off);
    if (!F.ok()) {
      Error = F.Error;
      return false;
    }
    for (FatbinEntry &E : F.Entries)
      All.Entries.push_back(std::move(E));
    Off += (fatbinContainerSize(P + Off) + 7) & ~size_t(7);
  }
  if (All.Entries.empty()) {
    Error = Off == 0 ? "not a fat binary (bad magic)" : "the fat binary is empty";
    return false;
  }
  if (const FatbinEntry *E = choosePtx(All, ComputeMajor * 10 + ComputeMinor)) {
    Ptx = E->Payload;
    return true;
  }
  bool Lto = false;
  for (const FatbinEntry &E : All.Entries)
    Lto |= E.Kind != 2;
  Error = std::string("the fat binary holds no PTX, only ") + (Lto ? "LTO-IR or " : "") + "SASS; " +
          (Lto ? LtoAdvice : CubinAdvice);
  return false;
}

/// A host ELF object made by nvcc -rdc (or -fatbin embedded): the PTX of its
/// fat-binary sections. \p NoPtx tells a SASS-only object from a broken one.
bool ptxOfObject(const uint8_t *P, size_t N, std::string &Ptx, std::string &Error, bool &NoPtx) {
  NoPtx = false;
  if (N < 64 || std::memcmp(P, "\x7f" "ELF", 4) != 0) {
    Error = "not an ELF object";
    return false;
  }
  if (P[4] != 2 || P[5] != 1) {
    Error = "only 64-bit little-endian ELF objects can be linked";
    return false;
  }
  uint16_t Machine = 0, ShEntSize = 0, ShNum = 0, ShStrNdx = 0;
  uint64_t ShOff = 0;
  readAt(P, N, 0x12, Machine);
  if (Machine == EmCuda) {
    Error = std::string("the input is a cubin (SASS); ") + CubinAdvice;
    NoPtx = true;
    return false;
  }
  if (!readAt(P, N, 0x28, ShOff) || !readAt(P, N, 0x3a, ShEntSize) || !readAt(P, N, 0x3c, ShNum) ||
      !readAt(P, N, 0x3e, ShStrNdx) || ShEntSize < 64 || ShStrNdx >= ShNum || ShOff > N ||
      uint64_t(ShNum) * ShEntSize > N - ShOff) {
    Error = "the ELF object's section table is corrupt";
    return false;
  }
  auto section = [&](unsigned I, uint32_t &Name, uint64_t &Off, uint64_t &Size) {
    size_t H = ShOff + size_t(I) * ShEntSize;
    uint32_t Type = 0;
    readAt(P, N, H, Name);
    readAt(P, N, H + 4, Type);
    readAt(P, N, H + 0x18, Off);
    readAt(P, N, H + 0x20, Size);
    if (Type == 8) // SHT_NOBITS
      Size = 0;
    return Off <= N && Size <= N - Off;
  };
  uint32_t StrName;
  uint64_t StrOff, StrSize;
  if (!section(ShStrNdx, StrName, StrOff, StrSize)) {
    Error = "the ELF object's section names are corrupt";
    return false;
  }
  std::string Found;
  for (unsigned I = 0; I < ShNum; ++I) {
    uint32_t Name;
    uint64_t Off, Size;
    if (!section(I, Name, Off, Size) || Name >= StrSize)
      continue;
    const char *SecName = reinterpret_cast<const char *>(P + StrOff + Name);
    size_t Max = StrSize - Name;
    std::string S(SecName, strnlen(SecName, Max));
    if (S != "__nv_relfatbin" && S != ".nv_fatbin")
      continue;
    std::string One;
    if (!ptxOfFatbins(P + Off, Size, One, Error)) {
      NoPtx = true;
      return false;
    }
    Ptx = std::move(One);
    return true;
  }
  Error = "the object holds no CUDA device code (no __nv_relfatbin or .nv_fatbin section)";
  NoPtx = true;
  return false;
}

struct LinkState {
  std::vector<ptx::LinkInput> Inputs;
  JitOptions Options;
  std::string Image; ///< the linked PTX, NUL-terminated
  std::string Info;
};

} // namespace

// --- JIT options --------------------------------------------------------------------

CUresult JitOptions::parse(unsigned Count, CUjit_option *Opts, void **Vals) {
  if (Count && (!Opts || !Vals))
    return CUDA_ERROR_INVALID_VALUE;
  N = Count;
  Options = Opts;
  Values = Vals;
  for (unsigned I = 0; I < Count; ++I) {
    uintptr_t V = reinterpret_cast<uintptr_t>(Vals[I]);
    switch (Opts[I]) {
    case CU_JIT_INFO_LOG_BUFFER:
      InfoLog = static_cast<char *>(Vals[I]);
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      InfoSize = V;
      break;
    case CU_JIT_ERROR_LOG_BUFFER:
      ErrorLog = static_cast<char *>(Vals[I]);
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      ErrorSize = V;
      break;
    case CU_JIT_LOG_VERBOSE:
      Verbose = V != 0;
      break;
    case CU_JIT_OPTIMIZATION_LEVEL:
      if (V > 4)
        return CUDA_ERROR_INVALID_VALUE;
      OptLevel = static_cast<int>(V);
      break;
    case CU_JIT_MAX_REGISTERS:
      MaxRegisters = static_cast<unsigned>(V);
      break;
    case CU_JIT_TARGET:
      // CUjit_target: compute capability x 10 (30 .. 121).
      if (V < 30 || V > 200)
        return CUDA_ERROR_INVALID_VALUE;
      Target = static_cast<unsigned>(V);
      break;
    case CU_JIT_GENERATE_LINE_INFO:
      LineInfo = V != 0;
      break;
    case CU_JIT_FALLBACK_STRATEGY:
    case CU_JIT_GENERATE_DEBUG_INFO:
    case CU_JIT_NEW_SM3X_OPT:
    case CU_JIT_FAST_COMPILE:
    case CU_JIT_FTZ:
    case CU_JIT_PREC_DIV:
    case CU_JIT_PREC_SQRT:
    case CU_JIT_FMA:
    case CU_JIT_POSITION_INDEPENDENT_CODE:
    case CU_JIT_OVERRIDE_DIRECTIVE_VALUES:
      if (V > 1)
        return CUDA_ERROR_INVALID_VALUE;
      break;
    case CU_JIT_CACHE_MODE:
      if (V > 2)
        return CUDA_ERROR_INVALID_VALUE;
      break;
    case CU_JIT_LTO:
      if (V) {
        ZLUDA_LOG_ERROR("CU_JIT_LTO: {}", LtoAdvice);
        return CUDA_ERROR_NOT_SUPPORTED;
      }
      break;
    case CU_JIT_THREADS_PER_BLOCK:
    case CU_JIT_WALL_TIME:
    case CU_JIT_TARGET_FROM_CUCONTEXT:
    case CU_JIT_GLOBAL_SYMBOL_NAMES:
    case CU_JIT_GLOBAL_SYMBOL_ADDRESSES:
    case CU_JIT_GLOBAL_SYMBOL_COUNT:
    case CU_JIT_REFERENCED_KERNEL_NAMES:
    case CU_JIT_REFERENCED_KERNEL_COUNT:
    case CU_JIT_REFERENCED_VARIABLE_NAMES:
    case CU_JIT_REFERENCED_VARIABLE_COUNT:
    case CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES:
    case CU_JIT_MIN_CTA_PER_SM:
    case CU_JIT_MAX_THREADS_PER_BLOCK:
    case CU_JIT_SPLIT_COMPILE:
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if ((InfoLog && !InfoSize) || (ErrorLog && !ErrorSize))
    ZLUDA_LOG_DEBUG("JIT log buffer given with size 0: nothing will be written to it");
  Start = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}

void JitOptions::finish(const std::string &Error, const std::string &Info) const {
  auto put = [&](char *Buf, size_t Size, const std::string &Text, CUjit_option SizeOpt) {
    size_t Written = 0;
    if (Buf && Size) {
      Written = std::min(Size - 1, Text.size());
      std::memcpy(Buf, Text.data(), Written);
      Buf[Written] = '\0';
      ++Written; // the size option reports the bytes filled, NUL included
    }
    for (unsigned I = 0; I < N; ++I)
      if (Options[I] == SizeOpt)
        Values[I] = reinterpret_cast<void *>(static_cast<uintptr_t>(Written));
  };
  put(ErrorLog, ErrorSize, Error, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  put(InfoLog, InfoSize, Info, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
  float Ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - Start).count();
  for (unsigned I = 0; I < N; ++I)
    if (Options[I] == CU_JIT_WALL_TIME) {
      Values[I] = nullptr;
      std::memcpy(&Values[I], &Ms, sizeof Ms);
    }
}

std::string JitOptions::describe() const {
  std::string S = "ZLUDA JIT: optimization level " + std::to_string(OptLevel);
  if (MaxRegisters)
    S += ", max registers " + std::to_string(MaxRegisters) + " (advisory)";
  if (Target)
    S += ", target compute_" + std::to_string(Target);
  if (LineInfo)
    S += ", line info";
  return S + "\n";
}

// --- inputs ------------------------------------------------------------------------

CUresult addLinkInput(std::vector<ptx::LinkInput> &Inputs, CUjitInputType Type, const void *Data, size_t Size,
                      const std::string &Name, std::string &Error) {
  const uint8_t *P = static_cast<const uint8_t *>(Data);
  auto input = [&](std::string Ptx, std::string InName, bool Lazy) {
    while (!Ptx.empty() && Ptx.back() == '\0')
      Ptx.pop_back();
    Inputs.push_back({std::move(InName), std::move(Ptx), Lazy});
  };
  switch (Type) {
  case CU_JIT_INPUT_PTX: {
    // The size may or may not count the terminating NUL.
    const char *C = static_cast<const char *>(Data);
    input(std::string(C, strnlen(C, Size)), Name, false);
    return CUDA_SUCCESS;
  }
  case CU_JIT_INPUT_CUBIN:
    Error = Name + ": the input is a cubin (SASS); " + CubinAdvice;
    return CUDA_ERROR_NOT_SUPPORTED;
  case CU_JIT_INPUT_NVVM:
    Error = Name + ": " + LtoAdvice;
    return CUDA_ERROR_NOT_SUPPORTED;
  case CU_JIT_INPUT_FATBINARY: {
    std::string Ptx;
    uint32_t Magic = 0;
    if (Size >= 4)
      std::memcpy(&Magic, P, 4);
    if (Magic == FatbinWrapperMagic && Size >= 16) { // a __fatBinC_Wrapper_t
      const uint8_t *Inner;
      std::memcpy(&Inner, P + 8, sizeof Inner);
      if (!Inner) {
        Error = Name + ": the fat-binary wrapper points nowhere";
        return CUDA_ERROR_INVALID_IMAGE;
      }
      P = Inner;
      Size = fatbinContainerSize(P);
    }
    if (!ptxOfFatbins(P, Size, Ptx, Error)) {
      Error = Name + ": " + Error;
      return Error.find("no PTX") != std::string::npos ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_IMAGE;
    }
    input(std::move(Ptx), Name, false);
    return CUDA_SUCCESS;
  }
  case CU_JIT_INPUT_OBJECT: {
    std::string Ptx;
    bool NoPtx;
    if (!ptxOfObject(P, Size, Ptx, Error, NoPtx)) {
      Error = Name + ": " + Error;
      return NoPtx ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_IMAGE;
    }
    input(std::move(Ptx), Name, false);
    return CUDA_SUCCESS;
  }
  case CU_JIT_INPUT_LIBRARY: {
    if (Size < 8 || std::memcmp(P, "!<arch>\n", 8) != 0) {
      Error = Name + ": not an archive (ar) file";
      return CUDA_ERROR_INVALID_IMAGE;
    }
    std::string LongNames;
    size_t Off = 8, Members = 0;
    while (Off + 60 <= Size) {
      const char *H = reinterpret_cast<const char *>(P + Off);
      if (H[58] != '`' || H[59] != '\n') {
        Error = Name + ": corrupt archive member header at offset " + std::to_string(Off);
        return CUDA_ERROR_INVALID_IMAGE;
      }
      std::string MemberName(H, 16);
      uint64_t MSize = std::strtoull(std::string(H + 48, 10).c_str(), nullptr, 10);
      size_t Data = Off + 60;
      if (MSize > Size - Data) {
        Error = Name + ": archive member exceeds the file";
        return CUDA_ERROR_INVALID_IMAGE;
      }
      while (!MemberName.empty() && MemberName.back() == ' ')
        MemberName.pop_back();
      if (MemberName == "//") {
        LongNames.assign(reinterpret_cast<const char *>(P + Data), MSize);
      } else if (MemberName != "/" && MemberName != "/SYM64/") {
        if (MemberName.size() > 1 && MemberName[0] == '/') { // GNU long name: "/offset"
          size_t At = std::strtoull(MemberName.c_str() + 1, nullptr, 10);
          if (At < LongNames.size())
            MemberName = LongNames.substr(At, LongNames.find('\n', At) - At);
        }
        if (!MemberName.empty() && MemberName.back() == '/')
          MemberName.pop_back();
        std::string Ptx, MemberError;
        bool NoPtx;
        std::string Full = Name + "(" + MemberName + ")";
        if (ptxOfObject(P + Data, MSize, Ptx, MemberError, NoPtx)) {
          input(std::move(Ptx), Full, true);
          ++Members;
        } else {
          ZLUDA_LOG_DEBUG("cuLinkAdd: {} skipped: {}", Full, MemberError);
        }
      }
      Off = Data + MSize + (MSize & 1);
    }
    if (!Members)
      ZLUDA_LOG_WARN("cuLinkAdd: the archive {} has no member with PTX", Name);
    return CUDA_SUCCESS;
  }
  default:
    Error = Name + ": unknown input type " + std::to_string(static_cast<int>(Type));
    return CUDA_ERROR_INVALID_VALUE;
  }
}

namespace {

/// A readable copy of the fat-binary container at \p P (or behind the
/// wrapper there); empty when it is not one.
std::string readContainer(const void *P) {
  uint8_t Head[16];
  if (copyReadable(P, Head, sizeof Head) < sizeof Head)
    return {};
  uint32_t Magic;
  std::memcpy(&Magic, Head, 4);
  if (Magic == FatbinWrapperMagic)
    std::memcpy(&P, Head + 8, sizeof P);
  std::string Copy, Error;
  return P && copyContainer(P, Copy, Error) ? Copy : std::string();
}

} // namespace

bool fatbinHasPtx(const void *Image) {
  std::string C = readContainer(Image);
  if (C.empty())
    return false;
  FatbinResult F = parseFatbin(reinterpret_cast<const uint8_t *>(C.data()), C.size());
  return F.ok() && choosePtx(F, ComputeMajor * 10 + ComputeMinor);
}

CUresult linkPrelinked(const void *List, std::string &Ptx, std::string &Error) {
  std::vector<ptx::LinkInput> Inputs;
  for (unsigned I = 0; I < 4096; ++I) {
    const void *Entry = nullptr;
    if (copyReadable(static_cast<const char *>(List) + I * sizeof(void *), &Entry, sizeof Entry) < sizeof Entry) {
      Error = "the list of relocatable fat binaries is not readable";
      return CUDA_ERROR_INVALID_IMAGE;
    }
    if (!Entry)
      break;
    std::string C = readContainer(Entry);
    if (C.empty()) {
      Error = "relocatable fat binary " + std::to_string(I + 1) + " is corrupt";
      return CUDA_ERROR_INVALID_IMAGE;
    }
    if (CUresult R = addLinkInput(Inputs, CU_JIT_INPUT_FATBINARY, C.data(), C.size(),
                                  "relocatable object " + std::to_string(I + 1), Error))
      return R == CUDA_ERROR_NOT_SUPPORTED ? CUDA_ERROR_NO_BINARY_FOR_GPU : R;
  }
  ptx::LinkResult R = ptx::link(Inputs);
  if (!R.ok()) {
    Error = R.Error;
    return CUDA_ERROR_INVALID_PTX;
  }
  Ptx = std::move(R.Ptx);
  return CUDA_SUCCESS;
}

} // namespace zluda::driver

using namespace zluda::driver;

namespace {

CUresult linkCreate(unsigned N, CUjit_option *Opts, void **Vals, CUlinkState *Out) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  auto L = std::make_unique<LinkState>();
  if (CUresult R = L->Options.parse(N, Opts, Vals))
    return R;
  LinkState *Raw = L.release();
  addLive(Raw, Kind::Link);
  *Out = reinterpret_cast<CUlinkState>(Raw);
  return CUDA_SUCCESS;
}

CUresult linkAddData(CUlinkState H, CUjitInputType Type, const void *Data, size_t Size, const char *Name,
                     unsigned N, CUjit_option *Opts, void **Vals) {
  LinkState *L = handle<LinkState>(H, Kind::Link);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Data || !Size)
    return CUDA_ERROR_INVALID_VALUE;
  JitOptions Local;
  if (CUresult R = Local.parse(N, Opts, Vals))
    return R;
  std::string InName = Name && *Name ? Name : "input " + std::to_string(L->Inputs.size() + 1);
  std::string Error;
  CUresult R = addLinkInput(L->Inputs, Type, Data, Size, InName, Error);
  if (R != CUDA_SUCCESS) {
    ZLUDA_LOG_ERROR("cuLinkAddData: {}", Error);
    L->Options.finish(Error, L->Info);
    Local.finish(Error, "");
  }
  return R;
}

CUresult linkAddFile(CUlinkState H, CUjitInputType Type, const char *Path, unsigned N, CUjit_option *Opts,
                     void **Vals) {
  LinkState *L = handle<LinkState>(H, Kind::Link);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Path)
    return CUDA_ERROR_INVALID_VALUE;
  std::string Data;
  if (!zluda::readFile(Path, Data)) {
    std::string Error = std::string("cannot open ") + Path;
    ZLUDA_LOG_ERROR("cuLinkAddFile: {}", Error);
    L->Options.finish(Error, L->Info);
    return CUDA_ERROR_FILE_NOT_FOUND;
  }
  if (Data.empty())
    return CUDA_ERROR_INVALID_IMAGE;
  if (Type == CU_JIT_INPUT_PTX)
    Data.push_back('\0');
  return linkAddData(H, Type, Data.data(), Data.size(), Path, N, Opts, Vals);
}

CUresult linkComplete(CUlinkState H, void **Image, size_t *Size) {
  LinkState *L = handle<LinkState>(H, Kind::Link);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Image || !Size)
    return CUDA_ERROR_INVALID_VALUE;
  zluda::ptx::LinkOptions LO;
  LO.MaxRegisters = L->Options.MaxRegisters;
  zluda::ptx::LinkResult R = zluda::ptx::link(L->Inputs, LO);
  std::string Info = L->Options.Verbose ? L->Options.describe() + R.Info : "";
  if (!R.ok()) {
    ZLUDA_LOG_ERROR("cuLinkComplete: {}", R.Error);
    L->Options.finish("error   : " + R.Error + "\n", Info);
    return R.Error.rfind("nothing to link", 0) == 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_PTX;
  }
  L->Image = std::move(R.Ptx);
  L->Image.push_back('\0');
  L->Options.finish("", Info);
  *Image = L->Image.data();
  *Size = L->Image.size();
  return CUDA_SUCCESS;
}

CUresult linkDestroy(CUlinkState H) {
  LinkState *L = handle<LinkState>(H, Kind::Link);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  removeLive(L);
  delete L;
  return CUDA_SUCCESS;
}

} // namespace

ZLUDA_API(cuLinkCreate_v2, (unsigned N, CUjit_option *Opts, void **Vals, CUlinkState *Out), (N, Opts, Vals, Out)) {
  ZLUDA_GUARD({ return linkCreate(N, Opts, Vals, Out); });
}
ZLUDA_API(cuLinkCreate, (unsigned N, CUjit_option *Opts, void **Vals, CUlinkState *Out), (N, Opts, Vals, Out)) {
  ZLUDA_GUARD({ return linkCreate(N, Opts, Vals, Out); });
}
ZLUDA_API(cuLinkAddData_v2,
          (CUlinkState H, CUjitInputType Type, void *Data, size_t Size, const char *Name, unsigned N,
           CUjit_option *Opts, void **Vals),
          (H, Type, Data, Size, Name, N, Opts, Vals)) {
  ZLUDA_GUARD({ return linkAddData(H, Type, Data, Size, Name, N, Opts, Vals); });
}
ZLUDA_API(cuLinkAddData,
          (CUlinkState H, CUjitInputType Type, void *Data, size_t Size, const char *Name, unsigned N,
           CUjit_option *Opts, void **Vals),
          (H, Type, Data, Size, Name, N, Opts, Vals)) {
  ZLUDA_GUARD({ return linkAddData(H, Type, Data, Size, Name, N, Opts, Vals); });
}
ZLUDA_API(cuLinkAddFile_v2,
          (CUlinkState H, CUjitInputType Type, const char *Path, unsigned N, CUjit_option *Opts, void **Vals),
          (H, Type, Path, N, Opts, Vals)) {
  ZLUDA_GUARD({ return linkAddFile(H, Type, Path, N, Opts, Vals); });
}
ZLUDA_API(cuLinkAddFile,
          (CUlinkState H, CUjitInputType Type, const char *Path, unsigned N, CUjit_option *Opts, void **Vals),
          (H, Type, Path, N, Opts, Vals)) {
  ZLUDA_GUARD({ return linkAddFile(H, Type, Path, N, Opts, Vals); });
}
ZLUDA_API(cuLinkComplete, (CUlinkState H, void **Image, size_t *Size), (H, Image, Size)) {
  ZLUDA_GUARD({ return linkComplete(H, Image, Size); });
}
ZLUDA_API(cuLinkDestroy, (CUlinkState H), (H)) {
  ZLUDA_GUARD({ return linkDestroy(H); });
}
