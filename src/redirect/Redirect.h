//===- Redirect.h - the audit library's shared parts ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_REDIRECT_REDIRECT_H
#define ZLUDA_REDIRECT_REDIRECT_H

namespace zluda::redirect {

/// Whether \p Path (a loaded object's name) is one of our math libraries in our folder, whose calls the trace
/// logs (the driver and runtime trace their own calls).
bool isTracedLibrary(const char *Path);
/// Reads ZLUDA_LOG (tracing when "trace") and ZLUDA_LOG_FILE; called once, from la_version.
void startTrace();

} // namespace zluda::redirect

#endif
