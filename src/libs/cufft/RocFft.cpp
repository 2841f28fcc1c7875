//===- RocFft.cpp - loading rocFFT at run time -----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cufft/RocFft.h"

#include "common/Log.h"
#include "libs/common/RuntimeLibrary.h"

namespace zluda::rocfft {
namespace {

const Api *load() {
  static libs::RuntimeLibrary L("ZLUDA_ROCFFT_LIBRARY", {"librocfft.so.0"});
  static Api A{};
  auto sym = [&](auto &Fn, const char *S) { L.sym(Fn, S); };
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
  if (!L.ok()) {
    if (L.found())
      ZLUDA_LOG_WARN("cuFFT on AMD GPUs: rocFFT {}: not used", L.why());
    return nullptr;
  }
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
