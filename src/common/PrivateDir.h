//===- PrivateDir.h - folders that hold code only this user may write -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The compile cache holds object code our libraries load and run, and
/// the dump folder receives what a program compiled: both must be folders no
/// other user can write, or another user could put code into every program
/// that uses them (docs/ARCHITECTURE.md, "Security").
#ifndef ZLUDA_COMMON_PRIVATEDIR_H
#define ZLUDA_COMMON_PRIVATEDIR_H

#include <string>

namespace zluda {

/// Creates \p Dir if missing (mode 0700; missing parents with the umask's
/// mode) and checks that it is a directory owned by the current user that
/// neither its group nor others can write. Returns "" when it is, otherwise
/// why not and how to fix it (\p What names the folder in the message).
std::string ensurePrivateDir(const std::string &Dir, const std::string &What);

/// Checks that an existing file \p Path is owned by the current user and not
/// writable by group or others, or creates it empty with mode 0600. Returns
/// "" or why it is refused.
std::string ensurePrivateFile(const std::string &Path, const std::string &What);

} // namespace zluda

#endif // ZLUDA_COMMON_PRIVATEDIR_H
