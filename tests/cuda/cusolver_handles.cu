// cuSOLVER's handle calls (Dn, Sp, Rf, the IRS objects) as the cuSOLVER
// reference describes them: a handle works after create, set/get stream
// round-trips, a null result pointer is CUSOLVER_STATUS_INVALID_VALUE, and a
// handle that was destroyed is CUSOLVER_STATUS_NOT_INITIALIZED for every call,
// never a crash (libs/common/Handles.h serves all of them).
#include "libs_common.h"
#include <cusolverDn.h>
#include <cusolverRf.h>
#include <cusolverSp.h>

static int Bad = 0;

int main() {
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  cudaStream_t Got = nullptr;

  stage("dense handle");
  EXPECT(cusolverDnCreate(nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  cusolverDnHandle_t Dn;
  EXPECT(cusolverDnCreate(&Dn) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnSetStream(Dn, S) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnGetStream(Dn, &Got) == CUSOLVER_STATUS_SUCCESS && Got == S);
  EXPECT(cusolverDnGetStream(Dn, nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  EXPECT(cusolverDnDestroy(Dn) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnSetStream(Dn, S) == CUSOLVER_STATUS_NOT_INITIALIZED);
  EXPECT(cusolverDnGetStream(Dn, &Got) == CUSOLVER_STATUS_NOT_INITIALIZED);
  EXPECT(cusolverDnDestroy(Dn) == CUSOLVER_STATUS_NOT_INITIALIZED);

  stage("sparse handle");
  EXPECT(cusolverSpCreate(nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  cusolverSpHandle_t Sp;
  EXPECT(cusolverSpCreate(&Sp) == CUSOLVER_STATUS_SUCCESS);
  Got = nullptr;
  EXPECT(cusolverSpSetStream(Sp, S) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverSpGetStream(Sp, &Got) == CUSOLVER_STATUS_SUCCESS && Got == S);
  EXPECT(cusolverSpGetStream(Sp, nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  EXPECT(cusolverSpDestroy(Sp) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverSpSetStream(Sp, S) == CUSOLVER_STATUS_NOT_INITIALIZED);
  EXPECT(cusolverSpGetStream(Sp, &Got) == CUSOLVER_STATUS_NOT_INITIALIZED);
  EXPECT(cusolverSpDestroy(Sp) == CUSOLVER_STATUS_NOT_INITIALIZED);

  stage("refactorization handle");
  EXPECT(cusolverRfCreate(nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  cusolverRfHandle_t Rf;
  EXPECT(cusolverRfCreate(&Rf) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverRfDestroy(Rf) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverRfDestroy(Rf) == CUSOLVER_STATUS_NOT_INITIALIZED);

  stage("IRS objects");
  EXPECT(cusolverDnIRSParamsCreate(nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  cusolverDnIRSParams_t Params;
  EXPECT(cusolverDnIRSParamsCreate(&Params) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnIRSParamsDestroy(Params) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnIRSParamsDestroy(Params) == CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED);
  cusolverDnIRSInfos_t Infos;
  EXPECT(cusolverDnIRSInfosCreate(&Infos) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnIRSInfosDestroy(Infos) == CUSOLVER_STATUS_SUCCESS);
  EXPECT(cusolverDnIRSInfosDestroy(Infos) == CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED);

  CHECK(cudaStreamDestroy(S));
  return verdict("cusolver_handles", Bad);
}
