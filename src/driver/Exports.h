//===- Exports.h - driver entry points libcudart calls ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The exported driver functions our runtime calls beyond the internal
/// interface's helpers (Internal.h includes this): declared once, with the
/// parameter types the driver defines them with, so that a definition and its
/// callers cannot drift apart (a mismatch does not compile). Graph nodes,
/// executable graphs and user objects are `void *` here as in the driver.
#ifndef ZLUDA_DRIVER_EXPORTS_H
#define ZLUDA_DRIVER_EXPORTS_H

#include "zluda/cuda_abi.h"

#include <cstddef>

extern "C" {
// Streams, devices and graphs (src/driver/Module.cpp, Graph.cpp, UserObjects.cpp)
CUresult cuStreamSetAttribute(CUstream, int, const CUlaunchAttributeValue *);
CUresult cuStreamGetAttribute(CUstream, int, CUlaunchAttributeValue *);
CUresult cuStreamCopyAttributes(CUstream, CUstream);
CUresult cuStreamAttachMemAsync(CUstream, CUdeviceptr, size_t, unsigned);
CUresult cuDeviceGetGraphMemAttribute(CUdevice, int, void *);
CUresult cuDeviceSetGraphMemAttribute(CUdevice, int, void *);
CUresult cuDeviceGraphMemTrim(CUdevice);
CUresult cuCtxResetPersistingL2Cache();
CUresult cuGraphClone(CUgraph *, CUgraph);
CUresult cuGraphAddChildGraphNode(void **, CUgraph, void *const *, size_t, CUgraph);
CUresult cuGraphChildGraphNodeGetGraph(void *, CUgraph *);
CUresult cuGraphExecChildGraphNodeSetParams(void *, void *, CUgraph);
CUresult cuGraphAddEventRecordNode(void **, CUgraph, void *const *, size_t, CUevent);
CUresult cuGraphAddEventWaitNode(void **, CUgraph, void *const *, size_t, CUevent);
CUresult cuGraphAddMemAllocNode(void **, CUgraph, void *const *, size_t, CUDA_MEM_ALLOC_NODE_PARAMS *);
CUresult cuGraphAddMemFreeNode(void **, CUgraph, void *const *, size_t, CUdeviceptr);
CUresult cuGraphExecUpdate_v2(void *, CUgraph, void *);
CUresult cuGraphDebugDotPrint(CUgraph, const char *, unsigned);
CUresult cuGraphNodeGetDependencies(void *, void **, size_t *);
CUresult cuGraphGetEdges(CUgraph, void **, void **, size_t *);
CUresult cuGraphGetRootNodes(CUgraph, void **, size_t *);
CUresult cuGraphNodeFindInClone(void **, void *, CUgraph);
CUresult cuStreamGetCaptureInfo_v3(CUstream, int *, unsigned long long *, CUgraph *, const void **, const void **, size_t *);
CUresult cuStreamUpdateCaptureDependencies(CUstream, void **, size_t, unsigned);
CUresult cuGraphAddNode_v2(void **, CUgraph, void *const *, const void *, size_t, CUgraphNodeParams *);
CUresult cuGraphExecNodeSetParams(void *, void *, CUgraphNodeParams *);
CUresult cuGraphMemsetNodeGetParams(void *, CUDA_MEMSET_NODE_PARAMS *);
CUresult cuGraphMemsetNodeSetParams(void *, const CUDA_MEMSET_NODE_PARAMS *);
CUresult cuGraphHostNodeGetParams(void *, CUDA_HOST_NODE_PARAMS *);
CUresult cuGraphHostNodeSetParams(void *, const CUDA_HOST_NODE_PARAMS *);
CUresult cuGraphNodeSetParams(void *, CUgraphNodeParams *);
CUresult cuUserObjectCreate(void **, void *, CUhostFn, unsigned, unsigned);
CUresult cuUserObjectRetain(void *, unsigned);
CUresult cuUserObjectRelease(void *, unsigned);
CUresult cuGraphRetainUserObject(CUgraph, void *, unsigned, unsigned);
CUresult cuGraphReleaseUserObject(CUgraph, void *, unsigned);
// Stream-ordered allocation pools (src/driver/MemPool.cpp)
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
CUresult cuMemPoolCreate(CUmemoryPool *, const void *);
CUresult cuMemPoolDestroy(CUmemoryPool);
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *, CUdevice);
CUresult cuDeviceGetMemPool(CUmemoryPool *, CUdevice);
CUresult cuDeviceSetMemPool(CUdevice, CUmemoryPool);
CUresult cuMemPoolTrimTo(CUmemoryPool, size_t);
CUresult cuMemPoolSetAttribute(CUmemoryPool, int, void *);
CUresult cuMemPoolGetAttribute(CUmemoryPool, int, void *);
CUresult cuMemPoolSetAccess(CUmemoryPool, const void *, size_t);
CUresult cuMemPoolGetAccess(int *, CUmemoryPool, const void *);
}

#endif // ZLUDA_DRIVER_EXPORTS_H
