//===- Comgr.cpp - AMD COMGR, loaded at run time ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "amdgpu/Comgr.h"

#include "common/Env.h"
#include "common/Log.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

namespace zluda::amdgpu {

ComgrLibrary ComgrLibrary::load(const std::string &Path) {
  ComgrLibrary L;
  L.Path = Path;
  // RTLD_LOCAL: COMGR's libLLVM stays out of the global namespace (ours is
  // linked into libcuda.so.1 with hidden symbols, so the two never meet).
  L.Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!L.Handle) {
    const char *E = dlerror();
    L.Error = "cannot load " + Path + ": " + (E ? E : "unknown error");
    return L;
  }
  std::string Missing;
#define COMGR_FN(Name)                                                                                                 \
  L.Name = reinterpret_cast<decltype(L.Name)>(dlsym(L.Handle, #Name));                                                 \
  if (!L.Name && Missing.empty())                                                                                      \
    Missing = #Name;
#include "amdgpu/ComgrApi.def"
  if (!Missing.empty())
    L.Error = Path + " lacks " + Missing + ": not a COMGR ZLUDA can use";
  return L;
}

const ComgrLibrary &ComgrLibrary::get() {
  static ComgrLibrary L;
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::vector<std::string> Names;
    if (std::string P = env::get("ZLUDA_COMGR_LIBRARY"); !P.empty())
      Names.push_back(P);
    else
      Names = {"libamd_comgr.so.2", "libamd_comgr.so"};
    std::string Errors;
    for (const std::string &N : Names) {
      ComgrLibrary C = load(N);
      if (C.ok()) {
        L = C;
        ZLUDA_LOG_DEBUG("COMGR: {}", N);
        return;
      }
      Errors += (Errors.empty() ? "" : "; ") + C.Error;
    }
    L.Error = "AMD COMGR is not available (" + Errors +
              "): AMDGPU code objects cannot be built; install ROCm's COMGR (Debian: libamd-comgr2) or set "
              "ZLUDA_COMGR_LIBRARY";
    ZLUDA_LOG_INFO("{}", L.Error);
  });
  return L;
}

} // namespace zluda::amdgpu
