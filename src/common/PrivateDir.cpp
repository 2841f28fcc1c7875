//===- PrivateDir.cpp - folders that hold code only this user may write -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "common/PrivateDir.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zluda {

namespace {

std::string modeText(mode_t M) {
  char Buf[8];
  std::snprintf(Buf, sizeof Buf, "%04o", unsigned(M & 07777));
  return Buf;
}

/// Why \p St (of \p Path) is not private, or "".
std::string whyNotPrivate(const struct stat &St, const std::string &Path, const std::string &What, bool Dir) {
  if (St.st_uid != geteuid())
    return What + " " + Path + " belongs to another user (uid " + std::to_string(St.st_uid) +
           "): not used; point it at a " + (Dir ? "folder" : "file") + " of your own";
  if (St.st_mode & (S_IWGRP | S_IWOTH))
    return What + " " + Path + " can be written by other users (mode " + modeText(St.st_mode) +
           "): not used; run 'chmod go-w " + Path + "' or choose a private " + (Dir ? "folder" : "file");
  return {};
}

/// "WHAT PATH cannot be DOING: the system's reason".
std::string failed(const std::string &What, const std::string &Path, const char *Doing) {
  return What + " " + Path + " cannot be " + Doing + ": " + std::strerror(errno);
}

} // namespace

std::string ensurePrivateDir(const std::string &Dir, const std::string &What) {
  std::filesystem::path P(Dir);
  std::error_code EC;
  if (P.has_parent_path() && !P.parent_path().empty())
    std::filesystem::create_directories(P.parent_path(), EC);
  if (::mkdir(Dir.c_str(), 0700) != 0 && errno != EEXIST)
    return failed(What, Dir, "created");
  struct stat St;
  if (::stat(Dir.c_str(), &St) != 0)
    return failed(What, Dir, "read");
  if (!S_ISDIR(St.st_mode))
    return What + " " + Dir + " is not a folder";
  return whyNotPrivate(St, Dir, What, true);
}

std::string ensurePrivateFile(const std::string &Path, const std::string &What) {
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (Fd >= 0) {
    ::close(Fd);
    return {};
  }
  if (errno != EEXIST)
    return failed(What, Path, "created");
  struct stat St;
  if (::lstat(Path.c_str(), &St) != 0)
    return failed(What, Path, "read");
  if (!S_ISREG(St.st_mode))
    return What + " " + Path + " is not a regular file";
  return whyNotPrivate(St, Path, What, false);
}

} // namespace zluda
