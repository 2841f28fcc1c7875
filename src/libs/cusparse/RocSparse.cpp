//===- RocSparse.cpp - loading rocSPARSE at run time ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cusparse/RocSparse.h"

#include "common/Log.h"
#include "libs/common/RuntimeLibrary.h"

namespace zluda::rocsparse {
namespace {

const Api *load() {
  // Only rocSPARSE 2.x (librocsparse.so.0): later versions changed rocsparse_spmv's arguments.
  static libs::RuntimeLibrary L("ZLUDA_ROCSPARSE_LIBRARY", {"librocsparse.so.0"});
  static Api A{};
  auto sym = [&](auto &Fn, const char *S) { L.sym(Fn, S); };
  sym(A.CreateHandle, "rocsparse_create_handle");
  sym(A.DestroyHandle, "rocsparse_destroy_handle");
  sym(A.SetStream, "rocsparse_set_stream");
  sym(A.SetPointerMode, "rocsparse_set_pointer_mode");
  sym(A.CreateCsr, "rocsparse_create_csr_descr");
  sym(A.CreateCsc, "rocsparse_create_csc_descr");
  sym(A.CreateCoo, "rocsparse_create_coo_descr");
  sym(A.DestroySpMat, "rocsparse_destroy_spmat_descr");
  sym(A.CreateDnVec, "rocsparse_create_dnvec_descr");
  sym(A.DestroyDnVec, "rocsparse_destroy_dnvec_descr");
  sym(A.CreateDnMat, "rocsparse_create_dnmat_descr");
  sym(A.DestroyDnMat, "rocsparse_destroy_dnmat_descr");
  sym(A.SpMV, "rocsparse_spmv");
  sym(A.SpMM, "rocsparse_spmm");
  if (!L.ok()) {
    if (L.found())
      ZLUDA_LOG_WARN("cuSPARSE on AMD GPUs: rocSPARSE {}: not used", L.why());
    return nullptr;
  }
  ZLUDA_LOG_INFO("cuSPARSE on AMD GPUs: rocSPARSE loaded");
  return &A;
}

} // namespace

const Api *api() {
  static const Api *A = load();
  return A;
}

} // namespace zluda::rocsparse
