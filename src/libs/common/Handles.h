//===- Handles.h - the handle calls every math library makes alike ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Create, Destroy, SetStream and GetStream of a library's handle (and
/// the create/destroy pair of its plain descriptors), over Live<T>: a stale,
/// foreign or null pointer gets the library's own status for it, never a
/// crash. Each library names its statuses once (HandleStatus) and keeps what
/// is its own: a destroy that waits for the handle's stream or frees a
/// workspace, a create that makes a backend handle.
#pragma once

#include "libs/common/LibSupport.h"

#include <type_traits>

namespace zluda::libs {

/// A library's answers to the handle calls.
template <typename S> struct HandleStatus {
  S Ok;
  S BadHandle; ///< a pointer that is no live handle of this library
  S BadValue;  ///< a null pointer for a result
  S NoContext; ///< no context could be made current
};

/// A new \p T into *\p Out (null: BadValue), registered as live; made in the
/// current context (the primary context of device 0 made current if there is
/// none, as NVIDIA's libraries do), which it keeps where \p T has a Ctx member.
/// \p Ready runs once the context is current: a status other than Ok refuses
/// (cuBLAS without a backend).
template <typename T, typename Out, typename S, typename ReadyT>
S createHandle(Out *P, const HandleStatus<S> &St, ReadyT Ready) {
  if (!P)
    return St.BadValue;
  CUcontext Ctx;
  if (ensureContext(Ctx))
    return St.NoContext;
  if (S R = Ready(); R != St.Ok)
    return R;
  T *H = new T;
  if constexpr (requires(T *X) { X->Ctx; })
    H->Ctx = Ctx;
  *P = reinterpret_cast<Out>(Live<T>::add(H));
  return St.Ok;
}
template <typename T, typename Out, typename S> S createHandle(Out *P, const HandleStatus<S> &St) {
  return createHandle<T>(P, St, [&] { return St.Ok; });
}

/// A new descriptor \p T (no context needed) into *\p Out (null: \p BadValue).
template <typename T, typename Out, typename S> S createObject(Out *P, S Ok, S BadValue) {
  if (!P)
    return BadValue;
  *P = reinterpret_cast<Out>(Live<T>::add(new T));
  return Ok;
}

/// Forgets and deletes the live \p T at \p P: \p Ok, or \p Bad where it is none.
template <typename T, typename S> S destroyObject(const void *P, S Ok, S Bad) {
  return Live<T>::destroy(P) ? Ok : Bad;
}

/// A setting of the live handle at \p P (its \p Field) set to \p Value where
/// \p Valid(Value) holds (else BadValue): pointer modes, math modes, streams.
template <typename T, typename F, typename V, typename S, typename ValidT>
S setHandleField(const void *P, F T::*Field, V Value, const HandleStatus<S> &St, ValidT Valid) {
  T *H = Live<T>::find(P);
  if (!H)
    return St.BadHandle;
  if (!Valid(Value))
    return St.BadValue;
  H->*Field = Value;
  return St.Ok;
}
template <typename T, typename F, typename V, typename S>
S setHandleField(const void *P, F T::*Field, V Value, const HandleStatus<S> &St) {
  return setHandleField(P, Field, Value, St, [](const V &) { return true; });
}

/// The setting \p Field of the live handle at \p P into *\p Out (null: BadValue).
template <typename T, typename F, typename V, typename S>
S getHandleField(const void *P, F T::*Field, V *Out, const HandleStatus<S> &St) {
  T *H = Live<T>::find(P);
  if (!H)
    return St.BadHandle;
  if (!Out)
    return St.BadValue;
  *Out = H->*Field;
  return St.Ok;
}

/// The stream the library's calls on handle \p P are ordered in.
template <typename T, typename S> S setHandleStream(const void *P, CUstream Stream, const HandleStatus<S> &St) {
  return setHandleField(P, &T::Stream, Stream, St);
}
template <typename T, typename S> S getHandleStream(const void *P, CUstream *Out, const HandleStatus<S> &St) {
  return getHandleField(P, &T::Stream, Out, St);
}

} // namespace zluda::libs
