//===- RocSolver.h - the parts of rocSOLVER's C API our cuSOLVER calls -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Our own declarations of rocSOLVER's ABI (ROCm 5 and 6:
/// `librocsolver.so.0`), for cusolverDn's dense routines on AMD GPUs: LU,
/// Cholesky (single and batched), QR (with ormqr/unmqr, orgqr/ungqr), SVD and
/// the symmetric or Hermitian eigensolver, each in S, D, C and Z (index
/// 0..3), 32-bit sizes.
/// rocSOLVER works on a rocBLAS handle, whose functions are looked up through
/// the rocSOLVER library (rocBLAS is its dependency). Loaded at run time (or
/// ZLUDA_ROCSOLVER_LIBRARY) so that our libcusolver loads on machines without
/// ROCm; Debian 12 has no rocSOLVER. rocSOLVER allocates its own workspace
/// through the rocBLAS handle, so cuSOLVER's workspace arguments are not
/// passed on. Enum values as rocBLAS and rocSOLVER number them: status
/// success 0; operation none/transpose/conjugate transpose 111/112/113; fill
/// upper/lower 121/122; side left/right 141/142; singular vectors all/
/// singular (the first min(m,n))/overwrite/none 191..194; work mode out of
/// place 201; eigenvectors original/none 211/213.
#pragma once

namespace zluda::rocsolver {

using Status = int; ///< 0: success
using Handle = void *; ///< rocblas_handle
constexpr int OpNone = 111, OpTranspose = 112, OpConjugate = 113;
constexpr int FillUpper = 121, FillLower = 122;
constexpr int SideLeft = 141, SideRight = 142;
constexpr int SvectAll = 191, SvectSingular = 192, SvectOverwrite = 193, SvectNone = 194;
constexpr int OutOfPlace = 201;
constexpr int EvectOriginal = 211, EvectNone = 213;

/// Entry points by type: [0] s, [1] d, [2] c, [3] z (ormqr/orgqr/syevd are unmqr/ungqr/heevd for c and z).
/// Matrices and vectors are device pointers; sizes rocblas_int (32-bit).
struct Api {
  Status (*CreateHandle)(Handle *);
  Status (*DestroyHandle)(Handle);
  Status (*SetStream)(Handle, void *);
  /// (handle, m, n, A, lda, ipiv, info)
  Status (*Getrf[4])(Handle, int, int, void *, int, int *, int *);
  /// (handle, m, n, A, lda, info): no pivoting
  Status (*GetrfNpvt[4])(Handle, int, int, void *, int, int *);
  /// (handle, operation, n, nrhs, A, lda, ipiv, B, ldb)
  Status (*Getrs[4])(Handle, int, int, int, void *, int, const int *, void *, int);
  /// (handle, fill, n, A, lda, info)
  Status (*Potrf[4])(Handle, int, int, void *, int, int *);
  /// (handle, fill, n, nrhs, A, lda, B, ldb)
  Status (*Potrs[4])(Handle, int, int, int, void *, int, void *, int);
  /// (handle, m, n, A, lda, tau)
  Status (*Geqrf[4])(Handle, int, int, void *, int, void *);
  /// (handle, side, operation, m, n, k, A, lda, tau, C, ldc)
  Status (*Ormqr[4])(Handle, int, int, int, int, int, void *, int, void *, void *, int);
  /// (handle, m, n, k, A, lda, tau)
  Status (*Orgqr[4])(Handle, int, int, int, void *, int, void *);
  /// (handle, left vectors, right vectors, m, n, A, lda, S, U, ldu, V (rows V^H), ldv, E (min(m,n)-1 reals),
  /// work mode, info)
  Status (*Gesvd[4])(Handle, int, int, int, int, void *, int, void *, void *, int, void *, int, void *, int, int *);
  /// (handle, eigenvectors, fill, n, A, lda, D (n reals), E (n reals of workspace), info)
  Status (*Syevd[4])(Handle, int, int, int, void *, int, void *, void *, int *);
  /// (handle, fill, n, A (device array of matrix pointers), lda, info (one a matrix), batch count)
  Status (*PotrfBatched[4])(Handle, int, int, void *const *, int, int *, int);
  /// (handle, fill, n, nrhs, A (pointers), lda, B (pointers), ldb, batch count)
  Status (*PotrsBatched[4])(Handle, int, int, int, void *const *, int, void *const *, int, int);
};

/// rocSOLVER, loaded at the first call on the HIP backend (null when it cannot be).
const Api *api();

} // namespace zluda::rocsolver
