// Shared by the cuSPARSE type-combination programs (cusparse_types.cu,
// cusparse_types_ops.cu): the value types they try, and their elements
// written from and read as complex<double>.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <library_types.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

struct T {
  cudaDataType Ty;
  const char *Name;
  int Bytes;
  bool Complex;
};
inline const T Types[] = {{CUDA_R_8I, "R_8I", 1, false},     {CUDA_R_32I, "R_32I", 4, false},
                          {CUDA_R_16F, "R_16F", 2, false},   {CUDA_R_16BF, "R_16BF", 2, false},
                          {CUDA_R_32F, "R_32F", 4, false},   {CUDA_R_64F, "R_64F", 8, false},
                          {CUDA_C_16F, "C_16F", 4, true},    {CUDA_C_16BF, "C_16BF", 4, true},
                          {CUDA_C_32F, "C_32F", 8, true},    {CUDA_C_64F, "C_64F", 16, true},
                          {CUDA_R_8U, "R_8U", 1, false},     {CUDA_C_8I, "C_8I", 2, true}};

inline void put(const T &t, void *P, std::complex<double> V) {
  double Re = V.real(), Im = V.imag();
  switch (t.Ty) {
  case CUDA_R_8I: *(int8_t *)P = int8_t(Re); break;
  case CUDA_R_8U: *(uint8_t *)P = uint8_t(Re); break;
  case CUDA_C_8I: ((int8_t *)P)[0] = int8_t(Re); ((int8_t *)P)[1] = int8_t(Im); break;
  case CUDA_R_32I: *(int32_t *)P = int32_t(Re); break;
  case CUDA_R_16F: *(__half *)P = __double2half(Re); break;
  case CUDA_R_16BF: *(__nv_bfloat16 *)P = __double2bfloat16(Re); break;
  case CUDA_R_32F: *(float *)P = float(Re); break;
  case CUDA_R_64F: *(double *)P = Re; break;
  case CUDA_C_16F: ((__half *)P)[0] = __double2half(Re); ((__half *)P)[1] = __double2half(Im); break;
  case CUDA_C_16BF: ((__nv_bfloat16 *)P)[0] = __double2bfloat16(Re); ((__nv_bfloat16 *)P)[1] = __double2bfloat16(Im); break;
  case CUDA_C_32F: ((float *)P)[0] = float(Re); ((float *)P)[1] = float(Im); break;
  case CUDA_C_64F: ((double *)P)[0] = Re; ((double *)P)[1] = Im; break;
  default: break;
  }
}
inline std::complex<double> get(const T &t, const void *P) {
  switch (t.Ty) {
  case CUDA_R_8I: return *(const int8_t *)P;
  case CUDA_R_8U: return *(const uint8_t *)P;
  case CUDA_C_8I: return {double(((const int8_t *)P)[0]), double(((const int8_t *)P)[1])};
  case CUDA_R_32I: return *(const int32_t *)P;
  case CUDA_R_16F: return double(__half2float(*(const __half *)P));
  case CUDA_R_16BF: return double(__bfloat162float(*(const __nv_bfloat16 *)P));
  case CUDA_R_32F: return *(const float *)P;
  case CUDA_R_64F: return *(const double *)P;
  case CUDA_C_16F: return {double(__half2float(((const __half *)P)[0])), double(__half2float(((const __half *)P)[1]))};
  case CUDA_C_16BF:
    return {double(__bfloat162float(((const __nv_bfloat16 *)P)[0])), double(__bfloat162float(((const __nv_bfloat16 *)P)[1]))};
  case CUDA_C_32F: return {double(((const float *)P)[0]), double(((const float *)P)[1])};
  case CUDA_C_64F: return {((const double *)P)[0], ((const double *)P)[1]};
  default: return 0;
  }
}


/// 0 when \p Lines are the golden file's (PASS printed), else 1 with the first difference (FAIL printed).
inline int compareGolden(const std::vector<std::string> &Lines, const char *Path, const char *Name) {
  std::ifstream F(Path);
  std::vector<std::string> Want;
  for (std::string L; std::getline(F, L);)
    Want.push_back(L);
  // A line NVIDIA's answered "differs" (it took the combination; its result is not the exact one: its SpGEMM reads
  // B's values as A's type whatever B's type) matches ours taking it with any result.
  auto Same = [](const std::string &W, const std::string &G) {
    const size_t D = W.find(" differs ");
    if (D == std::string::npos)
      return W == G;
    return G.compare(0, D, W, 0, D) == 0 && (G.compare(D, 7, " exact ") == 0 || G.compare(D, 9, " differs ") == 0);
  };
  if (Want.size() == Lines.size() && std::equal(Want.begin(), Want.end(), Lines.begin(), Same)) {
    std::printf("%s: PASS (NVIDIA's combinations)\n", Name);
    return 0;
  }
  for (size_t I = 0; I < std::max(Want.size(), Lines.size()); ++I) {
    const std::string W = I < Want.size() ? Want[I] : "", G = I < Lines.size() ? Lines[I] : "";
    if (!Same(W, G)) {
      std::printf("first difference at line %zu: NVIDIA's \"%s\", ours \"%s\"\n", I + 1, W.c_str(), G.c_str());
      break;
    }
  }
  std::printf("%s: FAIL: %zu lines here, %zu on NVIDIA's\n", Name, Lines.size(), Want.size());
  return 1;
}
