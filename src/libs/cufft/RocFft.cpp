//===- RocFft.cpp - loading rocFFT at run time -----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cufft/RocFft.h"

#include "common/Log.h"

#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>

namespace zluda::rocfft {
namespace {

const Api *load() {
  const char *Env = std::getenv("ZLUDA_ROCFFT_LIBRARY");
  const char *Name = Env && *Env ? Env : "librocfft.so.0";
  void *L = dlopen(Name, RTLD_NOW | RTLD_LOCAL);
  if (!L)
    return nullptr;
  static Api A{};
  bool Ok = true;
  auto sym = [&](auto &Fn, const char *S) {
    Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(dlsym(L, S));
    if (!Fn) {
      Ok = false;
      ZLUDA_LOG_WARN("cuFFT on AMD GPUs: rocFFT lacks {}: not used", S);
    }
  };
  sym(A.Setup, "rocfft_setup");
  sym(A.PlanCreate, "rocfft_plan_create");
  sym(A.PlanDestroy, "rocfft_plan_destroy");
  sym(A.PlanWorkBufferSize, "rocfft_plan_get_work_buffer_size");
  sym(A.DescriptionCreate, "rocfft_plan_description_create");
  sym(A.DescriptionDestroy, "rocfft_plan_description_destroy");
  sym(A.DescriptionSetDataLayout, "rocfft_plan_description_set_data_layout");
  sym(A.InfoCreate, "rocfft_execution_info_create");
  sym(A.InfoDestroy, "rocfft_execution_info_destroy");
  sym(A.InfoSetWorkBuffer, "rocfft_execution_info_set_work_buffer");
  sym(A.InfoSetStream, "rocfft_execution_info_set_stream");
  sym(A.Execute, "rocfft_execute");
  if (!Ok)
    return nullptr;
  if (A.Setup()) {
    ZLUDA_LOG_WARN("cuFFT on AMD GPUs: rocfft_setup failed: rocFFT not used");
    return nullptr;
  }
  ZLUDA_LOG_INFO("cuFFT on AMD GPUs: rocFFT loaded");
  return &A;
}

} // namespace

const Api *api() {
  static const Api *A = load();
  return A;
}

} // namespace zluda::rocfft
