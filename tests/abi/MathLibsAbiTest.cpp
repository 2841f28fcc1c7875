//===- MathLibsAbiTest.cpp - cuRAND/cuFFT/cuSPARSE/cuSOLVER declarations ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Every enum value our headers declare for the part-2 math libraries
/// must be NVIDIA's, the discrete-distribution structs device code reads must
/// have NVIDIA's layout, and the export tables must hold the functions the
/// headers declare (a sample of each library, by name) and their counts.
#include <cstddef>
#include <stddef.h>
#include <stdint.h>

namespace ours {
#include "zluda/cufft_abi.h"
#include "zluda/curand_abi.h"
#include "zluda/cusolver_abi.h"
#include "zluda/cusparse_abi.h"
} // namespace ours

#include <cufft.h>
#include <cufftXt.h>
#include <curand.h>
#include <curand_discrete.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace {

#define SAME(X) static_assert(static_cast<long long>(ours::X) == static_cast<long long>(::X), #X)
// cuRAND
SAME(CURAND_STATUS_SUCCESS);
SAME(CURAND_STATUS_VERSION_MISMATCH);
SAME(CURAND_STATUS_NOT_INITIALIZED);
SAME(CURAND_STATUS_ALLOCATION_FAILED);
SAME(CURAND_STATUS_TYPE_ERROR);
SAME(CURAND_STATUS_OUT_OF_RANGE);
SAME(CURAND_STATUS_LENGTH_NOT_MULTIPLE);
SAME(CURAND_STATUS_DOUBLE_PRECISION_REQUIRED);
SAME(CURAND_STATUS_LAUNCH_FAILURE);
SAME(CURAND_STATUS_PREEXISTING_FAILURE);
SAME(CURAND_STATUS_INITIALIZATION_FAILED);
SAME(CURAND_STATUS_ARCH_MISMATCH);
SAME(CURAND_STATUS_INTERNAL_ERROR);
SAME(CURAND_RNG_PSEUDO_DEFAULT);
SAME(CURAND_RNG_PSEUDO_XORWOW);
SAME(CURAND_RNG_PSEUDO_MRG32K3A);
SAME(CURAND_RNG_PSEUDO_MTGP32);
SAME(CURAND_RNG_PSEUDO_MT19937);
SAME(CURAND_RNG_PSEUDO_PHILOX4_32_10);
SAME(CURAND_RNG_QUASI_DEFAULT);
SAME(CURAND_RNG_QUASI_SOBOL32);
SAME(CURAND_RNG_QUASI_SCRAMBLED_SOBOL32);
SAME(CURAND_RNG_QUASI_SOBOL64);
SAME(CURAND_RNG_QUASI_SCRAMBLED_SOBOL64);
SAME(CURAND_ORDERING_PSEUDO_BEST);
SAME(CURAND_ORDERING_PSEUDO_DEFAULT);
SAME(CURAND_ORDERING_PSEUDO_SEEDED);
SAME(CURAND_ORDERING_PSEUDO_LEGACY);
SAME(CURAND_ORDERING_PSEUDO_DYNAMIC);
SAME(CURAND_ORDERING_QUASI_DEFAULT);
SAME(CURAND_DIRECTION_VECTORS_64_JOEKUO6);
SAME(CURAND_M2);
SAME(CURAND_DISCRETE_GAUSS);
SAME(CURAND_POISSON);
#define SAME_FIELD(S, F) static_assert(offsetof(ours::S, F) == offsetof(::S, F), #S "." #F)
SAME_FIELD(curandDiscreteDistribution_st, M2);
SAME_FIELD(curandDiscreteDistribution_st, stddev);
SAME_FIELD(curandDiscreteDistribution_st, mean);
SAME_FIELD(curandDiscreteDistribution_st, method);
SAME_FIELD(curandDistributionM2Shift_st, histogram);
SAME_FIELD(curandDistributionM2Shift_st, shift);
SAME_FIELD(curandDistributionM2Shift_st, length);
SAME_FIELD(curandHistogramM2_st, V);
SAME_FIELD(curandHistogramM2_st, K);
static_assert(sizeof(ours::curandDiscreteDistribution_st) == sizeof(::curandDiscreteDistribution_st));
// cuFFT
SAME(CUFFT_SUCCESS);
SAME(CUFFT_INVALID_PLAN);
SAME(CUFFT_INVALID_TYPE);
SAME(CUFFT_INVALID_VALUE);
SAME(CUFFT_INTERNAL_ERROR);
SAME(CUFFT_EXEC_FAILED);
SAME(CUFFT_SETUP_FAILED);
SAME(CUFFT_INVALID_SIZE);
SAME(CUFFT_NOT_SUPPORTED);
SAME(CUFFT_R2C);
SAME(CUFFT_C2R);
SAME(CUFFT_C2C);
SAME(CUFFT_D2Z);
SAME(CUFFT_Z2D);
SAME(CUFFT_Z2Z);
SAME(NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT);
SAME(NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS);
static_assert(ZLUDA_CUFFT_FORWARD == CUFFT_FORWARD && ZLUDA_CUFFT_INVERSE == CUFFT_INVERSE);
static_assert(ZLUDA_CUDA_XT_DESCRIPTOR_VERSION == CUDA_XT_DESCRIPTOR_VERSION &&
              ZLUDA_MAX_CUDA_DESCRIPTOR_GPUS == MAX_CUDA_DESCRIPTOR_GPUS);
static_assert(sizeof(ours::cudaXtDesc) == sizeof(::cudaXtDesc) && sizeof(ours::cudaLibXtDesc) == sizeof(::cudaLibXtDesc));
static_assert(offsetof(ours::cudaXtDesc, data) == offsetof(::cudaXtDesc, data) &&
              offsetof(ours::cudaXtDesc, size) == offsetof(::cudaXtDesc, size) &&
              offsetof(ours::cudaLibXtDesc, descriptor) == offsetof(::cudaLibXtDesc, descriptor) &&
              offsetof(ours::cudaLibXtDesc, subFormat) == offsetof(::cudaLibXtDesc, subFormat));
SAME(CUFFT_COPY_HOST_TO_DEVICE);
SAME(CUFFT_COPY_DEVICE_TO_HOST);
SAME(CUFFT_COPY_DEVICE_TO_DEVICE);
// cuSPARSE
SAME(CUSPARSE_STATUS_SUCCESS);
SAME(CUSPARSE_STATUS_INVALID_VALUE);
SAME(CUSPARSE_STATUS_EXECUTION_FAILED);
SAME(CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED);
SAME(CUSPARSE_STATUS_ZERO_PIVOT);
SAME(CUSPARSE_STATUS_NOT_SUPPORTED);
SAME(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES);
SAME(CUSPARSE_POINTER_MODE_DEVICE);
SAME(CUSPARSE_ACTION_NUMERIC);
SAME(CUSPARSE_MATRIX_TYPE_TRIANGULAR);
SAME(CUSPARSE_FILL_MODE_UPPER);
SAME(CUSPARSE_DIAG_TYPE_UNIT);
SAME(CUSPARSE_INDEX_BASE_ONE);
SAME(CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
SAME(CUSPARSE_SOLVE_POLICY_USE_LEVEL);
SAME(CUSPARSE_FORMAT_CSR);
SAME(CUSPARSE_FORMAT_CSC);
SAME(CUSPARSE_FORMAT_COO);
SAME(CUSPARSE_FORMAT_BLOCKED_ELL);
SAME(CUSPARSE_FORMAT_BSR);
SAME(CUSPARSE_FORMAT_SLICED_ELLPACK);
SAME(CUSPARSE_ORDER_COL);
SAME(CUSPARSE_ORDER_ROW);
SAME(CUSPARSE_INDEX_32I);
SAME(CUSPARSE_INDEX_64I);
SAME(CUSPARSE_SPMAT_FILL_MODE);
SAME(CUSPARSE_SPMAT_DIAG_TYPE);
// cuSOLVER
SAME(CUSOLVER_STATUS_SUCCESS);
SAME(CUSOLVER_STATUS_NOT_INITIALIZED);
SAME(CUSOLVER_STATUS_INVALID_VALUE);
SAME(CUSOLVER_STATUS_EXECUTION_FAILED);
SAME(CUSOLVER_STATUS_NOT_SUPPORTED);
SAME(CUSOLVER_STATUS_INVALID_WORKSPACE);
SAME(CUSOLVER_EIG_MODE_VECTOR);
#undef SAME
#undef SAME_FIELD

template <size_t N> std::set<std::string> table(const char *const (&Rows)[N]) { return {Rows, Rows + N}; }

TEST(MathLibsAbi, TablesHoldTheHeadersFunctions) {
  const char *const Curand[] = {
#define LIB_EXPORT(Name) #Name,
#include "zluda/api/curand.def"
  };
  const char *const Cufft[] = {
#define LIB_EXPORT(Name) #Name,
#include "zluda/api/cufft.def"
  };
  const char *const Cusparse[] = {
#define LIB_EXPORT(Name) #Name,
#include "zluda/api/cusparse.def"
  };
  const char *const Cusolver[] = {
#define LIB_EXPORT(Name) #Name,
#include "zluda/api/cusolver.def"
  };
  // decltype checks that the header declares each name (without linking it).
  const std::pair<std::set<std::string>, std::vector<std::pair<const char *, bool>>> Cases[] = {
      {table(Curand),
       {{"curandCreateGenerator", std::is_function_v<decltype(curandCreateGenerator)>},
        {"curandGenerateNormalDouble", std::is_function_v<decltype(curandGenerateNormalDouble)>},
        {"curandCreatePoissonDistribution", std::is_function_v<decltype(curandCreatePoissonDistribution)>}}},
      {table(Cufft),
       {{"cufftPlanMany", std::is_function_v<decltype(cufftPlanMany)>},
        {"cufftExecZ2D", std::is_function_v<decltype(cufftExecZ2D)>},
        {"cufftMakePlanMany64", std::is_function_v<decltype(cufftMakePlanMany64)>}}},
      {table(Cusparse),
       {{"cusparseSpMV", std::is_function_v<decltype(cusparseSpMV)>},
        {"cusparseSpGEMM_copy", std::is_function_v<decltype(cusparseSpGEMM_copy)>},
        {"cusparseDcsrilu02", std::is_function_v<decltype(cusparseDcsrilu02)>}}},
      {table(Cusolver),
       {{"cusolverDnZheevd", std::is_function_v<decltype(cusolverDnZheevd)>},
        {"cusolverDnSgetrf", std::is_function_v<decltype(cusolverDnSgetrf)>},
        {"cusolverDnCunmqr_bufferSize", std::is_function_v<decltype(cusolverDnCunmqr_bufferSize)>}}},
  };
  for (const auto &[Table, Names] : Cases)
    for (const auto &[Name, Declared] : Names)
      EXPECT_TRUE(Declared && Table.count(Name)) << Name;
  EXPECT_EQ(std::size(Curand), 27u);
  EXPECT_EQ(std::size(Cufft), 58u);
  EXPECT_EQ(std::size(Cusparse), 423u);
  EXPECT_EQ(std::size(Cusolver), 832u);
}

} // namespace
