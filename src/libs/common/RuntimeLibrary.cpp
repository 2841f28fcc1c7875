//===- RuntimeLibrary.cpp - an AMD library loaded at run time ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/common/RuntimeLibrary.h"

#include <dlfcn.h>

#include <cstdlib>

namespace zluda::libs {

RuntimeLibrary::RuntimeLibrary(const char *Env, std::initializer_list<const char *> Names) {
  const char *Path = Env ? std::getenv(Env) : nullptr;
  if (Path && *Path) {
    Handle = dlopen(Path, RTLD_NOW | RTLD_LOCAL); // the file asked for, and nothing else
  } else {
    for (const char *Name : Names)
      if ((Handle = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
        break;
  }
  if (!Handle) {
    const char *E = dlerror();
    Why = std::string("not found (") + (E ? E : "no such library") + ")";
  }
}

void *RuntimeLibrary::symbol(const std::string &Name) {
  void *P = Handle ? dlsym(Handle, Name.c_str()) : nullptr;
  if (!P && Handle && Why.empty())
    Why = "lacks " + Name;
  return P;
}

} // namespace zluda::libs
