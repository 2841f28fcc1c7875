//===- CpuShared.cpp - memory and events the CPU device shares -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "driver/CpuShared.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zluda::driver::shared {

namespace {
constexpr char MagicBytes[8] = {'Z', 'L', 'U', 'D', 'A', 'I', 'P', 'C'};

std::string nameOf(const char *Tag, uint64_t Id) {
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "zluda-%s-%016llx", Tag, static_cast<unsigned long long>(Id));
  return Buf;
}
} // namespace

int create(const char *Tag, size_t Size, uint64_t &Id) {
  static thread_local std::mt19937_64 Rng{std::random_device{}() ^ (uint64_t(getpid()) << 32)};
  Id = Rng() | 1; // never 0
  int Fd = memfd_create(nameOf(Tag, Id).c_str(), MFD_CLOEXEC);
  if (Fd < 0)
    return -1;
  if (ftruncate(Fd, static_cast<off_t>(Size)) != 0) {
    int E = errno;
    close(Fd);
    errno = E;
    return -1;
  }
  return Fd;
}

Handle makeHandle(uint32_t Kind, int Fd, uint64_t Id, size_t Size) {
  Handle H;
  std::memset(&H, 0, sizeof H);
  std::memcpy(H.Magic, MagicBytes, sizeof MagicBytes);
  H.Kind = Kind;
  H.Pid = getpid();
  H.Fd = Fd;
  H.Id = Id;
  H.Size = Size;
  return H;
}

bool valid(const Handle &H, uint32_t Kind) {
  return std::memcmp(H.Magic, MagicBytes, sizeof MagicBytes) == 0 && H.Kind == Kind && H.Pid > 0 && H.Fd >= 0 &&
         H.Id != 0;
}

int open(const Handle &H) {
  char Path[64];
  std::snprintf(Path, sizeof Path, "/proc/%d/fd/%d", H.Pid, H.Fd);
  // The descriptor must still be the memfd the handle names ("/memfd:NAME (deleted)").
  char Target[256];
  ssize_t N = readlink(Path, Target, sizeof Target - 1);
  if (N <= 0)
    return -1;
  Target[N] = 0;
  std::string Want = "/memfd:" + nameOf("ipc", H.Id);
  std::string WantEvent = "/memfd:" + nameOf("event", H.Id);
  std::string_view T(Target);
  auto startsWith = [&](const std::string &P) { return T.substr(0, P.size()) == P; };
  if (!startsWith(Want) && !startsWith(WantEvent) && !startsWith("/memfd:" + nameOf("vmm", H.Id)))
    return -1;
  return ::open(Path, O_RDWR | O_CLOEXEC);
}

size_t fileSize(int Fd) {
  struct stat St;
  return fstat(Fd, &St) == 0 ? static_cast<size_t>(St.st_size) : 0;
}

} // namespace zluda::driver::shared
