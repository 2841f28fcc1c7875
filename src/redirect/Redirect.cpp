//===- Redirect.cpp - an LD_AUDIT library: NVIDIA's library names to ours --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The dynamic linker asks an audit library (rtld-audit(7)) about every
/// name it is about to look up: a program's DT_NEEDED entries, whatever its
/// RPATH/RUNPATH says, and every dlopen, also with a full path. This one
/// answers with our copy when the name is one of the NVIDIA libraries we
/// implement and our folder holds a file of that exact name: PyTorch's wheel
/// finds NVIDIA's cuBLAS in its own nvidia/cu13/lib through RPATH, which
/// LD_LIBRARY_PATH cannot override. Names we do not implement (NVRTC,
/// nvJitLink, CUPTI, NCCL) and other versions of our
/// names (libcublas.so.12) keep resolving as they would.
///
/// `zluda run` sets LD_AUDIT to this file. It runs inside the dynamic linker's
/// audit namespace before the program's own libraries exist, so it uses libc
/// only: no C++ runtime, no spdlog. With ZLUDA_LOG=debug or trace it writes
/// each redirection to stderr in the log's format; ZLUDA_REDIRECT=0 turns it
/// off. It also carries `zluda trace`'s view of the math libraries (Trace.cpp).
#include "redirect/Redirect.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace {

char Dir[4096]; ///< our library folder, ending in '/'; empty: redirect nothing
size_t DirLen = 0;
bool Verbose = false;

/// NVIDIA's library names we implement: a name is ours when the part before ".so" is one of these (cuDNN's
/// sub-libraries by prefix), and our folder holds a file of exactly that name.
constexpr const char *Stems[] = {"libcuda",     "libcudart",  "libcublas", "libcublasLt",  "libcufft",
                                 "libcufftw",   "libcurand",  "libcusparse", "libcusolver", "libnvidia-ml",
                                 "libnvblas",   "libcudnn",   "libcupti"};

bool ourFamily(const char *Base) {
  const char *So = std::strstr(Base, ".so");
  if (!So)
    return false;
  size_t Len = static_cast<size_t>(So - Base);
  for (const char *S : Stems) {
    size_t N = std::strlen(S);
    if (Len == N && std::strncmp(Base, S, N) == 0)
      return true;
    if (std::strcmp(S, "libcudnn") == 0 && Len > N && std::strncmp(Base, S, N) == 0 && Base[N] == '_')
      return true; // libcudnn_ops, libcudnn_graph, ...
  }
  return false;
}

void findOurFolder() {
  if (const char *Off = std::getenv("ZLUDA_REDIRECT"); Off && std::strcmp(Off, "0") == 0)
    return;
  if (const char *Level = std::getenv("ZLUDA_LOG"))
    Verbose = std::strcmp(Level, "debug") == 0 || std::strcmp(Level, "trace") == 0;
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&findOurFolder), &Info) || !Info.dli_fname)
    return;
  const char *Slash = std::strrchr(Info.dli_fname, '/');
  if (!Slash)
    return;
  size_t Len = static_cast<size_t>(Slash - Info.dli_fname) + 1;
  if (Len >= sizeof Dir)
    return;
  std::memcpy(Dir, Info.dli_fname, Len);
  Dir[Len] = 0;
  DirLen = Len;
}

} // namespace

bool zluda::redirect::isTracedLibrary(const char *Path) {
  if (!DirLen || std::strncmp(Path, Dir, DirLen) != 0 || std::strchr(Path + DirLen, '/'))
    return false;
  const char *Base = Path + DirLen;
  static const char *const Untraced[] = {"libcuda.", "libcudart.", "libnvblas.", "libcufftw."}; // traced elsewhere, or FFTW's API
  for (const char *U : Untraced)
    if (std::strncmp(Base, U, std::strlen(U)) == 0)
      return false;
  return ourFamily(Base);
}

extern "C" {

__attribute__((visibility("default"))) unsigned int la_version(unsigned int Version) {
  findOurFolder();
  zluda::redirect::startTrace();
  return Version < LAV_CURRENT ? Version : LAV_CURRENT;
}

/// The name to load instead of \p Name: our copy (a path, so no search follows), or \p Name itself.
__attribute__((visibility("default"))) char *la_objsearch(const char *Name, uintptr_t *, unsigned int Flag) {
  if (Flag != LA_SER_ORIG || !DirLen || !Name)
    return const_cast<char *>(Name);
  const char *Slash = std::strrchr(Name, '/');
  const char *Base = Slash ? Slash + 1 : Name;
  if (!ourFamily(Base) || std::strncmp(Name, Dir, DirLen) == 0)
    return const_cast<char *>(Name);
  static char Paths[64][4096]; // the linker keeps the returned name; one slot per redirection, reused after 64
  static unsigned Next = 0;
  char *Out = Paths[Next++ % 64];
  if (DirLen + std::strlen(Base) + 1 > sizeof Paths[0])
    return const_cast<char *>(Name);
  std::memcpy(Out, Dir, DirLen);
  std::strcpy(Out + DirLen, Base);
  if (access(Out, R_OK) != 0)
    return const_cast<char *>(Name); // a name or version we do not ship: NVIDIA's stays
  if (Verbose)
    std::fprintf(stderr, "[zluda D %d] redirect: %s -> %s\n", static_cast<int>(getpid()), Name, Out);
  return Out;
}
}
