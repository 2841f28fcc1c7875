# Build options of ZLUDA for C++ (documented in docs/BUILDING.md).
option(ZLUDA_BUILD_TESTS "Build the test suite" ON)
option(ZLUDA_BUILD_BENCH "Build the benchmarks" ON)
set(ZLUDA_LLVM_VERSION 15 CACHE STRING
    "Major version of LLVM to build against (15-19; never newer than the LLVM of the COMGR found)")
option(ZLUDA_LLVM_STATIC "Link LLVM's static libraries into libcuda.so.1 with hidden symbols (OFF: the shared libLLVM)" ON)
set(ZLUDA_CUDA_ROOT /usr/local/cuda CACHE PATH
    "CUDA toolkit used only to build test programs (nvcc, ptxas); never linked into our libraries")

find_program(ZLUDA_CCACHE ccache)
if(ZLUDA_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${ZLUDA_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${ZLUDA_CCACHE})
endif()

# Sanitizer builds (scripts/sanitize): "address,undefined" or "thread". Every
# target of the project is instrumented; LLVM, COMGR and the programs under
# test are not, so tests that run an uninstrumented program over our libraries
# get the sanitizer runtime preloaded (tests/CMakeLists.txt).
set(ZLUDA_SANITIZE "" CACHE STRING "Sanitizers to build with: empty, address,undefined, or thread")
if(ZLUDA_SANITIZE)
  if(NOT ZLUDA_SANITIZE MATCHES "^(address|undefined|address,undefined|undefined,address|thread)$")
    message(FATAL_ERROR "ZLUDA_SANITIZE=${ZLUDA_SANITIZE}: use address,undefined or thread")
  endif()
  add_compile_options(-fsanitize=${ZLUDA_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${ZLUDA_SANITIZE})
  if(ZLUDA_SANITIZE MATCHES "thread")
    set(_san_lib libtsan.so)
  else()
    set(_san_lib libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_san_lib}
                  OUTPUT_VARIABLE ZLUDA_SANITIZER_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(ZLUDA_SANITIZER_RUNTIME ${ZLUDA_SANITIZER_RUNTIME} REALPATH)
  message(STATUS "sanitizers: ${ZLUDA_SANITIZE} (runtime ${ZLUDA_SANITIZER_RUNTIME})")
endif()
