# Finds every third-party dependency. Debian 12 packages: see scripts/install-deps.

# --- LLVM -----------------------------------------------------------------
# Static by default (ZLUDA_LLVM_STATIC): only the components below, linked into
# libcuda.so.1 alone, whose version script keeps every LLVM symbol local, so a
# program that loads its own LLVM (llvmlite, Triton, Mesa, COMGR's libLLVM)
# never meets ours. Everything else of ours that compiles reaches the compiler
# through libcuda.so.1. OFF links the shared libLLVM-N.so as before.
if(NOT ZLUDA_LLVM_VERSION MATCHES "^(15|16|17|18|19)$")
  message(FATAL_ERROR "ZLUDA_LLVM_VERSION=${ZLUDA_LLVM_VERSION}: only LLVM 15 to 19 are supported")
endif()
find_package(LLVM ${ZLUDA_LLVM_VERSION} REQUIRED CONFIG
             HINTS /usr/lib/llvm-${ZLUDA_LLVM_VERSION}/lib/cmake/llvm)
if(NOT LLVM_VERSION_MAJOR EQUAL ZLUDA_LLVM_VERSION)
  message(FATAL_ERROR "asked for LLVM ${ZLUDA_LLVM_VERSION} but found LLVM ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}")
# Compiling against LLVM's headers (every target that includes them).
add_library(zluda_llvm INTERFACE)
target_include_directories(zluda_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
# Most of them link no LLVM (they reach it through libcuda.so.1): no reference
# to LLVM's ABI-check symbol from its headers.
target_compile_definitions(zluda_llvm INTERFACE ${LLVM_DEFINITIONS} LLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING=1)
# Linking LLVM's code: libcuda.so.1 and the fuzz targets only.
add_library(zluda_llvm_link INTERFACE)
if(ZLUDA_LLVM_STATIC)
  # The CPU device's JIT (ORC, the native target), the optimization and
  # lowering passes, bitcode for the cache and for COMGR. COMGR does AMDGPU code
  # generation itself, so no AMDGPU target is linked.
  llvm_map_components_to_libnames(ZLUDA_LLVM_LIBS
    core support analysis transformutils scalaropts instcombine aggressiveinstcombine vectorize ipo passes
    bitreader bitwriter irreader linker target mc object orcjit executionengine runtimedyld
    ${LLVM_NATIVE_ARCH} ${LLVM_NATIVE_ARCH}codegen ${LLVM_NATIVE_ARCH}asmparser)
  target_link_libraries(zluda_llvm_link INTERFACE ${ZLUDA_LLVM_LIBS})
  message(STATUS "LLVM linked statically: ${ZLUDA_LLVM_LIBS}")
else()
  find_library(ZLUDA_LIBLLVM NAMES LLVM-${LLVM_VERSION_MAJOR} LLVM
               HINTS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
  target_link_libraries(zluda_llvm_link INTERFACE ${ZLUDA_LIBLLVM})
endif()
# Code that uses LLVM's C++ API must match its RTTI setting.
function(zluda_llvm_flags target)
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
endfunction()
find_program(ZLUDA_LLVM_READELF llvm-readelf HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(ZLUDA_LLVM_OBJDUMP llvm-objdump HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(ZLUDA_LLVM_NM llvm-nm HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(ZLUDA_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)

# --- AMD COMGR (its header: the library is loaded at run time, Comgr.h), and
# the rule that our LLVM is not newer than COMGR's -------------------------
find_package(amd_comgr CONFIG REQUIRED)
add_library(zluda_comgr_headers INTERFACE)
target_include_directories(zluda_comgr_headers SYSTEM INTERFACE
  $<TARGET_PROPERTY:amd_comgr,INTERFACE_INCLUDE_DIRECTORIES>)
get_target_property(_comgr_lib amd_comgr IMPORTED_LOCATION_RELEASE)
if(NOT _comgr_lib)
  get_target_property(_comgr_lib amd_comgr IMPORTED_LOCATION)
endif()
if(NOT _comgr_lib)
  get_target_property(_comgr_cfgs amd_comgr IMPORTED_CONFIGURATIONS)
  list(GET _comgr_cfgs 0 _comgr_cfg)
  get_target_property(_comgr_lib amd_comgr IMPORTED_LOCATION_${_comgr_cfg})
endif()
set(ZLUDA_COMGR_LLVM_MAJOR "")
if(_comgr_lib AND CMAKE_READELF)
  execute_process(COMMAND ${CMAKE_READELF} -d ${_comgr_lib} OUTPUT_VARIABLE _comgr_dyn ERROR_QUIET)
  if(_comgr_dyn MATCHES "libLLVM-([0-9]+)")
    set(ZLUDA_COMGR_LLVM_MAJOR ${CMAKE_MATCH_1})
  endif()
endif()
if(ZLUDA_COMGR_LLVM_MAJOR)
  message(STATUS "COMGR ${amd_comgr_VERSION} (${_comgr_lib}) is built on LLVM ${ZLUDA_COMGR_LLVM_MAJOR}")
  if(LLVM_VERSION_MAJOR GREATER ZLUDA_COMGR_LLVM_MAJOR)
    message(FATAL_ERROR
      "LLVM ${LLVM_VERSION_MAJOR} is newer than the LLVM ${ZLUDA_COMGR_LLVM_MAJOR} of COMGR: COMGR "
      "cannot read its bitcode. Set -DZLUDA_LLVM_VERSION=${ZLUDA_COMGR_LLVM_MAJOR}.")
  endif()
else()
  message(WARNING "could not tell which LLVM COMGR (${_comgr_lib}) is built on")
endif()

# --- HIP headers only: libamdhip64 is dlopen()ed at run time ---------------
find_path(ZLUDA_HIP_INCLUDE_DIR hip/hip_runtime_api.h PATHS /usr/include /opt/rocm/include REQUIRED)
add_library(zluda_hip_headers INTERFACE)
target_include_directories(zluda_hip_headers SYSTEM INTERFACE ${ZLUDA_HIP_INCLUDE_DIR})
target_compile_definitions(zluda_hip_headers INTERFACE __HIP_PLATFORM_AMD__)

# --- small libraries --------------------------------------------------------
find_package(spdlog CONFIG REQUIRED)
find_package(zstd CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
find_package(SQLite3 REQUIRED)
find_package(Threads REQUIRED)
if(ZLUDA_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()

# --- CUDA toolkit: only to compile test programs and check printed PTX -----
find_program(ZLUDA_NVCC nvcc HINTS ${ZLUDA_CUDA_ROOT}/bin NO_DEFAULT_PATH)
find_program(ZLUDA_PTXAS ptxas HINTS ${ZLUDA_CUDA_ROOT}/bin NO_DEFAULT_PATH)
if(ZLUDA_NVCC)
  message(STATUS "nvcc for test programs: ${ZLUDA_NVCC}")
else()
  message(STATUS "nvcc not found in ${ZLUDA_CUDA_ROOT}: CUDA test programs are skipped")
endif()
