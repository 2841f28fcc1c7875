# Build options of ZLUDA for C++ (documented in docs/BUILDING.md).
option(ZLUDA_BUILD_TESTS "Build the test suite" ON)
option(ZLUDA_BUILD_BENCH "Build the benchmarks" ON)
set(ZLUDA_LLVM_VERSION 15 CACHE STRING
    "Major version of LLVM to build against (15-19; never newer than the LLVM of the COMGR found)")
set(ZLUDA_CUDA_ROOT /usr/local/cuda CACHE PATH
    "CUDA toolkit used only to build test programs (nvcc, ptxas); never linked into our libraries")

find_program(ZLUDA_CCACHE ccache)
if(ZLUDA_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${ZLUDA_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${ZLUDA_CCACHE})
endif()
