//===- HipBackend.h - AMD GPUs through HIP as the driver's backend ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_DRIVER_HIPBACKEND_H
#define ZLUDA_DRIVER_HIPBACKEND_H

#include "driver/Backend.h"
#include "hip_bridge/Hip.h"

namespace zluda::driver {

/// The backend for the GPU \p D (the device the program sees as device 0):
/// modules become AMDGPU code objects for its gcnArchName, loaded with
/// hipModuleLoadData; work goes to HIP streams. Null with \p Error set when
/// the device cannot be used (an unknown processor, hipSetDevice failing).
std::unique_ptr<Backend> makeHipBackend(const hip::Library &L, const hip::DeviceInfo &D, std::string &Error);

} // namespace zluda::driver

#endif // ZLUDA_DRIVER_HIPBACKEND_H
