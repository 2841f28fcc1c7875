//===- RocBlas.h - our declarations of the rocBLAS C API --------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The part of rocBLAS's C ABI (rocblas.h of ROCm 5.x/6.x: values and
/// signatures from its reference) that our cuBLAS's AMD backend calls.
/// librocblas is loaded at run time, as libamdhip64 is: the libraries load
/// on machines without ROCm. ZLUDA_ROCBLAS_LIBRARY names another file.
#pragma once

#include <cstdint>
#include <string>

namespace zluda::rocblas {

using Handle = struct _rocblas_handle *;
using Status = int; // rocblas_status: 0 success, 1 invalid handle, 2 not implemented, 3 invalid pointer, 4 invalid size...
enum : int { Success = 0, NotImplemented = 2 };
enum Operation : int { OpNone = 111, OpTranspose = 112, OpConjugateTranspose = 113 };
enum PointerMode : int { PointerHost = 0, PointerDevice = 1 };
enum Datatype : int {
  F16R = 150,
  F32R = 151,
  F64R = 152,
  F16C = 153,
  F32C = 154,
  F64C = 155,
  I8R = 160,
  U8R = 161,
  I32R = 162,
  BF16R = 168
};
enum : int { GemmAlgoStandard = 0 };

/// The functions the backend calls, loaded from librocblas.
struct Api {
  Status (*create_handle)(Handle *);
  Status (*destroy_handle)(Handle);
  Status (*set_stream)(Handle, void *);
  Status (*set_pointer_mode)(Handle, int);
  Status (*gemm_strided_batched_ex)(Handle, int, int, int, int, int, const void *, const void *, int, int, int64_t,
                                    const void *, int, int, int64_t, const void *, const void *, int, int, int64_t,
                                    void *, int, int, int64_t, int, int, int, int32_t, uint32_t);
  Status (*gemm_batched_ex)(Handle, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
                            int, const void *, const void *, int, int, void *, int, int, int, int, int, int32_t,
                            uint32_t);
  /// Level 1 and gemv by type: [0] s, [1] d, [2] c, [3] z.
  Status (*axpy[4])(Handle, int, const void *, const void *, int, void *, int);
  Status (*scal[4])(Handle, int, const void *, void *, int);
  Status (*copy[4])(Handle, int, const void *, int, void *, int);
  Status (*swap[4])(Handle, int, void *, int, void *, int);
  Status (*dot[4])(Handle, int, const void *, int, const void *, int, void *);  // dotu for c, z
  Status (*dotc[4])(Handle, int, const void *, int, const void *, int, void *); // c, z only
  Status (*nrm2[4])(Handle, int, const void *, int, void *);
  Status (*asum[4])(Handle, int, const void *, int, void *);
  Status (*amax[4])(Handle, int, const void *, int, int *);
  Status (*amin[4])(Handle, int, const void *, int, int *);
  Status (*gemv[4])(Handle, int, int, int, const void *, const void *, int, const void *, int, const void *, void *,
                    int);
};

/// librocblas, loaded once; null when it is not there (why: error()).
const Api *api();
const std::string &loadError();

} // namespace zluda::rocblas
