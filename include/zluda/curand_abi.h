/*===- curand_abi.h - the cuRAND host API types our libcurand implements ---===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our own declarations of the cuRAND host ABI (enum values and types
 * from the cuRAND library reference), checked against NVIDIA's curand.h by
 * tests/abi/CurandAbiTest.cpp where the toolkit is installed. */
#ifndef ZLUDA_CURAND_ABI_H
#define ZLUDA_CURAND_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CURAND_STATUS_SUCCESS = 0,
  CURAND_STATUS_VERSION_MISMATCH = 100,
  CURAND_STATUS_NOT_INITIALIZED = 101,
  CURAND_STATUS_ALLOCATION_FAILED = 102,
  CURAND_STATUS_TYPE_ERROR = 103,
  CURAND_STATUS_OUT_OF_RANGE = 104,
  CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
  CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
  CURAND_STATUS_LAUNCH_FAILURE = 201,
  CURAND_STATUS_PREEXISTING_FAILURE = 202,
  CURAND_STATUS_INITIALIZATION_FAILED = 203,
  CURAND_STATUS_ARCH_MISMATCH = 204,
  CURAND_STATUS_INTERNAL_ERROR = 999
} curandStatus_t;

typedef enum {
  CURAND_RNG_TEST = 0,
  CURAND_RNG_PSEUDO_DEFAULT = 100,
  CURAND_RNG_PSEUDO_XORWOW = 101,
  CURAND_RNG_PSEUDO_MRG32K3A = 121,
  CURAND_RNG_PSEUDO_MTGP32 = 141,
  CURAND_RNG_PSEUDO_MT19937 = 142,
  CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
  CURAND_RNG_QUASI_DEFAULT = 200,
  CURAND_RNG_QUASI_SOBOL32 = 201,
  CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202,
  CURAND_RNG_QUASI_SOBOL64 = 203,
  CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204
} curandRngType_t;

typedef enum {
  CURAND_ORDERING_PSEUDO_BEST = 100,
  CURAND_ORDERING_PSEUDO_DEFAULT = 101,
  CURAND_ORDERING_PSEUDO_SEEDED = 102,
  CURAND_ORDERING_PSEUDO_LEGACY = 103,
  CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
  CURAND_ORDERING_QUASI_DEFAULT = 201
} curandOrdering_t;

typedef enum {
  CURAND_DIRECTION_VECTORS_32_JOEKUO6 = 101,
  CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 = 102,
  CURAND_DIRECTION_VECTORS_64_JOEKUO6 = 103,
  CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 = 104
} curandDirectionVectorSet_t;

typedef unsigned int curandDirectionVectors32_t[32];
typedef unsigned long long curandDirectionVectors64_t[64];

typedef enum {
  CURAND_CHOOSE_BEST = 0,
  CURAND_ITR = 1,
  CURAND_KNUTH = 2,
  CURAND_HITR = 3,
  CURAND_M1 = 4,
  CURAND_M2 = 5,
  CURAND_BINARY_SEARCH = 6,
  CURAND_DISCRETE_GAUSS = 7,
  CURAND_REJECTION = 8,
  CURAND_DEVICE_API = 9,
  CURAND_FAST_REJECTION = 10,
  CURAND_3RD = 11,
  CURAND_DEFINITION = 12,
  CURAND_POISSON = 13
} curandMethod_t;

typedef struct curandGenerator_st *curandGenerator_t;

/* A discrete distribution made by curandCreatePoissonDistribution: device
 * code (curand_discrete.h of the user's program) reads these fields, so the
 * layout is the ABI: the square histogram of Marsaglia, Tsang and Wang. */
struct curandHistogramM2_st {
  double *V;
  double *host_V;
  unsigned int *K;
  unsigned int *host_K;
  unsigned int host_gen;
};
typedef struct curandHistogramM2_st *curandHistogramM2_t;
struct curandDistributionM2Shift_st {
  curandHistogramM2_t histogram;
  curandHistogramM2_t host_histogram;
  unsigned int shift;
  unsigned int length;
  unsigned int host_gen;
};
typedef struct curandDistributionM2Shift_st *curandDistributionM2Shift_t;
struct curandDiscreteDistribution_st {
  struct curandDiscreteDistribution_st *self_host_ptr;
  curandDistributionM2Shift_t M2;
  curandDistributionM2Shift_t host_M2;
  double stddev;
  double mean;
  curandMethod_t method;
  unsigned int host_gen;
};
typedef struct curandDiscreteDistribution_st *curandDiscreteDistribution_t;

#ifdef __cplusplus
}
#endif
#endif
