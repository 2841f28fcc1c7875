//===- UserObjects.cpp - user objects and the references graphs hold --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cuUserObjectCreate/Retain/Release and cuGraphRetain/ReleaseUserObject:
/// a user object is a reference count and a destructor; a graph holds
/// references of its own (Graph::Users), released when the graph is destroyed.
#include "driver/Internal.h"

#include <thread>

using namespace zluda::driver;

void zluda::driver::userObjectRelease(UserObject *U, unsigned Count) {
  if ((U->Refs -= Count) > 0)
    return;
  removeLive(U);
  // CUDA runs destructors asynchronously, on a thread of its own (they may
  // not call CUDA); so do we, so that none runs under a caller's lock.
  std::thread([U] {
    if (U->Destroy)
      U->Destroy(U->Ptr);
    delete U;
  }).detach();
}

ZLUDA_API(cuUserObjectCreate, (void **Out, void *Ptr, CUhostFn Destroy, unsigned Refs, unsigned Flags),
          (Out, Ptr, Destroy, Refs, Flags)) {
  ZLUDA_GUARD({
    // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC is the one flag, and required.
    if (!Out || !Destroy || Refs == 0 || Flags != 1)
      return CUDA_ERROR_INVALID_VALUE;
    auto *U = new UserObject;
    U->Ptr = Ptr;
    U->Destroy = Destroy;
    U->Refs = Refs;
    addLive(U, Kind::UserObject);
    *Out = U;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuUserObjectRetain, (void *H, unsigned Count), (H, Count)) {
  ZLUDA_GUARD({
    if (!isLive(H, Kind::UserObject) || Count == 0)
      return CUDA_ERROR_INVALID_VALUE;
    static_cast<UserObject *>(H)->Refs += Count;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuUserObjectRelease, (void *H, unsigned Count), (H, Count)) {
  ZLUDA_GUARD({
    if (!isLive(H, Kind::UserObject) || Count == 0)
      return CUDA_ERROR_INVALID_VALUE;
    userObjectRelease(static_cast<UserObject *>(H), Count);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphRetainUserObject, (CUgraph G, void *H, unsigned Count, unsigned Flags), (G, H, Count, Flags)) {
  ZLUDA_GUARD({
    Graph *Gr = handle<Graph>(G, Kind::Graph);
    if (!Gr || !isLive(H, Kind::UserObject) || Count == 0 || (Flags & ~1u))
      return CUDA_ERROR_INVALID_VALUE;
    auto *U = static_cast<UserObject *>(H);
    if (!(Flags & 1)) // CU_GRAPH_USER_OBJECT_MOVE: the caller's references move to the graph
      U->Refs += Count;
    Gr->Users.Refs[U] += Count;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphReleaseUserObject, (CUgraph G, void *H, unsigned Count), (G, H, Count)) {
  ZLUDA_GUARD({
    Graph *Gr = handle<Graph>(G, Kind::Graph);
    if (!Gr || !isLive(H, Kind::UserObject) || Count == 0)
      return CUDA_ERROR_INVALID_VALUE;
    auto *U = static_cast<UserObject *>(H);
    auto It = Gr->Users.Refs.find(U);
    if (It == Gr->Users.Refs.end() || It->second < Count) {
      // More than the graph holds: success, nothing released (as an H200 answers).
      ZLUDA_LOG_WARN("cuGraphReleaseUserObject: the graph holds fewer than {} references; nothing released", Count);
      return CUDA_SUCCESS;
    }
    if ((It->second -= Count) == 0)
      Gr->Users.Refs.erase(It);
    userObjectRelease(U, Count);
    return CUDA_SUCCESS;
  });
}
