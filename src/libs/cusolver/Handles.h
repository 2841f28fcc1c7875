//===- Handles.h - cuSOLVER's answers to the handle calls -------*- C++ -*-===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The statuses cuSOLVER's Dn, Sp and Rf handles answer with
/// (libs/common/Handles.h): a handle that is none is NOT_INITIALIZED, as in
/// NVIDIA's library.
#pragma once

#include "libs/common/Handles.h"
#include "zluda/cusolver_abi.h"

namespace zluda::cusolver {

inline constexpr libs::HandleStatus<cusolverStatus_t> HandleStatuses{
    CUSOLVER_STATUS_SUCCESS, CUSOLVER_STATUS_NOT_INITIALIZED, CUSOLVER_STATUS_INVALID_VALUE,
    CUSOLVER_STATUS_NOT_INITIALIZED};

} // namespace zluda::cusolver
