# Debian package through CPack: `cpack -G DEB` in the build directory (or
# `cmake --build build --target package`). Installs /usr/bin/zluda,
# /usr/bin/zluda-ptx and /usr/lib/zluda/{libcuda.so.1,libcudart.so.13,libcublas.so.13,libcublasLt.so.13,
# libnvidia-ml.so.1,libcufft.so.12,libcufftw.so.12,libcurand.so.10,libcusparse.so.12,libcusolver.so.12,libcupti.so.13}.
set(CPACK_PACKAGE_NAME zluda)
set(CPACK_PACKAGE_VENDOR "ZLUDA for C++")
set(CPACK_PACKAGE_CONTACT "ZLUDA for C++ developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA Driver and Runtime APIs for AMD GPUs and CPUs")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Dependencies from the shared libraries the binaries link (libLLVM-15, zstd, lz4, sqlite, spdlog ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Runs unmodified CUDA programs built by nvcc: libcuda.so.1 and libcudart.so.13 with\na PTX compiler of their own, on a CPU device where no AMD GPU is present.\nRun programs with `zluda run -- program`.")
include(CPack)
