// Lets bench/kernels.cu compile as HIP with clang (for the AMDGPU register
// comparison): HIP's runtime header, and the CUDA 9 warp shuffle spelling
// that HIP 5.2 lacks (every lane of the mask takes part in these kernels).
#include <hip/hip_runtime.h>
#define __shfl_down_sync(mask, v, o) __shfl_down(v, o, 32)
